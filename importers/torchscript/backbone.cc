#include "backbone.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

#include "rxt/plugin_support/attr_text.h"

namespace rxt::import_torchscript {
namespace {


bool Matches(const std::vector<std::string>& patterns, const std::string& name) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return std::regex_match(name, std::regex(p)); });
}

}  // namespace

Backbone::Backbone(ImportOptions options, std::function<std::string(const std::string&)> attribute_bytes)
    : options_(std::move(options)), attribute_bytes_(std::move(attribute_bytes)) {}

std::string Backbone::FreshLocal(const std::string& hint) {
  std::string base = hint.empty() ? "t" : hint;
  if (std::isdigit(static_cast<unsigned char>(base[0]))) base = "v" + base;
  std::string name = base;
  for (int k = 1; used_.count(name) != 0; ++k) name = base + "_" + std::to_string(k);
  used_.insert(name);
  return Local(name);
}

std::string Backbone::Bind(const std::string& expr, const std::string& hint, const std::string& sinfo) {
  std::string local = FreshLocal(hint);
  body_.push_back(local + (sinfo.empty() ? "" : ": " + sinfo) + " = " + expr);
  block_locals_.insert(local);
  return local;
}

Value Backbone::AddInput(const std::string& name, Dims dims, const std::string& dtype) {
  std::string local = Local(name);
  used_.insert(name);
  inputs_.push_back(local + ": " + TensorSInfo(dims, dtype));
  return Value::Tensor(local, std::move(dims), dtype);
}

void Backbone::AddAttribute(Attribute attribute) {
  attribute.frozen = Matches(options_.freeze, attribute.name);
  used_.insert(attribute.name);
  attribute_order_.push_back(attribute);
  attributes_[attribute.name] = std::move(attribute);
}

Value Backbone::AttributeValue(const std::string& name) const {
  const Attribute& a = attributes_.at(name);
  Value v = Value::Tensor("", a.dims, a.dtype);
  v.attribute = name;
  return v;
}

std::string Backbone::AttributeExpr(const std::string& name) {
  const Attribute& a = attributes_.at(name);
  if ((a.is_parameter && !a.frozen) || state_updates_.count(name) != 0) return Local(name);
  if (auto it = constants_.find(name); it != constants_.end()) return it->second;
  std::string local =
      Bind(ConstantTensor(attribute_bytes_(name), a.dims, a.dtype), name + "_const", TensorSInfo(a.dims, a.dtype));
  constants_[name] = local;
  return local;
}

bool Backbone::IsStateCandidate(const std::string& name) const {
  auto it = attributes_.find(name);
  if (it == attributes_.end()) return false;
  const Attribute& a = it->second;
  return options_.training && !a.is_parameter && !a.frozen &&
         (a.dtype == "float32" || a.dtype == "float64" || a.dtype == "float16");
}

std::string Backbone::State(const std::string& name) {
  if (constants_.count(name) != 0)
    throw ImportError("buffer '" + name + "' is read as a constant and updated as a state");
  if (state_updates_.count(name) == 0) {
    state_order_.push_back(name);
    state_updates_[name] = "";
  }
  return Local(name);
}

void Backbone::UpdateState(const std::string& name, const std::string& expr) {
  if (!state_updates_.at(name).empty()) throw ImportError("buffer '" + name + "' is updated twice");
  state_updates_[name] = expr;
}

std::string Backbone::StepSeed() {
  if (step_local_.empty()) {
    std::string name = "rxt_step";
    while (used_.count(name) != 0) name += "_";
    used_.insert(name);
    step_local_ = Local(name);
    state_updates_[name] = Bind("add(" + step_local_ + ", const(1, int64))", name + "_next");
  }
  const std::string scaled = Bind("multiply(" + step_local_ + ", const(1048576, int64))", "seed");
  return Bind("add(" + scaled + ", const(" + std::to_string(seeds_taken_++) + ", int64))", "seed");
}

std::string Backbone::ConstantTensor(const std::string& bytes, const Dims& dims, const std::string& dtype) {
  const size_t index = metadata_.size();
  metadata_.push_back("  " + std::to_string(index) + ": " + TensorSInfo(dims, dtype) + " = base64\"" + plugin_support::Base64(bytes) +
                      "\"");
  return "meta[" + std::to_string(index) + "]";
}

std::string Backbone::Finish(const std::vector<Value>& outputs) {
  if (outputs.empty()) throw ImportError("the module's forward returns no tensor");
  std::vector<std::string> results, result_types;
  for (const Value& out : outputs) {
    if (out.kind != Kind::kTensor)
      throw ImportError("the module's forward returns " + out.describe() + ", not a tensor");
    std::string local = out.attribute.empty() ? out.expr : AttributeExpr(out.attribute);
    // The result must be a local of the block: an input or parameter returned as is gets one.
    if (block_locals_.count(local) == 0) local = Bind(local, "output");
    results.push_back(local);
    result_types.push_back(TensorSInfo(out.dims, out.dtype));
  }
  std::vector<std::string> params = inputs_;
  int param_num = 0;
  for (const Attribute& a : attribute_order_) {
    if (!a.is_parameter || a.frozen) continue;
    params.push_back(Local(a.name) + ": " + TensorSInfo(a.dims, a.dtype));
    slots_.push_back({a.name, false});
    ++param_num;
  }
  int state_num = 0;
  // States in named_buffers() order, then the step counter.
  for (const Attribute& a : attribute_order_) {
    auto it = state_updates_.find(a.name);
    if (it == state_updates_.end()) continue;
    if (it->second.empty()) throw ImportError("buffer '" + a.name + "' is a state that no op updates");
    params.push_back(Local(a.name) + ": " + TensorSInfo(a.dims, a.dtype));
    results.push_back(it->second);
    result_types.push_back(TensorSInfo(a.dims, a.dtype));
    slots_.push_back({a.name, false});
    ++state_num;
  }
  if (!step_local_.empty()) {
    params.push_back(step_local_ + ": Tensor((), int64)");
    results.push_back(state_updates_.at(step_local_.substr(1)));
    result_types.push_back("Tensor((), int64)");
    slots_.push_back({step_local_.substr(1), true});
    ++state_num;
  }
  std::string final_value = results.at(0);
  if (results.size() > 1) final_value = Bind("(" + Join(results) + ")", "result");

  std::ostringstream text;
  text << "attributes {param_num = " << param_num << ", state_num = " << state_num << "}\n"
       << "def @backbone(" << Join(params) << ") -> "
       << (result_types.size() == 1 ? result_types[0] : "Tuple(" + Join(result_types) + ")") << " {\n  dataflow {\n";
  for (const std::string& line : body_) text << "    " << line << "\n";
  text << "    output " << final_value << "\n  }\n  return " << final_value << "\n}\n";
  if (!metadata_.empty()) {
    text << "\nmetadata {\n";
    for (const std::string& entry : metadata_) text << entry << "\n";
    text << "}\n";
  }
  return text.str();
}

}  // namespace rxt::import_torchscript
