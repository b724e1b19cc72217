// Values known at import time: initializers that are not parameters, Constant nodes, and what
// shape subgraphs compute from them (Shape -> Gather -> Concat -> Reshape). Integer elements may
// be symbolic (a dim_param's name, or an expression of such names) so that a symbolic batch
// survives folding: Reshape gets shape(n, 64), not a fixed size.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace rxt::import_onnx {

struct Constant {
  int dtype = onnx::TensorProto::INT64;  // an ONNX element type rxt has a dtype for
  std::vector<int64_t> shape;
  std::vector<double> floats;        // the elements when dtype is a float type
  std::vector<int64_t> ints;         // the elements otherwise (bool: 0 or 1)
  std::vector<std::string> symbols;  // empty, or parallel to ints: a prim expression where not static

  size_t size() const;
  bool is_float() const;
  bool is_symbolic() const;
  bool is_symbolic(size_t i) const { return !symbols.empty() && !symbols[i].empty(); }
  /// Element i as a prim expression: its symbol or its number.
  std::string element_text(size_t i) const;
  /// Element i as a number (a float's value, an int's value).
  double as_double(size_t i) const { return is_float() ? floats[i] : static_cast<double>(ints[i]); }
};

/// Largest constant the importer folds (ConstantOfShape, Range, ... beyond it stay ops).
inline constexpr size_t kMaxFoldedElements = size_t(1) << 16;

/// |t|'s value (external data looked up in |model_dir|).
Constant ConstantFromTensor(const onnx::TensorProto& t, const std::string& model_dir);

/// A 0-d or 1-d constant of |dtype| from numbers.
Constant MakeIntConstant(std::vector<int64_t> values, std::vector<int64_t> shape);

/// Rounds |value| the way a store into |dtype| does (integers wrap, floats round to the type).
double RoundToType(double value, int dtype);
int64_t WrapToType(int64_t value, int dtype);

/// The shortest text that reads back as |v| in |dtype| ("0.1", "inf", "nan").
std::string NumberText(double v, int dtype);

/// Its elements as the little-endian bytes of its dtype (static constants only).
std::string ConstantBytes(const Constant& c);

/// Nested-list text of its data (const_data of docs/ir.md), e.g. "[[1, 2], [3, 4]]".
std::string ConstantDataText(const Constant& c);

}  // namespace rxt::import_onnx
