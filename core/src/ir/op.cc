#include "rxt/ir/op.h"

#include <algorithm>
#include <mutex>

#include "rxt/ir/module.h"
#include "rxt/support/message_text.h"

namespace rxt {
namespace {

// Converts |value| to the schema's kind where the conversion is lossless and obvious
// (an int where a float is expected, one int where a list is expected, a dtype name).
std::optional<AttrValue> Coerce(const AttrValue& value, AttrKind kind) {
  switch (kind) {
    case AttrKind::kBool:
      if (value.is<bool>()) return value;
      break;
    case AttrKind::kInt:
      if (value.is<int64_t>()) return value;
      break;
    case AttrKind::kFloat:
      if (value.is<double>()) return value;
      if (value.is<int64_t>()) return AttrValue(static_cast<double>(value.get<int64_t>()));
      break;
    case AttrKind::kString:
      if (value.is<std::string>()) return value;
      break;
    case AttrKind::kDType:
      if (value.is<DType>()) return value;
      if (value.is<std::string>()) {
        if (auto t = ParseDType(value.get<std::string>())) return AttrValue(*t);
      }
      break;
    case AttrKind::kOptionalInt:
      if (value.is_none() || value.is<int64_t>()) return value;
      break;
    case AttrKind::kOptionalIntList:
      if (value.is_none()) return value;
      [[fallthrough]];
    case AttrKind::kIntList:
      if (value.is<int64_t>()) return AttrValue::IntList({value.get<int64_t>()});
      if (value.AsIntList()) return value;
      break;
  }
  return std::nullopt;
}

}  // namespace

const char* AttrKindName(AttrKind k) {
  switch (k) {
    case AttrKind::kBool: return "bool";
    case AttrKind::kInt: return "int";
    case AttrKind::kFloat: return "float";
    case AttrKind::kString: return "string";
    case AttrKind::kDType: return "dtype";
    case AttrKind::kIntList: return "int list";
    case AttrKind::kOptionalInt: return "int or none";
    case AttrKind::kOptionalIntList: return "int list or none";
  }
  return "?";
}

OpDef& OpDef::Input(std::string name, std::string type) {
  RXT_CHECK(inputs_.empty() || !inputs_.back().optional, "op ", name_, ": input ", name, " follows an optional one");
  inputs_.push_back({std::move(name), std::move(type)});
  return *this;
}

OpDef& OpDef::OptionalInput(std::string name, std::string type) {
  inputs_.push_back({std::move(name), std::move(type), true});
  return *this;
}

OpDef& OpDef::Attr(std::string name, AttrKind kind, AttrValue default_value, std::string doc) {
  attrs_.push_back({std::move(name), kind, std::move(default_value), false, std::move(doc)});
  return *this;
}

OpDef& OpDef::RequiredAttr(std::string name, AttrKind kind, std::string doc) {
  attrs_.push_back({std::move(name), kind, AttrValue(), true, std::move(doc)});
  return *this;
}

const AttrSpec* OpDef::FindAttr(const std::string& name) const {
  for (const auto& spec : attrs_) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

Attrs OpDef::CompleteAttrs(const Attrs& attrs) const {
  for (const auto& [key, value] : attrs.entries()) {
    if (FindAttr(key) == nullptr) {
      std::string known;
      for (const auto& spec : attrs_) known += (known.empty() ? "" : ", ") + spec.name;
      Throw(ErrorCode::kInvalidArgument, name_, ": unknown attribute '", key, "'",
            known.empty() ? std::string(" (it takes no attributes)") : StrCat(" (known: ", known, ")"));
    }
  }
  Attrs complete;
  for (const auto& spec : attrs_) {
    const AttrValue* given = attrs.Find(spec.name);
    if (given == nullptr) {
      if (spec.required) Throw(ErrorCode::kInvalidArgument, name_, ": missing required attribute '", spec.name, "'");
      complete.Set(spec.name, spec.default_value);
      continue;
    }
    std::optional<AttrValue> coerced = Coerce(*given, spec.kind);
    if (!coerced) {
      Throw(ErrorCode::kInvalidArgument, name_, ": attribute '", spec.name, "' must be ", AttrKindName(spec.kind),
            ", got ", given->KindName());
    }
    complete.Set(spec.name, std::move(*coerced));
  }
  return complete;
}

namespace {
// The registry whose Extend runs on this thread: its reads must not wait for its own lock.
thread_local const OpRegistry* extending = nullptr;
}  // namespace

bool OpRegistry::WriterIsThisThread() const { return extending == this; }

void OpRegistry::CheckWritable(const std::string& what) const {
  if (frozen_ && !WriterIsThisThread()) {
    Throw(ErrorCode::kFailedPrecondition, what,
          ": the op registry is frozen after start-up; only plugin loading (OpRegistry::Extend) changes it");
  }
}

void OpRegistry::Freeze() {
  std::unique_lock lock(mutex_, std::defer_lock);
  if (!WriterIsThisThread()) lock.lock();
  frozen_ = true;
}

bool OpRegistry::frozen() const {
  auto lock = ReadLock();
  return frozen_;
}

void OpRegistry::Extend(const std::function<void(OpRegistry&)>& change) {
  RXT_CHECK(!WriterIsThisThread(), "OpRegistry::Extend is not reentrant");
  std::unique_lock lock(mutex_);
  extending = this;
  struct Reset {
    ~Reset() { extending = nullptr; }
  } reset;
  change(*this);
}

std::shared_lock<std::shared_mutex> OpRegistry::ReadLock() const {
  std::shared_lock lock(mutex_, std::defer_lock);
  if (!WriterIsThisThread()) lock.lock();  // the thread inside Extend holds it already
  return lock;
}

void OpDef::SetSlot(std::type_index type, std::any value) {
  if (registry_ != nullptr && registry_->frozen_) {
    registry_->CheckWritable("op '" + name_ + "'");
    // Once frozen, attributes are only added: pointers readers hold stay valid.
    if (slots_.count(type)) {
      Throw(ErrorCode::kAlreadyExists, "op '", name_, "' already has this attribute; a frozen registry never replaces one");
    }
  }
  slots_[type] = std::move(value);
}

const std::any* OpDef::FindSlot(std::type_index type) const {
  if (registry_ == nullptr) {
    auto it = slots_.find(type);
    return it == slots_.end() ? nullptr : &it->second;
  }
  auto lock = registry_->ReadLock();
  auto it = slots_.find(type);
  return it == slots_.end() ? nullptr : &it->second;
}

void OpDef::SetOwnedSlot(std::type_index type, const void* owner, std::any value) {
  if (registry_ != nullptr) registry_->CheckWritable("op '" + name_ + "'");
  if (value.has_value()) {
    owned_slots_[{type, owner}] = std::move(value);
  } else {
    owned_slots_.erase({type, owner});
  }
}

std::any OpDef::FindOwnedSlot(std::type_index type, const void* owner) const {
  if (registry_ == nullptr) {
    auto it = owned_slots_.find({type, owner});
    return it == owned_slots_.end() ? std::any() : it->second;
  }
  auto lock = registry_->ReadLock();
  auto it = owned_slots_.find({type, owner});
  return it == owned_slots_.end() ? std::any() : it->second;
}

OpDef& OpRegistry::Def(const std::string& name) {
  CheckWritable("declaring op '" + name + "'");
  if (ops_.count(name)) Throw(ErrorCode::kAlreadyExists, "op '", name, "' is already registered");
  auto def = std::make_unique<OpDef>(name);
  def->registry_ = this;
  def->expr_ = std::make_shared<OpNode>(def.get());
  OpDef& ref = *def;
  ops_[name] = std::move(def);
  return ref;
}

const OpDef* OpRegistry::Find(const std::string& name) const {
  auto lock = ReadLock();
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : it->second.get();
}

OpDef* OpRegistry::FindMutable(const std::string& name) {
  CheckWritable("changing op '" + name + "'");
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : it->second.get();
}

const OpDef& OpRegistry::Get(const std::string& name) const {
  if (const OpDef* op = Find(name)) return *op;
  std::vector<std::string> names;
  for (const OpDef* def : List()) names.push_back(def->name());
  std::string best = ClosestName(name, names);
  // Without a close core op, the likely cause is a plugin's op whose plugin is not loaded.
  Throw(ErrorCode::kNotFound, "unknown op '", name, "'",
        best.empty() ? " (if a plugin defines it, load that plugin first)" : StrCat("; did you mean '", best, "'?"));
}

std::vector<const OpDef*> OpRegistry::List() const {
  auto lock = ReadLock();
  std::vector<const OpDef*> out;
  for (const auto& [name, def] : ops_) out.push_back(def.get());
  return out;
}

const Expr& GetOp(const std::string& name) { return OpRegistry::Global().Get(name).AsExpr(); }

Expr MakeOpCall(const std::string& op, std::vector<Expr> args, Attrs attrs, std::vector<StructInfo> sinfo_args,
                Span span) {
  const OpDef& def = OpRegistry::Global().Get(op);
  return MakeCall(def.AsExpr(), std::move(args), def.CompleteAttrs(attrs), std::move(sinfo_args), std::move(span));
}

const OpDef* AsOp(const Expr& callee) {
  const auto* op = callee ? callee->As<OpNode>() : nullptr;
  return op ? op->def : nullptr;
}

const std::vector<Expr>& IRCallArgs(const CallNode& call) {
  const OpDef* op = AsOp(call.callee);
  if (op != nullptr && (op->name() == "call_kernel" || op->name() == "call_extern") && call.args.size() == 2) {
    if (const auto* tuple = call.args[1]->As<TupleNode>()) return tuple->fields;
  }
  return call.args;
}

void OpError(const CallNode& call, const std::string& message) {
  const OpDef* op = AsOp(call.callee);
  std::string name = op ? op->name() : std::string("call");
  std::string where = call.span.known() ? call.span.ToString() + ": " : std::string();
  Throw(ErrorCode::kInvalidArgument, where, name, ": ", message);
}

std::string DescribeArg(const CallNode& call, int index) {
  const OpDef* op = AsOp(call.callee);
  std::string arg_name = StrCat("argument ", index);
  if (op && index < static_cast<int>(op->inputs().size())) arg_name = op->inputs()[index].name;
  if (index < 0 || index >= static_cast<int>(call.args.size())) return arg_name;
  const Expr& arg = call.args[index];
  std::string sinfo = arg->struct_info ? ToString(arg->struct_info) : std::string("?");
  if (const auto* var = arg->As<VarNode>()) return StrCat(arg_name, " %", var->name, ": ", sinfo);
  return StrCat(arg_name, " ", sinfo);
}

}  // namespace rxt
