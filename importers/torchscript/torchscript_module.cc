// The only translation unit of the importer that includes libtorch (it takes long to compile):
// loading, the graph walk (constants, attributes, control flow on constants), the values.
#include "torchscript_module.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/serialization/import.h>

#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "backbone.h"
#include "converters.h"

namespace rxt::import_torchscript {
namespace {

using torch::jit::Node;

/// The first line of a libtorch error, without its backtrace.
std::string Brief(const std::exception& e) {
  const auto* c10 = dynamic_cast<const c10::Error*>(&e);
  std::string message = c10 != nullptr ? c10->what_without_backtrace() : e.what();
  if (const size_t nl = message.find('\n'); nl != std::string::npos) message.resize(nl);
  return message;
}

const char* DTypeName(at::ScalarType t) {
  switch (t) {
    case at::kFloat:
      return "float32";
    case at::kDouble:
      return "float64";
    case at::kHalf:
      return "float16";
    case at::kBFloat16:
      return "bfloat16";
    case at::kLong:
      return "int64";
    case at::kInt:
      return "int32";
    case at::kShort:
      return "int16";
    case at::kChar:
      return "int8";
    case at::kByte:
      return "uint8";
    case at::kBool:
      return "bool";
    default:
      return nullptr;
  }
}

Dims DimsOf(const at::Tensor& t) {
  Dims dims;
  for (int64_t d : t.sizes()) dims.push_back(Dim::Static(d));
  return dims;
}

std::string BytesOf(const at::Tensor& t) {
  at::Tensor c = t.detach().contiguous().cpu();
  return std::string(static_cast<const char*>(c.data_ptr()), c.nbytes());
}

/// Refuses what is no zip archive by its first bytes (what torch.jit.save writes is one).
void CheckMagic(const std::string& head) {
  if (head.size() >= 4 && head.compare(0, 4, "PK\x03\x04") == 0) return;
  if (!head.empty() && static_cast<unsigned char>(head[0]) == 0x80) {
    throw ImportError(
        "not a TorchScript module: a pickle (torch.save's legacy format, e.g. a state_dict); save a module "
        "with torch.jit.save(torch.jit.trace(model, example), path)");
  }
  throw ImportError("not a TorchScript module: not a zip archive (torch.jit.save writes one)");
}

/// Loads the module with libtorch (|load|, from a file or a stream); what it cannot load is an
/// ImportError saying what the file is (|open| opens it again as a zip to tell).
template <typename LoadFn, typename OpenFn>
torch::jit::Module Load(LoadFn load, OpenFn open) {
  try {
    return load();
  } catch (const std::exception& e) {
    const std::string what = Brief(e);
    // A zip of torch.save (a state_dict or a pickled module) has data.pkl and no code.
    bool pickled = false;
    try {
      pickled = open([](caffe2::serialize::PyTorchStreamReader& r) {
        return r.hasRecord("data.pkl") && !r.hasRecord("constants.pkl");
      });
    } catch (const std::exception&) {
    }
    if (pickled) {
      throw ImportError(
          "not a TorchScript module: a file of torch.save (a state_dict or a pickled object: data.pkl and no "
          "code); save a module with torch.jit.save(torch.jit.trace(model, example), path)");
    }
    throw ImportError("libtorch cannot load it as a TorchScript module: " + what);
  }
}

/// An in-place kind ("aten::relu_") as its functional one; "" for others.
std::string Functional(const std::string& kind) {
  if (kind.size() > 2 && kind.back() == '_' && kind[kind.size() - 2] != '_') return kind.substr(0, kind.size() - 1);
  return "";
}

/// Thrown when a node reads a value of a node that could not be converted.
struct DependsOnUnsupported {};

class GraphWalk {
 public:
  GraphWalk(torch::jit::Module module, const ImportOptions& options)
      : module_(std::move(module)),
        backbone_(options, [this](const std::string& name) { return BytesOf(tensors_.at(name)); }) {}

  ImportedModule Run() {
    auto method = module_.find_method("forward");
    if (!method) throw ImportError("the module has no forward method");
    std::shared_ptr<torch::jit::Graph> graph = method->graph()->copy();
    torch::jit::Inline(*graph);
    CollectAttributes();
    ListUnknownKinds(graph->block());
    Report();
    AddInputs(*graph);
    for (torch::jit::Value* v : graph->inputs()) backbone_.ReserveName(v->debugName());
    WalkBlock(graph->block());
    Report();
    std::vector<Value> outputs;
    for (torch::jit::Value* out : graph->outputs()) Flatten(Lookup(out), &outputs);
    ImportedModule imported;
    imported.text = backbone_.Finish(outputs);
    for (const ValueSlot& slot : backbone_.value_slots()) imported.values.push_back(ValueOf(slot));
    return imported;
  }

 private:
  void CollectAttributes() {
    for (const auto& p : module_.named_parameters(/*recurse=*/true)) AddAttribute(p.name, p.value, true);
    for (const auto& b : module_.named_buffers(/*recurse=*/true)) AddAttribute(b.name, b.value, false);
  }

  void AddAttribute(const std::string& name, const at::Tensor& t, bool is_parameter) {
    const char* dtype = DTypeName(t.scalar_type());
    if (dtype == nullptr)
      throw ImportError("'" + name + "' has the dtype " + std::string(c10::toString(t.scalar_type())) +
                        ", which rxt has not");
    // A tensor tied to an earlier name (a shared weight) is that one, as PyTorch's parameters().
    if (!by_storage_.emplace(t.unsafeGetTensorImpl(), name).second) return;
    tensors_[name] = t;
    backbone_.AddAttribute({name, DimsOf(t), dtype, is_parameter, false});
    if (is_parameter && float_dtype_.empty() && IsFloat(dtype)) float_dtype_ = dtype;
  }

  /// "file.py:12:3" of a node's source, when the file keeps it.
  std::string SourceOf(const Node* node) const {
    try {
      torch::jit::SourceRange range = node->sourceRange();
      if (auto original = range.findSourceRangeThatGenerated()) range = *original;
      if (auto flc = range.file_line_col()) {
        return std::get<0>(*flc) + ":" + std::to_string(std::get<1>(*flc)) + ":" + std::to_string(std::get<2>(*flc));
      }
    } catch (const std::exception&) {
    }
    return "";
  }

  std::string Where(const Node* node) const {
    std::string where = node->kind().toQualString();
    std::string name = node->outputs().empty() ? "" : "%" + node->output(0)->debugName();
    const std::string source = backbone_.options().source_locations ? SourceOf(node) : "";
    if (!name.empty() || !source.empty()) {
      where += " (" + name + (source.empty() ? "" : (name.empty() ? "at " : ", at ") + source) + ")";
    }
    return where;
  }

  /// Whether the walk knows |kind|: a converter's, or one the walk itself handles.
  static bool IsKnown(const std::string& kind) {
    static const char* kWalked[] = {"prim::Constant",       "prim::GetAttr",       "prim::If",   "prim::Loop",
                                    "prim::RaiseException", "prim::Uninitialized", "aten::append"};
    for (const char* k : kWalked) {
      if (kind == k) return true;
    }
    const ConverterMap& converters = Converters();
    const std::string functional = Functional(kind);
    return converters.count(kind) != 0 || (!functional.empty() && converters.count(functional) != 0);
  }

  /// Every node kind without a converter in the graph's top block, before anything is converted
  /// (those of the branches of a prim::If and of loop bodies are listed when they are walked: a
  /// scripted module's branch not taken may hold anything, e.g. the raising of an error).
  void ListUnknownKinds(const torch::jit::Block* block) {
    for (const Node* node : block->nodes()) {
      const std::string kind = node->kind().toQualString();
      if (!IsKnown(kind)) Note(kind, node);
    }
  }

  void Note(const std::string& what, const Node* node) {
    auto& entry = unsupported_[what];
    if (entry.first++ == 0) entry.second = Where(node);
  }

  void Report() {
    if (unsupported_.empty()) return;
    std::string list;
    for (const auto& [what, entry] : unsupported_) {
      list += (list.empty() ? "" : ", ") + what + " (" + std::to_string(entry.first) + " node" +
              (entry.first > 1 ? "s" : "") + ", first " + entry.second + ")";
    }
    throw ImportError("unsupported ops: " + list);
  }

  void AddInputs(const torch::jit::Graph& graph) {
    std::vector<const torch::jit::Value*> inputs;
    for (const torch::jit::Value* v : graph.inputs()) {
      if (v == graph.inputs()[0] && v->type()->cast<c10::ClassType>()) {
        Value self;
        self.kind = Kind::kModule;
        values_[v] = self;
        modules_[""] = module_._ivalue();
        continue;
      }
      inputs.push_back(v);
    }
    const std::vector<InputShape>& shapes = backbone_.options().shapes;
    std::vector<bool> shape_used(shapes.size());
    for (const torch::jit::Value* v : inputs) {
      std::string name = v->debugName();
      if (const size_t dot = name.rfind('.'); dot != std::string::npos && dot > 0) name.resize(dot);
      if (!v->type()->cast<c10::TensorType>()) {
        throw ImportError("input '" + name + "' is a " + v->type()->str() + ": only tensor inputs are supported");
      }
      const InputShape* shape = nullptr;
      for (size_t k = 0; k < shapes.size(); ++k) {
        if (shapes[k].input == name || shapes[k].input == v->debugName() ||
            (shapes[k].input.empty() && inputs.size() == 1)) {
          shape = &shapes[k];
          shape_used[k] = true;
        }
      }
      if (shape == nullptr) {
        throw ImportError("input '" + name +
                          "' needs a shape: a TorchScript file keeps none; give it with --options 'shape=" + name +
                          ":batch;3;224;224' (a name such as batch is a symbolic dim)");
      }
      Dims dims;
      for (const std::string& d : shape->dims) {
        dims.push_back(std::isdigit(static_cast<unsigned char>(d[0])) ? Dim::Static(std::stoll(d)) : Dim::Symbolic(d));
      }
      const std::string dtype = !shape->dtype.empty() ? shape->dtype : float_dtype_.empty() ? "float32" : float_dtype_;
      values_[v] = backbone_.AddInput(name, dims, dtype);
    }
    for (size_t k = 0; k < shapes.size(); ++k) {
      if (!shape_used[k]) throw ImportError("option shape: the module has no input '" + shapes[k].input + "'");
    }
  }

  const Value& Lookup(const torch::jit::Value* v) {
    auto it = values_.find(v);
    if (it == values_.end()) throw DependsOnUnsupported{};
    return it->second;
  }

  static void Flatten(const Value& v, std::vector<Value>* out) {
    if (v.kind == Kind::kList) {
      for (const Value& item : v.items) Flatten(item, out);
    } else {
      out->push_back(v);
    }
  }

  /// An IValue known at import (a constant or a module attribute) as a Value.
  Value FromIValue(const c10::IValue& iv, const std::string& name) {
    if (iv.isNone()) return Value::None();
    if (iv.isBool()) return Value::Bool(iv.toBool());
    if (iv.isInt()) return Value::Int(iv.toInt());
    if (iv.isDouble()) return Value::Float(iv.toDouble());
    if (iv.isString()) {
      Value v;
      v.kind = Kind::kString;
      v.text = iv.toStringRef();
      return v;
    }
    if (iv.isList() || iv.isTuple()) {
      std::vector<Value> items;
      if (iv.isList()) {
        for (const c10::IValue& item : iv.toListRef()) items.push_back(FromIValue(item, name));
      } else {
        for (const c10::IValue& item : iv.toTupleRef().elements()) items.push_back(FromIValue(item, name));
      }
      return Value::List(std::move(items));
    }
    if (iv.isTensor()) {
      const at::Tensor& t = iv.toTensor();
      const char* dtype = DTypeName(t.scalar_type());
      if (dtype == nullptr) return Value::Other("a tensor of dtype " + std::string(c10::toString(t.scalar_type())));
      if (t.dim() == 0) {  // a number known at import
        Value v = IsFloat(dtype)                 ? Value::Float(t.item<double>())
                  : dtype == std::string("bool") ? Value::Bool(t.item<bool>())
                                                 : Value::Int(t.item<int64_t>());
        v.scalar_tensor = true;
        v.dtype = dtype;
        return v;
      }
      return Value::Tensor(
          backbone_.Bind(backbone_.ConstantTensor(BytesOf(t), DimsOf(t), dtype), name, TensorSInfo(DimsOf(t), dtype)),
          DimsOf(t), dtype);
    }
    if (iv.isDevice()) {  // as prim::device gives it (convert_scalar.cc)
      Value v;
      v.kind = Kind::kString;
      v.text = iv.toDevice().str();
      return v;
    }
    return Value::Other("a constant of type " + iv.tagKind());
  }

  /// prim::GetAttr: a submodule, a parameter or buffer, or another attribute's value.
  Value GetAttr(const Node* node) {
    const Value& owner = Lookup(node->input(0));
    if (owner.kind != Kind::kModule) throw ImportError(Where(node) + ": reads an attribute of " + owner.describe());
    const std::string attr = node->s(c10::attr::name);
    const std::string path = owner.text.empty() ? attr : owner.text + "." + attr;
    if (backbone_.HasAttribute(path)) return backbone_.AttributeValue(path);
    c10::IValue value = modules_.at(owner.text)->getAttr(attr);
    // A scripted module's `self.training` follows the import's mode, as train() / eval() would.
    if (attr == "training" && value.isBool()) return Value::Bool(backbone_.options().training);
    if (value.isTensor()) {  // a parameter or buffer tied to one of another name
      auto tied = by_storage_.find(value.toTensor().unsafeGetTensorImpl());
      if (tied != by_storage_.end()) return backbone_.AttributeValue(tied->second);
    }
    if (value.isObject()) {
      modules_[path] = value.toObject();
      Value v;
      v.kind = Kind::kModule;
      v.text = path;
      return v;
    }
    return FromIValue(value, path);
  }

  void WalkBlock(const torch::jit::Block* block) {
    for (const Node* node : block->nodes()) {
      try {
        WalkNode(node);
      } catch (const UnsupportedNode& e) {
        Note(std::string(node->kind().toQualString()) + ": " + e.what, node);
      } catch (const DependsOnUnsupported&) {
      }
    }
  }

  void WalkNode(const Node* node) {
    const std::string kind = node->kind().toQualString();
    if (kind == "prim::Constant") {
      std::optional<c10::IValue> iv = torch::jit::toIValue(node->output());
      values_[node->output()] =
          iv ? FromIValue(*iv, node->output()->debugName()) : Value::Other("an unreadable constant");
      return;
    }
    if (kind == "prim::GetAttr") {
      values_[node->output()] = GetAttr(node);
      return;
    }
    if (kind == "prim::If") return WalkIf(node);
    if (kind == "prim::Loop") return WalkLoop(node);
    if (kind == "prim::Uninitialized") {
      values_[node->output()] = Value::Other("an uninitialized value");
      return;
    }
    if (kind == "aten::append") {  // list.append(x): the list's value grows in place
      Value list = Lookup(node->input(0));
      if (list.kind != Kind::kList) throw UnsupportedNode{"append to " + list.describe()};
      if (list.items.size() >= 4096) throw UnsupportedNode{"a list of more than 4096 items"};
      list.items.push_back(Lookup(node->input(1)));
      values_[node->input(0)] = list;
      values_[node->output()] = list;
      return;
    }
    if (kind == "prim::RaiseException") {
      throw ImportError(Where(node) + ": the module raises an exception for these input shapes");
    }
    if (!IsKnown(kind)) {  // in a nested block (the top block's are refused before the walk)
      Note(kind, node);
      throw DependsOnUnsupported{};
    }
    const std::string functional = Functional(kind);
    std::vector<const Value*> inputs;
    for (const torch::jit::Value* in : node->inputs()) inputs.push_back(&Lookup(in));
    if (!functional.empty() && !inputs.empty() && !inputs[0]->attribute.empty()) {
      // An in-place update of a buffer (num_batches_tracked += 1 in batch_norm's training): rxt
      // updates only the states a batch_norm returns. Its result may not be used.
      for (const torch::jit::Value* out : node->outputs())
        values_[out] = Value::Other("an in-place update of '" + inputs[0]->attribute + "' (not supported)");
      return;
    }
    std::vector<std::string> names;
    std::vector<bool> used;
    for (const torch::jit::Value* out : node->outputs()) {
      names.push_back(out->debugName());
      used.push_back(out->hasUses());
    }
    NodeContext ctx(backbone_, functional.empty() ? kind : functional, inputs, names, used,
                    [this, node] { return Where(node); });
    Converters().at(ctx.kind())(ctx);
    for (size_t k = 0; k < node->outputs().size(); ++k) values_[node->output(k)] = ctx.outputs()[k];
    // In place: later readers of the input see the result.
    if (!functional.empty() && !node->outputs().empty()) values_[node->input(0)] = ctx.outputs()[0];
  }

  /// prim::If on a condition known at import (self.training, a dim check): the taken branch.
  void WalkIf(const Node* node) {
    const Value& condition = Lookup(node->input(0));
    if (!condition.is_known_number()) throw UnsupportedNode{"a branch on a value known only at run time"};
    const torch::jit::Block* taken = node->blocks()[condition.number != 0 ? 0 : 1];
    WalkBlock(taken);
    for (size_t k = 0; k < node->outputs().size(); ++k) values_[node->output(k)] = Lookup(taken->outputs()[k]);
  }

  /// prim::Loop(trip_count, condition, carried...) with a trip count and conditions known at
  /// import (a scripted module's loop over dims): unrolled, its body walked once per iteration.
  void WalkLoop(const Node* node) {
    const Value& trips = Lookup(node->input(0));
    const Value& condition = Lookup(node->input(1));
    if (!trips.is_known_number() || !condition.is_known_number()) {
      throw UnsupportedNode{"a loop whose trip count or condition is known only at run time"};
    }
    const torch::jit::Block* body = node->blocks()[0];
    std::vector<Value> carried;
    for (size_t k = 2; k < node->inputs().size(); ++k) carried.push_back(Lookup(node->input(k)));
    const int64_t count = SaturatingInt(trips.number);
    bool go = condition.number != 0;
    for (int64_t i = 0; go && i < count; ++i) {
      if (i == 4096) throw UnsupportedNode{"a loop of more than 4096 iterations"};
      values_[body->inputs()[0]] = Value::Int(i);
      for (size_t k = 0; k < carried.size(); ++k) values_[body->inputs()[k + 1]] = carried[k];
      const size_t notes = unsupported_.size();
      WalkBlock(body);
      if (unsupported_.size() != notes) throw DependsOnUnsupported{};  // noted once, not per iteration
      const Value& next = Lookup(body->outputs()[0]);
      if (!next.is_known_number()) throw UnsupportedNode{"a loop whose condition is known only at run time"};
      go = next.number != 0;
      for (size_t k = 0; k < carried.size(); ++k) carried[k] = Lookup(body->outputs()[k + 1]);
    }
    for (size_t k = 0; k < node->outputs().size() && k < carried.size(); ++k) values_[node->output(k)] = carried[k];
  }

  TensorValue ValueOf(const ValueSlot& slot) {
    TensorValue v;
    v.name = slot.name;
    if (slot.is_step) {
      v.dtype_code = kDLIntCode;
      v.dtype_bits = 64;
      v.bytes.assign(sizeof(int64_t), '\0');
      return v;
    }
    const at::Tensor& t = tensors_.at(slot.name);
    v.shape.assign(t.sizes().begin(), t.sizes().end());
    const at::ScalarType s = t.scalar_type();
    v.dtype_code = at::isFloatingType(s) ? (s == at::kBFloat16 ? kDLBfloatCode : kDLFloatCode)
                   : s == at::kBool      ? kDLBoolCode
                   : s == at::kByte      ? kDLUIntCode
                                         : kDLIntCode;
    v.dtype_bits = static_cast<uint8_t>(t.element_size() * 8);
    v.bytes = BytesOf(t);
    return v;
  }

  // DLPack's type codes (dlpack.h), without including it here.
  static constexpr uint8_t kDLIntCode = 0, kDLUIntCode = 1, kDLFloatCode = 2, kDLBfloatCode = 4, kDLBoolCode = 6;

  torch::jit::Module module_;
  Backbone backbone_;
  std::map<std::string, at::Tensor> tensors_;
  std::map<const c10::TensorImpl*, std::string> by_storage_;  // each tensor's first name
  std::map<std::string, c10::intrusive_ptr<c10::ivalue::Object>> modules_;
  std::map<const torch::jit::Value*, Value> values_;
  std::map<std::string, std::pair<int, std::string>> unsupported_;  // what -> count, first node
  std::string float_dtype_;
};

}  // namespace

namespace {

ImportedModule Walk(torch::jit::Module module, const ImportOptions& options) {
  try {
    return GraphWalk(std::move(module), options).Run();
  } catch (const ImportError&) {
    throw;
  } catch (const c10::Error& e) {
    throw ImportError("libtorch: " + Brief(e));
  }
}

}  // namespace

ImportedModule ImportTorchScript(std::istream& in, const ImportOptions& options) {
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string data = std::move(buffer).str();
  CheckMagic(data.substr(0, 4));
  torch::jit::Module module = Load(
      [&] {
        std::istringstream stream(data);
        return torch::jit::load(stream, c10::Device(c10::kCPU));
      },
      [&](auto look) {
        std::istringstream stream(data);
        caffe2::serialize::PyTorchStreamReader reader(&stream);
        return look(reader);
      });
  return Walk(std::move(module), options);
}

ImportedModule ImportTorchScript(const std::string& path, const ImportOptions& options) {
  std::string head(4, '\0');
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ImportError("cannot open the file");
    in.read(head.data(), 4);
    head.resize(static_cast<size_t>(in.gcount()));
  }
  CheckMagic(head);
  torch::jit::Module module = Load([&] { return torch::jit::load(path, c10::Device(c10::kCPU)); },
                                   [&](auto look) {
                                     caffe2::serialize::PyTorchStreamReader reader(path);
                                     return look(reader);
                                   });
  return Walk(std::move(module), options);
}

}  // namespace rxt::import_torchscript
