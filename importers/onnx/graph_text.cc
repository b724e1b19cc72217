#include "graph_text.h"

#include <map>
#include <set>
#include <sstream>

#include "onnx_model.h"

namespace rxt::import_onnx {
namespace {

using onnx::TensorProto;

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

/// %name, quoted unless it is [A-Za-z0-9_]+ (as rxt's printer writes it).
std::string Local(const std::string& name) {
  bool plain = !name.empty();
  for (char c : name) plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  return "%" + (plain ? name : Quote(name));
}

/// A symbolic dim from a dim_param: a bare identifier.
std::string DimName(const std::string& param) {
  std::string name;
  for (char c : param) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "d_" + name;
  return name;
}

const char* DTypeName(int type) {
  switch (type) {
    case TensorProto::FLOAT: return "float32";
    case TensorProto::DOUBLE: return "float64";
    case TensorProto::FLOAT16: return "float16";
    case TensorProto::BFLOAT16: return "bfloat16";
    case TensorProto::INT64: return "int64";
    case TensorProto::INT32: return "int32";
    case TensorProto::INT16: return "int16";
    case TensorProto::INT8: return "int8";
    case TensorProto::UINT8: return "uint8";
    case TensorProto::BOOL: return "bool";
    default: return nullptr;
  }
}

class Writer {
 public:
  explicit Writer(const onnx::ModelProto& model) : model_(model) {}

  GraphText Write() {
    const onnx::GraphProto& graph = model_.graph();
    std::set<std::string> initializers;
    for (const TensorProto& t : graph.initializer()) initializers.insert(t.name());
    std::vector<std::string> params;
    for (const onnx::ValueInfoProto& input : graph.input()) {
      if (initializers.count(input.name()) == 0) params.push_back(Local(input.name()) + ": " + TypeOf(input));
    }
    GraphText out;
    for (const TensorProto& t : graph.initializer()) {
      if (t.data_type() != TensorProto::FLOAT) {
        Fail("initializer '" + t.name() + "' of another type than float (not supported yet)");
      }
      params.push_back(Local(t.name()) + ": " + TensorType(t));
      out.params.push_back(&t);
    }
    std::ostringstream body;
    std::map<std::string, std::pair<int, std::string>> unsupported;  // op -> count, first node
    for (int index = 0; index < graph.node_size(); ++index) {
      const onnx::NodeProto& node = graph.node(index);
      std::string call = Call(node);
      if (call.empty()) {
        auto& entry = unsupported[node.op_type()];
        if (entry.first++ == 0) entry.second = NodeName(node, index);
        continue;
      }
      body << "    " << Local(node.output(0)) << " = " << call << "\n";
    }
    if (!unsupported.empty()) {
      std::string list;
      for (const auto& [op, entry] : unsupported) {
        list += (list.empty() ? "" : ", ") + op + " (" + std::to_string(entry.first) + " node" +
                (entry.first > 1 ? "s" : "") + ", first " + entry.second + ")";
      }
      Fail("unsupported ops: " + list);
    }
    std::vector<std::string> outputs, types;
    for (const onnx::ValueInfoProto& o : graph.output()) {
      outputs.push_back(Local(o.name()));
      types.push_back(TypeOf(o));
    }
    std::string result = outputs.size() == 1 ? outputs[0] : "(" + Join(outputs) + ")";
    std::string ret = types.size() == 1 ? types[0] : "Tuple(" + Join(types) + ")";
    std::ostringstream text;
    text << "attributes {param_num = " << out.params.size() << ", state_num = 0}\n"
         << "def @backbone(" << Join(params) << ") -> " << ret << " {\n  dataflow {\n"
         << body.str();
    if (outputs.size() > 1) text << "    %rxt_outputs = " << result << "\n";
    std::string final_value = outputs.size() > 1 ? "%rxt_outputs" : result;
    text << "    output " << final_value << "\n  }\n  return " << final_value << "\n}\n";
    out.text = text.str();
    return out;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const { throw ImportError(what); }

  /// "node 3 'Conv_3'" (or "node 3" when it has no name).
  static std::string NodeName(const onnx::NodeProto& node, int index) {
    std::string name = "node " + std::to_string(index);
    return node.name().empty() ? name : name + " '" + node.name() + "'";
  }

  static std::string Join(const std::vector<std::string>& parts) {
    std::string out;
    for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
    return out;
  }

  std::string TypeOf(const onnx::ValueInfoProto& value) const {
    if (!value.type().has_tensor_type()) Fail("value '" + value.name() + "' is not a tensor");
    const onnx::TypeProto_Tensor& t = value.type().tensor_type();
    const char* dtype = DTypeName(t.elem_type());
    if (dtype == nullptr) Fail("value '" + value.name() + "' has an unsupported element type " + std::to_string(t.elem_type()));
    if (!t.has_shape()) Fail("value '" + value.name() + "' has no shape (give the model's inputs shapes)");
    std::vector<std::string> dims;
    for (const onnx::TensorShapeProto_Dimension& d : t.shape().dim()) {
      if (d.has_dim_value()) {
        dims.push_back(std::to_string(d.dim_value()));
      } else if (d.has_dim_param()) {
        dims.push_back(DimName(d.dim_param()));
      } else {
        Fail("value '" + value.name() + "' has a dim of unknown size");
      }
    }
    return "Tensor((" + Join(dims) + (dims.size() == 1 ? "," : "") + "), " + dtype + ")";
  }

  std::string TensorType(const TensorProto& t) const {
    std::vector<std::string> dims;
    for (int64_t d : t.dims()) dims.push_back(std::to_string(d));
    return "Tensor((" + Join(dims) + (dims.size() == 1 ? "," : "") + "), " + DTypeName(t.data_type()) + ")";
  }

  static const onnx::AttributeProto* Attr(const onnx::NodeProto& node, const std::string& name) {
    for (const onnx::AttributeProto& a : node.attribute()) {
      if (a.name() == name) return &a;
    }
    return nullptr;
  }

  /// The op call for |node|, "" when it has no mapping.
  std::string Call(const onnx::NodeProto& node) const {
    const std::string& op = node.op_type();
    auto arg = [&](int i) { return Local(node.input(i)); };
    static const std::map<std::string, std::string> kBinary = {
        {"Add", "add"}, {"Sub", "subtract"}, {"Mul", "multiply"}, {"Div", "divide"}, {"MatMul", "matmul"}};
    static const std::map<std::string, std::string> kUnary = {
        {"Relu", "nn.relu"}, {"Sigmoid", "sigmoid"}, {"Tanh", "tanh"}, {"Exp", "exp"}, {"Log", "log"},
        {"Sqrt", "sqrt"}, {"Neg", "negative"}, {"Abs", "abs"}, {"Erf", "erf"}};
    if (auto it = kBinary.find(op); it != kBinary.end()) return it->second + "(" + arg(0) + ", " + arg(1) + ")";
    if (auto it = kUnary.find(op); it != kUnary.end()) return it->second + "(" + arg(0) + ")";
    if (op == "Identity") return arg(0);
    if (op == "Gemm") {
      auto get = [&](const char* name, float fallback) {
        const onnx::AttributeProto* a = Attr(node, name);
        return a != nullptr ? (a->has_f() ? a->f() : static_cast<float>(a->i())) : fallback;
      };
      if (get("alpha", 1) != 1 || get("beta", 1) != 1 || get("transA", 0) != 0) return "";
      std::string product = get("transB", 0) != 0 ? "linear(" + arg(0) + ", " + arg(1) + ")"
                                                  : "matmul(" + arg(0) + ", " + arg(1) + ")";
      return node.input_size() > 2 && !node.input(2).empty() ? "add(" + product + ", " + arg(2) + ")" : product;
    }
    return "";
  }

  const onnx::ModelProto& model_;
};

}  // namespace

GraphText WriteGraph(const onnx::ModelProto& model) { return Writer(model).Write(); }

}  // namespace rxt::import_onnx
