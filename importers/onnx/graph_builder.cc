#include "graph_builder.h"

#include <algorithm>

#include <cctype>
#include <regex>
#include <sstream>

#include "converters.h"
#include "onnx_model.h"
#include "tensor_data.h"

#include "rxt/plugin_support/attr_text.h"

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

/// A symbolic dim from a dim_param: a bare identifier.
std::string DimName(const std::string& param) {
  std::string name;
  for (char c : param) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "d_" + name;
  return name;
}


/// "Tensor((2, 3), float32)", or "Tensor(ndim=2, float32)" when a dim is not one of |symbols|.
std::string TensorSInfo(const TypeInfo& type, const std::set<std::string>& symbols) {
  const char* dtype = RxtDType(type.dtype);
  if (!type.has_shape) return std::string("Tensor(") + dtype + ")";
  std::vector<std::string> dims;
  for (const Dim& d : type.dims) {
    if (!d.is_static() && symbols.count(d.symbol) == 0) {
      return "Tensor(ndim=" + std::to_string(type.rank()) + ", " + dtype + ")";
    }
    dims.push_back(d.text());
  }
  return "Tensor((" + Join(dims) + (dims.size() == 1 ? "," : "") + "), " + dtype + ")";
}

/// The converter table's key of |node|: its op type, prefixed by a domain other than ONNX's.
std::string ConverterKey(const onnx::NodeProto& node) {
  const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
  return default_domain ? node.op_type() : node.domain() + "." + node.op_type();
}

}  // namespace

std::string Local(const std::string& name) {
  bool plain = !name.empty();
  for (char c : name) plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  return "%" + (plain ? name : Quote(name));
}

std::string IntList(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

/// "axes:0;2" -> {"axes", {0, 2}}; "k:" binds an empty tensor.
std::pair<std::string, std::vector<double>> ParseBinding(const std::string& text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    throw ImportError("option bind: '" + text + "' is not INPUT:VALUES (values separated by ';')");
  }
  std::vector<double> values;
  std::stringstream list(text.substr(colon + 1));
  for (std::string v; std::getline(list, v, ';');) {
    char* end = nullptr;
    double number = std::strtod(v.c_str(), &end);
    if (v.empty() || end == v.c_str() || *end != '\0') {
      throw ImportError("option bind: '" + v + "' in '" + text + "' is not a number");
    }
    values.push_back(number);
  }
  return {text.substr(0, colon), values};
}

ImportOptions ParseImportOptions(const std::string& text) {
  ImportOptions options;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front()))) item.erase(0, 1);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back()))) item.pop_back();
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (key == "training" || key == "dropout") {
      if (value != "true" && value != "false") throw ImportError("option " + key + " takes true or false, got '" + value + "'");
      (key == "training" ? options.training : options.dropout) = value == "true";
    } else if (key == "freeze") {
      try {
        std::regex check(value);
      } catch (const std::regex_error& e) {
        throw ImportError("option freeze: '" + value + "' is not a regular expression (" + e.what() + ")");
      }
      options.freeze.push_back(value);
    } else if (key == "bind") {
      options.bind.push_back(ParseBinding(value));
    } else {
      throw ImportError("unknown option '" + key +
                        "' (the onnx importer takes: training=true|false, dropout=true|false, freeze=REGEX, bind=INPUT:V;V;...)");
    }
  }
  return options;
}

// ---------------------------------------------------------------------------------------------
// NodeContext

const ImportOptions& NodeContext::options() const { return graph_.options_; }

bool NodeContext::has_input(int i) const { return i < node_.input_size() && !node_.input(i).empty(); }

const Value& NodeContext::input(int i) const {
  if (!has_input(i)) fail("input " + std::to_string(i) + " is missing");
  const Value& value = graph_.Lookup(node_.input(i), where());
  if (value.unavailable) throw DependsOnUnsupported{};
  return value;
}

std::string NodeContext::expr(int i) {
  input(i);  // present and available
  Value& value = graph_.Lookup(node_.input(i), where());
  value.used_as_tensor = true;
  return graph_.Materialize(value, node_.input(i));
}

std::string NodeContext::named_expr(const std::string& name) {
  Value& value = graph_.Lookup(name, where());
  value.used_as_tensor = true;
  return graph_.Materialize(value, name);
}

const Constant* NodeContext::constant(int i) {
  if (!has_input(i)) return nullptr;
  input(i);
  Value& value = graph_.Lookup(node_.input(i), where());
  if (value.is_param_candidate) return nullptr;  // a parameter: its value changes in training
  return graph_.ConstantOf(value);
}

const Constant* NodeContext::known(int i) {
  if (!has_input(i)) return nullptr;
  input(i);
  return graph_.ConstantOf(graph_.Lookup(node_.input(i), where()));
}

namespace {

/// The constant of a value, parameters included (for inputs that must be known: shapes, bounds).
const Constant& RequiredConstant(const Constant* c, const NodeContext& ctx, int i,
                                 const std::string& what) {
  if (c == nullptr) {
    ctx.unsupported(ctx.op() + " with a " + what + " computed at run time (input " + std::to_string(i) + " '" +
                    ctx.node().input(i) + "')");
  }
  return *c;
}

}  // namespace

const Constant& NodeContext::required(int i, const std::string& what) {
  input(i);
  return RequiredConstant(graph_.ConstantOf(graph_.Lookup(node_.input(i), where())), *this, i, what);
}

std::vector<int64_t> NodeContext::ints(int i, const std::string& what) {
  input(i);
  Value& value = graph_.Lookup(node_.input(i), where());
  const Constant& c = RequiredConstant(graph_.ConstantOf(value), *this, i, what);
  if (c.is_float()) fail(what + " (input " + std::to_string(i) + ") must be integers");
  if (c.is_symbolic()) {
    unsupported(op() + " with a " + what + " that depends on symbolic dims");
  }
  return c.ints;
}

std::vector<std::string> NodeContext::dims_input(int i, const std::string& what) {
  input(i);
  Value& value = graph_.Lookup(node_.input(i), where());
  const Constant& c = RequiredConstant(graph_.ConstantOf(value), *this, i, what);
  if (c.is_float()) fail(what + " (input " + std::to_string(i) + ") must be integers");
  std::vector<std::string> out;
  for (size_t k = 0; k < c.size(); ++k) out.push_back(c.element_text(k));
  return out;
}

double NodeContext::scalar(int i, const std::string& what) {
  input(i);
  Value& value = graph_.Lookup(node_.input(i), where());
  const Constant& c = RequiredConstant(graph_.ConstantOf(value), *this, i, what);
  if (c.size() != 1) fail(what + " (input " + std::to_string(i) + ") must hold one value, it holds " + std::to_string(c.size()));
  if (c.is_symbolic()) unsupported(op() + " with a " + what + " that depends on symbolic dims");
  return c.as_double(0);
}

const TypeInfo& NodeContext::type(int i) const {
  if (!has_input(i)) fail("input " + std::to_string(i) + " is missing");
  return graph_.Lookup(node_.input(i), where()).type;
}

int NodeContext::rank(int i) const {
  const TypeInfo& t = type(i);
  if (!t.has_shape) unsupported(op() + " on a value of unknown rank ('" + node_.input(i) + "')");
  return t.rank();
}

std::string NodeContext::dtype(int i) const {
  const char* name = RxtDType(type(i).dtype);
  if (name == nullptr) fail("input '" + node_.input(i) + "' has an element type rxt has no dtype for");
  return name;
}

const TypeInfo& NodeContext::output_type(int k) const {
  static const TypeInfo kUnknown;
  const TypeInfo* inferred = graph_.Inferred(node_.output(k));
  return inferred == nullptr ? kUnknown : *inferred;
}

const onnx::AttributeProto* NodeContext::find_attr(const std::string& name) const {
  for (const onnx::AttributeProto& a : node_.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

int64_t NodeContext::attr_int(const std::string& name, int64_t fallback) const {
  const onnx::AttributeProto* a = find_attr(name);
  return a == nullptr ? fallback : a->i();
}

float NodeContext::attr_float(const std::string& name, float fallback) const {
  const onnx::AttributeProto* a = find_attr(name);
  return a == nullptr ? fallback : a->f();
}

std::string NodeContext::attr_string(const std::string& name, const std::string& fallback) const {
  const onnx::AttributeProto* a = find_attr(name);
  return a == nullptr ? fallback : a->s();
}

std::vector<int64_t> NodeContext::attr_ints(const std::string& name, std::vector<int64_t> fallback) const {
  const onnx::AttributeProto* a = find_attr(name);
  return a == nullptr ? fallback : std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

void NodeContext::set_output(int k, const std::string& expr) {
  if (!has_output(k)) return;
  const std::string& name = node_.output(k);
  graph_.Bind(Local(name), expr);
  Value value;
  value.expr = Local(name);
  value.type = output_type(k);
  value.bound_in_block = true;
  graph_.values_[name] = std::move(value);
}

void NodeContext::set_output_dims(int k, std::vector<Dim> dims) {
  if (!has_output(k)) return;
  TypeInfo& type = graph_.values_.at(node_.output(k)).type;
  // A dim ONNX's inference made up (unk__N) names the same dim downstream (a Div, a Softmax of
  // this output): each is replaced by the dim the converter knows, in every value still to come.
  std::map<std::string, Dim> known;
  if (type.has_shape && type.dims.size() == dims.size()) {
    for (size_t d = 0; d < dims.size(); ++d) {
      if (!type.dims[d].is_static() && type.dims[d].symbol.rfind("unk__", 0) == 0) known[type.dims[d].symbol] = dims[d];
    }
  }
  type.has_shape = true;
  type.dims = std::move(dims);
  // Applied when a value's inferred type is read (Inferred): a pin costs O(dims), not a pass
  // over every value of the graph.
  for (auto& [symbol, dim] : known) graph_.made_up_.emplace(symbol, dim);
}

const TypeInfo* GraphBuilder::Inferred(const std::string& name) {
  auto it = inferred_.find(name);
  if (it == inferred_.end()) return nullptr;
  if (made_up_.empty()) return &it->second;
  for (Dim& d : it->second.dims) {
    // A replacement may itself be a made-up dim pinned later: follow the chain (it is acyclic:
    // each pin maps a dim of an earlier value).
    for (size_t hops = 0; !d.is_static() && hops <= made_up_.size(); ++hops) {
      auto known = made_up_.find(d.symbol);
      if (known == made_up_.end() || known->second.symbol == d.symbol) break;
      d = known->second;
    }
  }
  return &it->second;
}

void NodeContext::set_output_constant(int k, Constant c) {
  if (!has_output(k)) return;
  Value value;
  value.type.dtype = c.dtype;
  value.type.has_shape = true;
  for (int64_t d : c.shape) value.type.dims.push_back(Dim{d, ""});
  value.constant = std::move(c);
  graph_.values_[node_.output(k)] = std::move(value);
}

std::string NodeContext::bind(const std::string& expr) {
  std::string local = graph_.Fresh();
  graph_.Bind(local, expr);
  return local;
}

std::string NodeContext::constant_expr(const Constant& value) { return graph_.ConstantExpr(value, node_.output(0)); }

std::string NodeContext::scalar_const(double value, const std::string& dtype) const {
  Constant c;
  for (int t = 1; t <= 16; ++t) {
    if (const char* name = RxtDType(t); name != nullptr && dtype == name) c.dtype = t;
  }
  if (c.is_float()) c.floats = {RoundToType(value, c.dtype)};
  else c.ints = {WrapToType(static_cast<int64_t>(value), c.dtype)};
  return "const(" + ConstantDataText(c) + ", " + dtype + ")";
}

void NodeContext::update_state(const std::string& name, const std::string& expr) {
  Value& value = graph_.Lookup(name, where());
  if (value.initializer == nullptr) fail("'" + name + "' is not an initializer: it cannot be a state");
  value.is_param_candidate = false;
  if (graph_.state_updates_.count(name) != 0) fail("the state '" + name + "' is updated twice");
  graph_.states_.push_back(name);
  const std::string local = bind(expr);
  graph_.state_updates_[name] = local;
}

namespace {

bool MadeUp(const Dim& d) { return !d.is_static() && d.symbol.rfind("unk__", 0) == 0; }

}  // namespace

void PinBroadcastDims(NodeContext& ctx) {
  // Ops whose output is the NumPy broadcast of their inputs: ONNX's inference makes up a dim
  // (unk__N) where two inputs carry different unknown ones, though the converters knew both.
  static const std::set<std::string> kBroadcasting = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean",
                                                      "Where", "Equal", "Less", "Greater", "LessOrEqual",
                                                      "GreaterOrEqual", "And", "Or", "Xor", "PRelu", "Mod"};
  if (!ctx.node().domain().empty() || kBroadcasting.count(ctx.op()) == 0 || !ctx.has_output(0)) return;
  const TypeInfo& out = ctx.output_type(0);
  if (!out.has_shape || std::none_of(out.dims.begin(), out.dims.end(), MadeUp)) return;
  std::vector<Dim> dims(out.dims.size(), Dim{1, ""});
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    const TypeInfo& t = ctx.type(i);
    if (!t.has_shape || t.rank() > static_cast<int>(dims.size())) return;
    const size_t offset = dims.size() - t.dims.size();
    for (size_t k = 0; k < t.dims.size(); ++k) {
      const Dim& d = t.dims[k];
      Dim& r = dims[offset + k];
      if (!d.is_known() || MadeUp(d)) return;
      if (d.is_static() && d.value == 1) continue;
      if (r.is_static() && r.value == 1) r = d;
      else if (r.text() != d.text()) return;  // not provably equal: leave ONNX's
    }
  }
  ctx.set_output_dims(0, dims);
}

std::string NodeContext::step_seed() {
  GraphBuilder& g = graph_;
  if (g.step_state_.empty()) {
    std::string name = "rxt_step";
    while (g.names_.count(name) != 0) name += "_";
    g.names_.insert(name);
    g.step_value_ = std::make_shared<onnx::TensorProto>();
    g.step_value_->set_name(name);
    g.step_value_->set_data_type(onnx::TensorProto::INT64);
    g.step_value_->add_int64_data(0);
    Value value;
    value.expr = Local(name);
    value.type.dtype = onnx::TensorProto::INT64;
    value.type.has_shape = true;
    value.initializer = g.step_value_.get();
    g.values_[name] = value;
    g.states_.push_back(name);
    g.state_updates_[name] = bind("add(" + Local(name) + ", const(1, int64))");
    g.step_state_ = name;
  }
  const std::string scaled = bind("multiply(" + Local(g.step_state_) + ", const(1048576, int64))");
  return bind("add(" + scaled + ", const(" + std::to_string(g.seeds_taken_++) + ", int64))");
}

bool NodeContext::is_initializer(int i) const { return has_input(i) && input(i).is_param_candidate; }

std::string NodeContext::where() const {
  std::string name = "node " + std::to_string(index_);
  if (!node_.name().empty()) name += " '" + node_.name() + "'";
  return name + " (" + node_.op_type() + ")";
}

void NodeContext::fail(const std::string& what) const { throw ImportError(where() + ": " + what); }

void NodeContext::unsupported(const std::string& what) const { throw UnsupportedNode{what}; }

// ---------------------------------------------------------------------------------------------
// GraphBuilder

GraphBuilder::GraphBuilder(const onnx::ModelProto& model, ImportOptions options, std::string model_dir)
    : model_(model), graph_(model.graph()), options_(options), model_dir_(std::move(model_dir)) {
  for (const onnx::ValueInfoProto& v : graph_.value_info()) inferred_[v.name()] = TypeOf(v.type());
  for (const onnx::ValueInfoProto& v : graph_.output()) inferred_[v.name()] = TypeOf(v.type());
  for (const onnx::ValueInfoProto& v : graph_.input()) names_.insert(v.name());
  for (const TensorProto& t : graph_.initializer()) names_.insert(t.name());
  for (const onnx::NodeProto& n : graph_.node()) names_.insert(n.output().begin(), n.output().end());

  std::vector<std::regex> freeze;
  for (const std::string& pattern : options_.freeze) freeze.emplace_back(pattern);
  auto frozen = [&](const std::string& name) {
    for (const std::regex& r : freeze) {
      if (std::regex_match(name, r)) return true;
    }
    return false;
  };
  for (const TensorProto& t : graph_.initializer()) {
    Value value;
    value.initializer = &t;
    value.type.dtype = t.data_type();
    value.type.has_shape = true;
    for (int64_t d : t.dims()) value.type.dims.push_back(Dim{d, ""});
    if (RxtDType(t.data_type()) == nullptr) {
      throw ImportError("initializer '" + t.name() + "' has element type " + std::to_string(t.data_type()) +
                        ", which rxt has no dtype for");
    }
    value.is_param_candidate = IsFloatType(t.data_type()) && !frozen(t.name());
    if (value.is_param_candidate) value.expr = Local(t.name());
    values_[t.name()] = std::move(value);
  }
  for (const onnx::ValueInfoProto& input : graph_.input()) {
    if (values_.count(input.name()) != 0) continue;  // an initializer listed as an input (IR < 4)
    Value value;
    value.expr = Local(input.name());
    if (!input.type().has_tensor_type()) throw ImportError("input '" + input.name() + "' is not a tensor");
    value.type = TypeOf(input.type());
    if (RxtDType(value.type.dtype) == nullptr) {
      throw ImportError("input '" + input.name() + "' has element type " + std::to_string(value.type.dtype) +
                        ", which rxt has no dtype for");
    }
    if (!value.type.has_shape) throw ImportError("input '" + input.name() + "' has no shape (give the model's inputs shapes)");
    for (const Dim& d : value.type.dims) {
      if (!d.is_known()) throw ImportError("input '" + input.name() + "' has a dim of unknown size (give it a dim_param)");
      if (!d.is_static()) input_symbols_.insert(d.symbol);
    }
    values_[input.name()] = std::move(value);
  }
}

TypeInfo GraphBuilder::TypeOf(const onnx::TypeProto& type) const {
  TypeInfo info;
  if (!type.has_tensor_type()) return info;
  info.dtype = type.tensor_type().elem_type();
  if (!type.tensor_type().has_shape()) return info;
  info.has_shape = true;
  for (const onnx::TensorShapeProto_Dimension& d : type.tensor_type().shape().dim()) {
    if (d.has_dim_value()) info.dims.push_back(Dim{d.dim_value(), ""});
    else if (d.has_dim_param()) info.dims.push_back(Dim{-1, DimName(d.dim_param())});
    else info.dims.push_back(Dim{});
  }
  return info;
}

std::string GraphBuilder::Fresh() {
  std::string name;
  do {
    name = "rxt_t" + std::to_string(next_temp_++);
  } while (names_.count(name) != 0);
  return "%" + name;
}

void GraphBuilder::Bind(const std::string& local, const std::string& expr) { body_.push_back(local + " = " + expr); }

Value& GraphBuilder::Lookup(const std::string& name, const std::string& where) {
  auto it = values_.find(name);
  if (it == values_.end()) throw ImportError(where + ": its input '" + name + "' is not defined before it");
  return it->second;
}

const Constant* GraphBuilder::ConstantOf(Value& value) {
  if (!value.constant && value.initializer != nullptr) {
    value.constant = ConstantFromTensor(*value.initializer, model_dir_);
  }
  return value.constant ? &*value.constant : nullptr;
}

std::string GraphBuilder::ConstantExpr(const Constant& c, const std::string& name) {
  if (c.is_symbolic()) {
    throw ImportError("'" + name + "' depends on symbolic dims (" + c.element_text(0) +
                      ", ...) and is used as a tensor: not supported");
  }
  const char* dtype = RxtDType(c.dtype);
  if (c.size() > 0 && c.size() <= 16) return "const(" + ConstantDataText(c) + ", " + dtype + ")";
  std::vector<std::string> dims;
  for (int64_t d : c.shape) dims.push_back(std::to_string(d));
  const size_t index = metadata_.size();
  metadata_.push_back("  " + std::to_string(index) + ": Tensor((" + Join(dims) + (dims.size() == 1 ? "," : "") +
                      "), " + dtype + ") = base64\"" + plugin_support::Base64(ConstantBytes(c)) + "\"");
  return "meta[" + std::to_string(index) + "]";
}

std::string GraphBuilder::Materialize(Value& value, const std::string& name) {
  if (!value.expr.empty()) return value.expr;
  const Constant* c = ConstantOf(value);
  if (c == nullptr) throw ImportError("'" + name + "' has no value");
  Bind(Local(name), ConstantExpr(*c, name));
  value.expr = Local(name);
  value.bound_in_block = true;
  return value.expr;
}

std::map<std::string, Constant> GraphBuilder::FoldStaticIntegers() {
  std::map<std::string, Constant> folded;
  for (int index = 0; index < graph_.node_size(); ++index) {
    const onnx::NodeProto& node = graph_.node(index);
    NodeContext ctx(*this, node, index);
    bool done = false;
    try {
      done = (node.domain().empty() || node.domain() == "ai.onnx") && TryFold(ctx);
    } catch (const UnsupportedNode&) {
    } catch (const DependsOnUnsupported&) {
    }
    for (const std::string& output : node.output()) {
      if (output.empty()) continue;
      Value& value = values_[output];
      if (!done) {
        value.unavailable = true;
        if (const TypeInfo* inferred = Inferred(output)) value.type = *inferred;
      } else if (value.constant && !value.constant->is_float() && !value.constant->is_symbolic()) {
        folded[output] = *value.constant;
      }
    }
  }
  return folded;
}

ImportedGraph GraphBuilder::Build() {
  // Every op without a converter, reported at once before anything is converted.
  const ConverterMap& converters = Converters();
  std::map<std::string, std::pair<int, std::string>> unsupported;  // op -> count, first node
  auto note = [&](const std::string& what, const NodeContext& ctx) {
    auto& entry = unsupported[what];
    if (entry.first++ == 0) entry.second = ctx.where();
  };
  for (int index = 0; index < graph_.node_size(); ++index) {
    const onnx::NodeProto& node = graph_.node(index);
    NodeContext ctx(*this, node, index);
    if (converters.count(ConverterKey(node)) == 0) note(ConverterKey(node), ctx);
  }
  auto report = [&]() {
    std::string list;
    for (const auto& [what, entry] : unsupported) {
      list += (list.empty() ? "" : ", ") + what + " (" + std::to_string(entry.first) + " node" +
              (entry.first > 1 ? "s" : "") + ", first " + entry.second + ")";
    }
    throw ImportError("unsupported ops: " + list);
  };
  if (!unsupported.empty()) report();

  for (int index = 0; index < graph_.node_size(); ++index) {
    const onnx::NodeProto& node = graph_.node(index);
    NodeContext ctx(*this, node, index);
    try {
      if (!TryFold(ctx)) {
        converters.at(ConverterKey(node))(ctx);
        PinBroadcastDims(ctx);
      }
      continue;
    } catch (const UnsupportedNode& e) {
      note(e.what, ctx);
    } catch (const DependsOnUnsupported&) {
    }
    for (const std::string& output : node.output()) {
      if (output.empty()) continue;
      values_[output].unavailable = true;
      if (const TypeInfo* inferred = Inferred(output)) values_[output].type = *inferred;
    }
  }
  if (!unsupported.empty()) report();

  // The result: the graph's outputs, then the updated states.
  if (graph_.output_size() == 0) throw ImportError("the graph has no outputs");
  std::vector<std::string> results, result_types;
  for (const onnx::ValueInfoProto& output : graph_.output()) {
    Value& value = Lookup(output.name(), "the graph's output");
    std::string local = Materialize(value, output.name());
    if (!value.bound_in_block) {
      local = Fresh();
      Bind(local, value.expr);
    }
    results.push_back(local);
    const TypeInfo* inferred = Inferred(output.name());
    TypeInfo type = inferred != nullptr ? *inferred : value.type;
    if (RxtDType(type.dtype) == nullptr) throw ImportError("the graph's output '" + output.name() + "' has no tensor type rxt knows");
    result_types.push_back(TensorSInfo(type, input_symbols_));
  }
  for (const std::string& state : states_) {
    results.push_back(state_updates_.at(state));
    result_types.push_back(TensorSInfo(values_.at(state).type, input_symbols_));
  }
  std::string final_value = results.at(0);
  if (results.size() > 1) {
    final_value = Fresh();
    Bind(final_value, "(" + Join(results) + ")");
  }

  ImportedGraph out;
  std::vector<std::string> params;
  for (const onnx::ValueInfoProto& input : graph_.input()) {
    const Value& value = values_.at(input.name());
    if (value.initializer == nullptr) params.push_back(value.expr + ": " + TensorSInfo(value.type, input_symbols_));
  }
  int param_num = 0;
  for (const TensorProto& t : graph_.initializer()) {
    const Value& value = values_.at(t.name());
    if (!value.is_param_candidate || !value.used_as_tensor) continue;
    params.push_back(value.expr + ": " + TensorSInfo(value.type, input_symbols_));
    out.params.push_back(&t);
    ++param_num;
  }
  for (const std::string& state : states_) {
    const Value& value = values_.at(state);
    params.push_back(Local(state) + ": " + TensorSInfo(value.type, input_symbols_));
    out.params.push_back(value.initializer);
  }

  std::ostringstream text;
  text << "attributes {param_num = " << param_num << ", state_num = " << states_.size() << "}\n"
       << "def @backbone(" << Join(params) << ") -> "
       << (result_types.size() == 1 ? result_types[0] : "Tuple(" + Join(result_types) + ")") << " {\n  dataflow {\n";
  for (const std::string& line : body_) text << "    " << line << "\n";
  text << "    output " << final_value << "\n  }\n  return " << final_value << "\n}\n";
  if (!metadata_.empty()) {
    text << "\nmetadata {\n";
    for (const std::string& entry : metadata_) text << entry << "\n";
    text << "}\n";
  }
  out.text = text.str();
  out.step_value = step_value_;
  return out;
}

}  // namespace rxt::import_onnx
