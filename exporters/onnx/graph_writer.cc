#include "graph_writer.h"

#include <onnx/defs/attr_proto_util.h>

#include <cctype>
#include <cstring>

namespace rxt::export_onnx {
namespace {

struct TypeName {
  const char* name;
  int type;
  DLDataType dl;
};
constexpr TypeName kTypes[] = {
    {"float32", onnx::TensorProto::FLOAT, {kDLFloat, 32, 1}},     {"float64", onnx::TensorProto::DOUBLE, {kDLFloat, 64, 1}},
    {"float16", onnx::TensorProto::FLOAT16, {kDLFloat, 16, 1}},   {"bfloat16", onnx::TensorProto::BFLOAT16, {kDLBfloat, 16, 1}},
    {"int64", onnx::TensorProto::INT64, {kDLInt, 64, 1}},         {"int32", onnx::TensorProto::INT32, {kDLInt, 32, 1}},
    {"int16", onnx::TensorProto::INT16, {kDLInt, 16, 1}},         {"int8", onnx::TensorProto::INT8, {kDLInt, 8, 1}},
    {"uint8", onnx::TensorProto::UINT8, {kDLUInt, 8, 1}},
};

/// Whether |text| is one symbol ("n", "batch_size"), not an expression ("n * 2").
bool IsSymbol(const std::string& text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  for (char c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

size_t ElementBytes(DLDataType dtype) { return (dtype.bits + 7) / 8; }

}  // namespace

int OnnxType(const std::string& dtype) {
  for (const TypeName& t : kTypes) {
    if (dtype == t.name) return t.type;
  }
  return dtype == "bool" ? onnx::TensorProto::BOOL : 0;
}

int OnnxType(DLDataType dtype) {
  for (const TypeName& t : kTypes) {
    if (t.dl.code == dtype.code && t.dl.bits == dtype.bits && dtype.lanes == 1) return t.type;
  }
  return 0;
}

GraphWriter::GraphWriter(const rxt_ir_api_t* ir_api, rxt_ir_builder_t* r, onnx::GraphProto& g)
    : ir(ir_api), reader(r), graph(g) {}

std::string GraphWriter::Unique(const std::string& hint) {
  std::string base = hint.empty() ? "v" : hint;
  std::string name = base;
  for (int i = 1; used_.count(name) != 0; ++i) name = base + "_" + std::to_string(i);
  used_.insert(name);
  return name;
}

void GraphWriter::SetTensor(rxt_ir_expr_t var, const std::string& name) { bound_[var] = Bound{{name}, false, false}; }

void GraphWriter::SetTuple(rxt_ir_expr_t var, std::vector<std::string> names) {
  bound_[var] = Bound{std::move(names), true, false};
}

void GraphWriter::SetValue(rxt_ir_expr_t var, rxt_ir_expr_t value) { values_[var] = value; }

void GraphWriter::SetFailed(rxt_ir_expr_t var) { bound_[var] = Bound{{}, false, true}; }

rxt_ir_expr_t GraphWriter::Resolve(rxt_ir_expr_t e) const {
  for (int hops = 0; hops < 1000; ++hops) {
    auto it = values_.find(e);
    if (it == values_.end()) return e;
    e = it->second;
  }
  return e;
}

const GraphWriter::Bound& GraphWriter::Find(rxt_ir_expr_t e, const char* what) const {
  auto it = bound_.find(e);
  if (it == bound_.end()) {
    const char* name = ir->var_name(reader, e);
    throw ExportError(std::string("the ") + what + " %" + (name ? name : "?") + " is not defined before its use");
  }
  if (it->second.failed) throw UsesFailedValue{};
  return it->second;
}

std::string GraphWriter::Tensor(rxt_ir_expr_t e) {
  e = Resolve(e);
  switch (ir->expr_kind(reader, e)) {
    case RXT_IR_VAR: {
      const Bound& b = Find(e, "tensor");
      if (b.tuple) throw ExportError(std::string("%") + ir->var_name(reader, e) + " is a tuple where a tensor is used");
      return b.names[0];
    }
    case RXT_IR_CONSTANT: {
      auto it = constants_.find(e);
      if (it != constants_.end()) return it->second;
      DLTensor value{};
      if (ir->constant_tensor(reader, e, &value) != RXT_OK) throw ExportError("a constant without data");
      const char* dtype = ir->dtype(reader, e);  // bool crosses DLPack 0.6 as uint8
      return constants_[e] = Constant(ToProto(value, OnnxType(dtype ? dtype : "")), "const");
    }
    case RXT_IR_TUPLE_ITEM: {
      int index = 0;
      rxt_ir_expr_t tuple = ir->item_of(reader, e, &index);
      std::vector<std::string> names = Tuple(tuple);
      if (index < 0 || index >= static_cast<int>(names.size())) throw ExportError("a tuple index out of range");
      return names[index];
    }
    default: throw ExportError("an argument that is not a tensor variable or constant");
  }
}

std::vector<std::string> GraphWriter::Tuple(rxt_ir_expr_t e) {
  e = Resolve(e);
  if (ir->expr_kind(reader, e) == RXT_IR_TUPLE) {
    std::vector<std::string> names;
    for (int i = 0, n = ir->num_fields(reader, e); i < n; ++i) names.push_back(Tensor(ir->field(reader, e, i)));
    return names;
  }
  if (ir->expr_kind(reader, e) != RXT_IR_VAR) throw ExportError("a tuple argument that is not a variable or tuple");
  return Find(e, "tuple").names;  // a tensor's one name where a tuple of one is expected
}

onnx::NodeProto& GraphWriter::Node(const std::string& op_type, const std::vector<std::string>& inputs,
                                   const std::vector<std::string>& outputs) {
  onnx::NodeProto& node = *graph.add_node();
  node.set_op_type(op_type);
  if (!outputs.empty()) node.set_name(outputs[0]);
  for (const std::string& in : inputs) node.add_input(in);
  for (const std::string& out : outputs) node.add_output(out);
  return node;
}

std::string GraphWriter::Op(const std::string& op_type, const std::vector<std::string>& inputs,
                            const std::string& hint, const std::vector<onnx::AttributeProto>& attrs) {
  std::string out = Unique(hint);
  onnx::NodeProto& node = Node(op_type, inputs, {out});
  for (const onnx::AttributeProto& a : attrs) *node.add_attribute() = a;
  return out;
}

onnx::TensorProto GraphWriter::ToProto(const DLTensor& value, int type) {
  if (type == 0) type = OnnxType(value.dtype);
  if (type == 0) throw ExportError("a value of a dtype ONNX has no type for");
  onnx::TensorProto t;
  t.set_data_type(type);
  size_t count = 1;
  for (int i = 0; i < value.ndim; ++i) {
    t.add_dims(value.shape[i]);
    count *= static_cast<size_t>(value.shape[i]);
  }
  const char* data = static_cast<const char*>(value.data) + value.byte_offset;
  t.set_raw_data(std::string(data, count * ElementBytes(value.dtype)));
  return t;
}

std::string GraphWriter::Initializer(const DLTensor& value, const std::string& hint, bool exact_name, int type) {
  onnx::TensorProto& t = *graph.add_initializer();
  t = ToProto(value, type);
  t.set_name(exact_name ? hint : Unique(hint));
  return t.name();
}

std::string GraphWriter::Constant(onnx::TensorProto value, const std::string& hint) {
  value.clear_name();
  return Op("Constant", {}, hint, {onnx::MakeAttribute("value", value)});
}

std::string GraphWriter::Int64s(const std::vector<int64_t>& values, const std::string& hint) {
  int64_t n = static_cast<int64_t>(values.size());
  DLTensor t{};
  t.data = const_cast<int64_t*>(values.data());
  t.ndim = 1;
  t.shape = &n;
  t.dtype = {kDLInt, 64, 1};
  return Constant(ToProto(t), hint);
}

onnx::TensorProto GraphWriter::ScalarProto(double value, int type) {
  onnx::TensorProto t;
  t.set_data_type(type);
  t.add_dims(1);
  switch (type) {
    case onnx::TensorProto::FLOAT: t.add_float_data(static_cast<float>(value)); break;
    case onnx::TensorProto::DOUBLE: t.add_double_data(value); break;
    case onnx::TensorProto::INT64: t.add_int64_data(static_cast<int64_t>(value)); break;
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::BOOL: t.add_int32_data(static_cast<int32_t>(value)); break;
    default: throw ExportError("a scalar of a dtype other than float32/64 or an integer");
  }
  return t;
}

std::string GraphWriter::Scalar(double value, int type, const std::string& hint) {
  onnx::TensorProto t = ScalarProto(value, type);
  t.clear_dims();
  return Constant(t, hint);
}

std::optional<std::vector<Dim>> GraphWriter::TensorDims(rxt_ir_expr_t e) const {
  int ndim = ir->ndim(reader, e);
  if (ndim < 0) return std::nullopt;
  std::vector<Dim> dims(ndim);
  for (int i = 0; i < ndim; ++i) {
    dims[i].known = ir->dim(reader, e, i, &dims[i].value) == 1;
    const char* text = ir->dim_text(reader, e, i);
    dims[i].text = text ? text : "";
  }
  return dims;
}

std::vector<Dim> GraphWriter::TensorDimsOrFail(rxt_ir_expr_t e, const std::string& what) const {
  std::optional<std::vector<Dim>> dims = TensorDims(e);
  if (!dims) throw ExportError(what + " has no known rank");
  return *dims;
}

std::vector<Dim> GraphWriter::ShapeDims(rxt_ir_expr_t shape) const {
  rxt_ir_expr_t e = Resolve(shape);
  int ndim = ir->shape_ndim(reader, e);
  if (ndim < 0) throw ExportError("a shape whose dims are unknown");
  std::vector<Dim> dims(ndim);
  for (int i = 0; i < ndim; ++i) {
    dims[i].known = ir->shape_dim(reader, e, i, &dims[i].value) == 1;
    const char* text = ir->shape_dim_text(reader, e, i);
    dims[i].text = text ? text : "";
  }
  return dims;
}

void GraphWriter::NoteSymbols(const std::string& name, rxt_ir_expr_t var) {
  std::optional<std::vector<Dim>> dims = TensorDims(var);
  if (!dims) return;
  for (size_t i = 0; i < dims->size(); ++i) {
    const Dim& d = (*dims)[i];
    if (!d.known && IsSymbol(d.text) && symbols_.count(d.text) == 0) symbols_[d.text] = {name, static_cast<int>(i)};
  }
}

std::string GraphWriter::SymbolTensor(const std::string& text) {
  auto cached = symbol_tensors_.find(text);
  if (cached != symbol_tensors_.end()) return cached->second;
  auto it = symbols_.find(text);
  if (it == symbols_.end()) {
    throw ExportError("the symbolic dim '" + text +
                      "' is no dim of an input (bind it: rxt export --bind " + text + "=N, or BindSymbolicVars)");
  }
  const auto& [input, axis] = it->second;
  std::string out = Op("Shape", {input}, text + "_dim",
                       {onnx::MakeAttribute("start", int64_t{axis}), onnx::MakeAttribute("end", int64_t{axis + 1})});
  return symbol_tensors_[text] = out;
}

std::string GraphWriter::ShapeTensor(const std::vector<Dim>& dims, const std::string& hint) {
  bool all_known = true;
  for (const Dim& d : dims) all_known = all_known && d.known;
  if (all_known) {
    std::vector<int64_t> values;
    for (const Dim& d : dims) values.push_back(d.value);
    return Int64s(values, hint);
  }
  std::vector<std::string> pieces;
  for (const Dim& d : dims) pieces.push_back(d.known ? Int64s({d.value}, hint + "_dim") : SymbolTensor(d.text));
  return Op("Concat", pieces, hint, {onnx::MakeAttribute("axis", int64_t{0})});
}

void GraphWriter::SetType(onnx::ValueInfoProto& info, rxt_ir_expr_t e) const {
  onnx::TypeProto_Tensor& t = *info.mutable_type()->mutable_tensor_type();
  const char* dtype = ir->dtype(reader, e);
  int type = OnnxType(dtype ? dtype : "");
  if (type == 0) throw ExportError(std::string("a graph input or output of dtype '") + (dtype ? dtype : "") + "'");
  t.set_elem_type(type);
  std::optional<std::vector<Dim>> dims = TensorDims(e);
  if (!dims) return;
  onnx::TensorShapeProto& shape = *t.mutable_shape();
  for (const Dim& d : *dims) {
    onnx::TensorShapeProto_Dimension& dim = *shape.add_dim();
    if (d.known) {
      dim.set_dim_value(d.value);
    } else if (IsSymbol(d.text)) {
      dim.set_dim_param(d.text);
    }
  }
}

}  // namespace rxt::export_onnx
