#include "input_binding.h"

#include <regex>

#include "onnx_model.h"

namespace rxt::import_onnx {
namespace {

/// |name| as a regular expression that matches it alone.
std::string Escaped(const std::string& name) {
  static const std::regex kSpecial(R"([.^$|()\[\]{}*+?\\])");
  return std::regex_replace(name, kSpecial, R"(\$&)");
}

onnx::TensorProto ValueOf(const onnx::ValueInfoProto& input, const std::vector<double>& values) {
  const auto& type = input.type().tensor_type();
  onnx::TensorProto t;
  t.set_name(input.name());
  t.set_data_type(type.elem_type());
  int64_t count = 1;
  for (const auto& dim : type.shape().dim()) {
    if (!dim.has_dim_value()) throw ImportError("option bind: input '" + input.name() + "' has no static shape");
    t.add_dims(dim.dim_value());
    count *= dim.dim_value();
  }
  if (count != static_cast<int64_t>(values.size())) {
    throw ImportError("option bind: input '" + input.name() + "' holds " + std::to_string(count) + " values, " +
                      std::to_string(values.size()) + " were given");
  }
  for (double v : values) {
    switch (type.elem_type()) {
      case onnx::TensorProto::FLOAT: t.add_float_data(static_cast<float>(v)); break;
      case onnx::TensorProto::DOUBLE: t.add_double_data(v); break;
      case onnx::TensorProto::INT32: t.add_int32_data(static_cast<int32_t>(v)); break;
      case onnx::TensorProto::INT64: t.add_int64_data(static_cast<int64_t>(v)); break;
      case onnx::TensorProto::BOOL: t.add_int32_data(v != 0); break;
      default: throw ImportError("option bind: input '" + input.name() + "' is of an element type bind does not take");
    }
  }
  return t;
}

}  // namespace

onnx::ModelProto BindInputs(onnx::ModelProto model, ImportOptions* options) {
  if (options->bind.empty()) return model;
  onnx::GraphProto& graph = *model.mutable_graph();
  for (const auto& [name, values] : options->bind) {
    int found = -1;
    for (int i = 0; i < graph.input_size(); ++i) {
      if (graph.input(i).name() == name) found = i;
    }
    if (found < 0) throw ImportError("option bind: the graph has no input '" + name + "'");
    *graph.add_initializer() = ValueOf(graph.input(found), values);
    graph.mutable_input()->DeleteSubrange(found, 1);
    options->freeze.push_back(Escaped(name));
  }
  return InferShapes(model);
}

}  // namespace rxt::import_onnx
