// One converter per rxt op: it reads the op call (arguments, attributes, struct info) and writes
// ONNX nodes (opset 17) through the GraphWriter, then names the result. Families in
// convert_{elementwise,nn,shape,reduce,training}.cc; the registry in converters.cc.
#pragma once

#include <onnx/defs/attr_proto_util.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph_writer.h"

namespace rxt::export_onnx {

/// The ONNX opset the exporter writes.
inline constexpr int64_t kOpset = 17;
/// The domain of ONNX's training ops (Gradient), imported at version 1 by a model that uses it.
inline constexpr const char* kTrainingDomain = "ai.onnx.preview.training";

using onnx::MakeAttribute;

/// One op call being converted: %var = op(args; attrs).
class OpContext {
 public:
  OpContext(GraphWriter& writer, rxt_ir_expr_t call, rxt_ir_expr_t var);

  GraphWriter& w;
  const rxt_ir_api_t* ir() const { return w.ir; }

  std::string op() const;
  /// The result's variable name, a hint for the names of the nodes' outputs.
  const std::string& hint() const { return hint_; }
  int num_args() const;
  rxt_ir_expr_t arg(int index) const;
  /// Argument |index| as a graph tensor name.
  std::string input(int index) const { return w.Tensor(arg(index)); }
  rxt_ir_expr_t result() const { return var_; }

  // Attributes (with the op's defaults filled in by the host).
  std::optional<int64_t> Int(const char* name) const;
  int64_t Int(const char* name, int64_t fallback) const { return Int(name).value_or(fallback); }
  std::optional<std::vector<int64_t>> Ints(const char* name) const;  // nullopt: none or absent
  double Float(const char* name, double fallback) const;
  bool Bool(const char* name, bool fallback) const;
  std::string String(const char* name, const std::string& fallback) const;

  // Struct info.
  std::string DType(rxt_ir_expr_t e) const;
  int OnnxTypeOf(rxt_ir_expr_t e) const;
  int NDim(rxt_ir_expr_t e) const;
  std::vector<Dim> Dims(rxt_ir_expr_t e) const { return w.TensorDimsOrFail(e, "an operand"); }

  /// The result is the graph tensor |name| / the tuple |names|.
  void Output(const std::string& name) const { w.SetTensor(var_, name); }
  void OutputTuple(std::vector<std::string> names) const { w.SetTuple(var_, std::move(names)); }

  /// One node of one output named after the result; returns its name.
  std::string Op(const std::string& op_type, const std::vector<std::string>& inputs,
                 const std::vector<onnx::AttributeProto>& attrs = {}) const {
    return w.Op(op_type, inputs, hint_, attrs);
  }
  /// A 0-d constant of |like|'s dtype.
  std::string ScalarLike(double value, rxt_ir_expr_t like) const;

  /// Throws ExportError: "<why>" (the caller adds the op and variable).
  [[noreturn]] void Fail(const std::string& why) const;

 private:
  rxt_ir_expr_t call_, var_;
  std::string hint_;
};

using Converter = void (*)(OpContext&);
using ConverterTable = std::map<std::string, Converter>;

/// The converter of |op|, or null if ONNX cannot express it.
Converter FindConverter(const std::string& op);

void AddElementwiseConverters(ConverterTable& table);
void AddNNConverters(ConverterTable& table);
void AddShapeConverters(ConverterTable& table);
void AddReduceConverters(ConverterTable& table);
void AddTrainingConverters(ConverterTable& table);

/// Normalizes an axis of a rank-|ndim| tensor (negative: from the end).
int64_t NormalizeAxis(int64_t axis, int64_t ndim);

}  // namespace rxt::export_onnx
