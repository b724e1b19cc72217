// IRBuilderHost: the handle arena, error recording and function building behind
// rxt_ir_api_t. The C functions of the table live in ir_api_read.cc and ir_api_build.cc.
#include "rxt/plugin/ir_builder_host.h"

#include <atomic>
#include <cstdint>
#include <functional>

#include "rxt/ir/parser.h"
#include "rxt/ir/op.h"

namespace rxt {
namespace {

/// Names of parameters and states: any the text format can print (quoted where they are not
/// identifiers: %"trunk.block1-0.weight"), so importers keep a model's own names; no control
/// characters.
bool IsGoodName(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  }
  return true;
}

}  // namespace

namespace {

// A handle is (host tag << kTagShift) | (arena index + 1): the tag tells one host's handles from
// another's (several builders live at once through the C ABI's rxt_function_builder_t).
static_assert(sizeof(uintptr_t) == 8, "expression handles carry a host tag in their high bits");
constexpr int kTagShift = 40;
constexpr uintptr_t kIndexMask = (uintptr_t{1} << kTagShift) - 1;

uintptr_t NextHostTag() {
  static std::atomic<uint32_t> counter{0};
  return (counter.fetch_add(1, std::memory_order_relaxed) % ((1u << 23) - 1)) + 1;
}

}  // namespace

IRBuilderHost::IRBuilderHost(BlockBuilder& builder, Options options)
    : builder_(builder), options_(options), tag_(NextHostTag() << kTagShift) {}

rxt_ir_expr_t IRBuilderHost::Wrap(const Expr& e) {
  if (e == nullptr) return nullptr;
  auto [it, inserted] = handles_.emplace(e.get(), arena_.size() + 1);
  if (inserted) arena_.push_back(e);
  return reinterpret_cast<rxt_ir_expr_t>(tag_ | static_cast<uintptr_t>(it->second));
}

Expr IRBuilderHost::Unwrap(rxt_ir_expr_t handle) const {
  auto bits = reinterpret_cast<uintptr_t>(handle);
  uintptr_t index = bits & kIndexMask;
  if ((bits & ~kIndexMask) != tag_ || index == 0 || index > arena_.size()) return nullptr;
  return arena_[index - 1];
}

void IRBuilderHost::Fail(const std::string& message) {
  if (error_.empty()) error_ = message.empty() ? "failed (no message)" : message;
}

Var IRBuilderHost::Bind(const Expr& value, const std::string& name_hint) {
  if (options_.infer || options_.read_only) {
    Throw(ErrorCode::kFailedPrecondition, "this callback reads IR and cannot build it");
  }
  return options_.bind_outputs ? builder_.EmitOutput(value, name_hint) : builder_.Emit(value, name_hint);
}

const char* IRBuilderHost::Keep(std::string text) { return strings_.emplace_back(std::move(text)).c_str(); }
const int64_t* IRBuilderHost::Keep(std::vector<int64_t> values) {
  return int_lists_.emplace_back(std::move(values)).data();
}
const double* IRBuilderHost::Keep(std::vector<double> values) {
  return float_lists_.emplace_back(std::move(values)).data();
}

void IRBuilderHost::AddSymbols(const StructInfo& sinfo) {
  if (sinfo == nullptr) return;
  auto add_dims = [&](const std::optional<std::vector<PrimExpr>>& dims) {
    if (!dims) return;
    for (const PrimExpr& d : *dims) {
      if (const auto* v = d->As<PrimVarNode>()) symbols_.emplace(v->name, std::static_pointer_cast<const PrimVarNode>(d));
    }
  };
  if (const auto* t = sinfo->As<TensorSINode>()) add_dims(t->shape);
  if (const auto* s = sinfo->As<ShapeSINode>()) add_dims(s->values);
  if (const auto* tuple = sinfo->As<TupleSINode>()) {
    for (const StructInfo& f : tuple->fields) AddSymbols(f);
  }
}

StructInfo IRBuilderHost::ParseDeclared(const char* what, const std::string& name, const std::string& sinfo_text) {
  if (!IsGoodName(name)) {
    Throw(ErrorCode::kInvalidArgument, what, ": '", name, "' is not a valid name (empty, or with a control character)");
  }
  return ParseStructInfo(sinfo_text, &symbols_, StrCat("struct info of ", what, " '", name, "'"));
}

Var IRBuilderHost::AddParam(const std::string& name, const std::string& sinfo_text) {
  if (!options_.allow_params) {
    Throw(ErrorCode::kFailedPrecondition, "param: this callback may not declare parameters");
  }
  for (const Var& p : params_) {
    if (p->name == name) Throw(ErrorCode::kInvalidArgument, "param: '", name, "' is declared twice");
  }
  Var var = MakeVar(name, ParseDeclared("param", name, sinfo_text));
  params_.push_back(var);
  return var;
}

Var IRBuilderHost::AddState(const std::string& name, const std::string& sinfo_text, double init) {
  if (!options_.allow_states) {
    Throw(ErrorCode::kFailedPrecondition, "state: only optimizers declare state");
  }
  for (const State& s : states_) {
    if (s.name == name) Throw(ErrorCode::kInvalidArgument, "state: '", name, "' is declared twice");
  }
  StructInfo sinfo = ParseDeclared("state", name, sinfo_text);
  if (sinfo->As<TensorSINode>() == nullptr) {
    Throw(ErrorCode::kInvalidArgument, "state '", name, "' must be a tensor, got ", ToString(sinfo));
  }
  // Its value comes from the state tuple, bound when the function is assembled (in the block
  // being built, so a dataflow variable where the other values are).
  bool dataflow = builder_.InDataflowBlock() && !options_.bind_outputs;
  Var var = dataflow ? MakeDataflowVar(name, std::move(sinfo)) : MakeVar(name, std::move(sinfo));
  states_.push_back(State{name, var, init, nullptr});
  return var;
}

void IRBuilderHost::SetState(const Expr& state, const Expr& next) {
  if (!options_.allow_states) Throw(ErrorCode::kFailedPrecondition, "set_state: only optimizers have state");
  for (State& s : states_) {
    if (s.var != state) continue;
    const StructInfo& value = GetStructInfo(next);
    if (!IsBaseOf(s.var->struct_info, value, /*assume_unknown_equal=*/true)) {
      Throw(ErrorCode::kInvalidArgument, "set_state: state '", s.name, "' is ", ToString(s.var->struct_info),
            " but its next value is ", ToString(value));
    }
    s.next = next;
    return;
  }
  Throw(ErrorCode::kInvalidArgument, "set_state: the first argument is not a state declared with state()");
}

void IRBuilderHost::SetInferred(const std::string& sinfo_text) {
  if (!options_.infer) Throw(ErrorCode::kFailedPrecondition, "set_struct_info: only struct info inference sets one");
  StructInfo sinfo = ParseStructInfo(sinfo_text, &symbols_, "the inferred struct info");
  std::function<bool(const StructInfo&)> tensors = [&](const StructInfo& s) {
    if (s->As<TensorSINode>() != nullptr) return true;
    const auto* tuple = s->As<TupleSINode>();
    if (tuple == nullptr || tuple->fields.empty()) return false;
    for (const StructInfo& f : tuple->fields) {
      if (!tensors(f)) return false;
    }
    return true;
  };
  if (!tensors(sinfo)) {
    Throw(ErrorCode::kInvalidArgument, "set_struct_info: an op returns a tensor or a tuple of tensors, not ",
          ToString(sinfo));
  }
  inferred_ = std::move(sinfo);
}

}  // namespace rxt
