// An ONNX graph being written from an rxt function (docs/onnx.md, "Export"): unique value
// names, what each rxt expression is called in the graph, nodes, constants as initializers,
// and shapes as int64 tensors (symbolic dims read from the graph inputs that carry them).
#pragma once

#include <onnx/onnx_pb.h>
#include <rxt/ir_builder.h>

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace rxt::export_onnx {

/// Something the graph cannot hold (an op ONNX cannot express, an attribute it lacks...).
struct ExportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The ONNX element type of an rxt dtype name ("float32" -> FLOAT); 0 if ONNX has none.
int OnnxType(const std::string& dtype);
int OnnxType(DLDataType dtype);

/// A dim of a shape: a number, or a symbolic one by its text ("n", "n * 2").
struct Dim {
  bool known = false;
  int64_t value = 0;
  std::string text;
};

class GraphWriter {
 public:
  GraphWriter(const rxt_ir_api_t* ir, rxt_ir_builder_t* reader, onnx::GraphProto& graph);

  const rxt_ir_api_t* ir;
  rxt_ir_builder_t* reader;
  onnx::GraphProto& graph;

  /// |hint| if no value of the graph has that name yet, else hint_1, hint_2...
  std::string Unique(const std::string& hint);

  // ---- rxt expressions and their names in the graph.
  /// Records that |var| is the graph value |name| (a tensor) or the values |names| (a tuple).
  void SetTensor(rxt_ir_expr_t var, const std::string& name);
  void SetTuple(rxt_ir_expr_t var, std::vector<std::string> names);
  /// Records that |var| is bound to |value|, read where it is used (shapes, prim values).
  void SetValue(rxt_ir_expr_t var, rxt_ir_expr_t value);
  /// |var| could not be exported: bindings that use it are skipped (their error is its).
  void SetFailed(rxt_ir_expr_t var);
  /// The graph name of a tensor: a variable set before, or a constant (an initializer).
  std::string Tensor(rxt_ir_expr_t e);
  /// The graph names of a tuple: a variable set before, or a tuple literal.
  std::vector<std::string> Tuple(rxt_ir_expr_t e);
  /// What a variable was bound to with SetValue (followed through variables), else |e|.
  rxt_ir_expr_t Resolve(rxt_ir_expr_t e) const;

  // ---- Nodes.
  onnx::NodeProto& Node(const std::string& op_type, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs);
  /// A node of one output, named after |hint|; returns the output's name.
  std::string Op(const std::string& op_type, const std::vector<std::string>& inputs, const std::string& hint,
                 const std::vector<onnx::AttributeProto>& attrs = {});

  // ---- Constants: Constant nodes (an initializer would come back as a parameter when the
  // model is imported again), and initializers for the values of the function's parameters.
  /// |value| as a Constant node's output named after |hint|.
  std::string Constant(onnx::TensorProto value, const std::string& hint);
  /// |value| as an initializer named after |hint| (or |hint| itself, made unique before), of
  /// ONNX element type |type| (0: |value|'s dtype's).
  std::string Initializer(const DLTensor& value, const std::string& hint, bool exact_name = false, int type = 0);
  /// |value| as a TensorProto (raw data), of ONNX element type |type| (0: |value|'s dtype's).
  static onnx::TensorProto ToProto(const DLTensor& value, int type = 0);
  std::string Int64s(const std::vector<int64_t>& values, const std::string& hint);
  /// A 0-d tensor of ONNX element type |type| holding |value|.
  std::string Scalar(double value, int type, const std::string& hint);
  /// The same as a TensorProto (ConstantOfShape's value attribute): one element, shape (1,).
  static onnx::TensorProto ScalarProto(double value, int type);

  // ---- Shapes.
  /// The dims of a tensor expression's struct info; nullopt if its rank is unknown.
  std::optional<std::vector<Dim>> TensorDims(rxt_ir_expr_t e) const;
  std::vector<Dim> TensorDimsOrFail(rxt_ir_expr_t e, const std::string& what) const;
  /// The dims of a shape value (shape(...) or a variable bound to one).
  std::vector<Dim> ShapeDims(rxt_ir_expr_t shape) const;
  /// |dims| as a 1-D int64 tensor: a constant when all are known, else pieces concatenated
  /// (a symbolic dim is read off the graph input that has it with Shape).
  std::string ShapeTensor(const std::vector<Dim>& dims, const std::string& hint);
  /// The value of the symbolic dim |text| as a 1-element int64 tensor.
  std::string SymbolTensor(const std::string& text);
  /// Notes the symbolic dims of graph input |name| (rxt variable |var|), for SymbolTensor.
  void NoteSymbols(const std::string& name, rxt_ir_expr_t var);
  /// Sets |info|'s type: the element type and shape of |e|'s struct info.
  void SetType(onnx::ValueInfoProto& info, rxt_ir_expr_t e) const;

 private:
  struct Bound {
    std::vector<std::string> names;
    bool tuple = false;
    bool failed = false;
  };
  const Bound& Find(rxt_ir_expr_t e, const char* what) const;

  std::set<std::string> used_;
  std::map<rxt_ir_expr_t, Bound> bound_;
  std::map<rxt_ir_expr_t, rxt_ir_expr_t> values_;
  std::map<rxt_ir_expr_t, std::string> constants_;
  std::map<std::string, std::pair<std::string, int>> symbols_;  // text -> (input, axis)
  std::map<std::string, std::string> symbol_tensors_;
};

/// Thrown when a binding uses a value whose own binding failed: the binding is skipped.
struct UsesFailedValue {};

}  // namespace rxt::export_onnx
