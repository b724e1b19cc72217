// Ops defined by plugins: the checks of an rxt_op_t and the op attributes that call it.
#include "plugin_ops.h"

#include <cstring>

#include "rxt/ir/parser.h"
#include "rxt/plugin/ir_builder_host.h"
#include "rxt/plugin/plugin_host.h"
#include "rxt/support/c_status.h"
#include "rxt/transform/legalize/legalize.h"
#include "plugin_record.h"
#include "te_builder_host.h"

namespace rxt::plugin_detail {
namespace {

/// Op and attribute names the text format reads: letters, digits, '_' and '.', not starting
/// with a digit or a dot.
bool IsIdentifier(const std::string& name) {
  if (name.empty() || name[0] == '.' || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

/// The attribute kind a plugin gave, read as an int: in C++ an enum value outside the list is
/// undefined behaviour, and a plugin may pass any number.
std::optional<AttrKind> KindOf(const rxt_attr_kind_t& given) {
  int kind = 0;
  static_assert(sizeof(kind) == sizeof(given));
  std::memcpy(&kind, &given, sizeof kind);
  switch (kind) {
    case RXT_ATTR_BOOL: return AttrKind::kBool;
    case RXT_ATTR_INT: return AttrKind::kInt;
    case RXT_ATTR_FLOAT: return AttrKind::kFloat;
    case RXT_ATTR_STRING: return AttrKind::kString;
    case RXT_ATTR_DTYPE: return AttrKind::kDType;
    case RXT_ATTR_ARRAY: return AttrKind::kIntList;
    default: return std::nullopt;
  }
}

/// The op's schema (inputs and attributes, defaults parsed and checked) on |def|. Throws
/// kInvalidArgument naming the input or attribute at fault.
void DeclareSchema(OpDef& def, const rxt_op_t& op) {
  if (op.num_inputs < 0 || (op.num_inputs > 0 && op.inputs == nullptr)) {
    Throw(ErrorCode::kInvalidArgument, "lists ", op.num_inputs, " input(s) but no array");
  }
  for (int i = 0; i < op.num_inputs; ++i) {
    std::string name = op.inputs[i] != nullptr ? op.inputs[i] : "";
    if (!IsIdentifier(name)) Throw(ErrorCode::kInvalidArgument, "input ", i, " has no valid name");
    def.Input(name, "Tensor");
  }
  if (op.num_attrs < 0 || (op.num_attrs > 0 && op.attrs == nullptr)) {
    Throw(ErrorCode::kInvalidArgument, "lists ", op.num_attrs, " attribute(s) but no array");
  }
  for (int a = 0; a < op.num_attrs; ++a) {
    const rxt_op_attr_t& spec = op.attrs[a];
    std::string name = spec.name != nullptr ? spec.name : "";
    if (!IsIdentifier(name) || name.find('.') != std::string::npos) {
      Throw(ErrorCode::kInvalidArgument, "attribute ", a, " has no valid name");
    }
    if (def.FindAttr(name) != nullptr) Throw(ErrorCode::kInvalidArgument, "attribute '", name, "' is listed twice");
    std::optional<AttrKind> kind = KindOf(spec.kind);
    if (!kind) {
      int raw = 0;
      std::memcpy(&raw, &spec.kind, sizeof raw);
      Throw(ErrorCode::kInvalidArgument, "attribute '", name, "' has an unknown kind ", raw);
    }
    std::string doc = spec.doc != nullptr ? spec.doc : "";
    if (spec.default_value == nullptr) {
      def.RequiredAttr(name, *kind, doc);
      continue;
    }
    // The default, parsed and coerced to the kind as a call's attribute would be.
    OpDef probe("default");
    probe.Attr(name, *kind, AttrValue(), doc);
    std::string what = StrCat("the default of attribute '", name, "'");
    Attrs parsed = ParseAttrList(StrCat(name, "=", spec.default_value), what);
    def.Attr(name, *kind, *probe.CompleteAttrs(parsed).Find(name), doc);
  }
}

/// The op's own description of a failure, freed: the status's message, else the builder's.
std::string FailureOf(rxt_status_t status, const std::string& builder_error) {
  CStatusPtr owned(status);
  if (!builder_error.empty()) return builder_error;
  if (owned != nullptr) return owned->message.empty() ? "failed without a message" : owned->message;
  return "";
}

/// A borrowed handle on |call| for the callback's duration (the caller owns the node).
Expr Borrow(const CallNode& call) { return Expr(Expr(), &call); }

FInferStructInfo InferenceOf(const rxt_op_t& op, const std::string& plugin, std::shared_ptr<const void> keep_alive) {
  return [&op, plugin, keep_alive](const CallNode& call) -> StructInfo {
    const OpDef& def = *AsOp(call.callee);
    if (call.args.size() != def.inputs().size()) {
      OpError(call, StrCat("takes ", def.inputs().size(), " argument(s), got ", call.args.size()));
    }
    for (size_t i = 0; i < call.args.size(); ++i) {
      const StructInfo& s = call.args[i]->struct_info;
      if (s == nullptr || s->As<TensorSINode>() == nullptr) OpError(call, StrCat(DescribeArg(call, i), " must be a tensor"));
    }
    BlockBuilder scratch;
    IRBuilderHost host(scratch, {.infer = true});
    for (const Expr& arg : call.args) host.AddSymbols(arg->struct_info);
    rxt_status_t status = nullptr;
    try {
      status = op.infer_struct_info(op.state, IRBuilderHost::Api(), host.handle(), host.Wrap(Borrow(call)));
    } catch (...) {
      OpError(call, StrCat("infer_struct_info of plugin '", plugin, "' threw an exception (plugins must not)"));
    }
    std::string failure = FailureOf(status, host.error());
    if (!failure.empty()) OpError(call, failure);
    if (host.inferred() == nullptr) OpError(call, StrCat("plugin '", plugin, "' inferred no struct info (set_struct_info)"));
    return host.inferred();
  };
}

FLegalize LegalizationOf(const rxt_op_t& op, const std::string& plugin, std::shared_ptr<const void> keep_alive) {
  return [&op, plugin, keep_alive](LegalizeContext& context, const CallNode& call) -> Expr {
    TEBuilderHost te(call);
    IRBuilderHost ir(context.builder(), {.read_only = true});
    rxt_status_t status = nullptr;
    try {
      status = op.legalize(op.state, TEBuilderHost::Api(), te.handle(), IRBuilderHost::Api(), ir.handle(),
                           ir.Wrap(Borrow(call)));
    } catch (...) {
      Throw(ErrorCode::kInternal, op.name, ": legalize of plugin '", plugin, "' threw an exception (plugins must not)");
    }
    std::string failure = FailureOf(status, !te.error().empty() ? te.error() : ir.error());
    if (!failure.empty()) Throw(ErrorCode::kInvalidArgument, op.name, " (plugin '", plugin, "'): legalize: ", failure);
    try {
      return te.Finish(context);
    } catch (const Error& e) {
      Throw(e.code(), op.name, " (plugin '", plugin, "'): legalize: ", e.what());
    }
  };
}

}  // namespace

std::string CheckPluginOp(const rxt_op_t& op, const std::string& plugin, bool* reuse) {
  *reuse = false;
  std::string name = op.name;
  if (!IsIdentifier(name)) return StrCat("op '", name, "' is not a name the text format reads (letters, digits, '_', '.')");
  if (op.infer_struct_info == nullptr) return StrCat("registers op '", name, "' without infer_struct_info");
  if (op.legalize == nullptr) return StrCat("registers op '", name, "' without legalize");
  try {
    OpDef probe(name);
    DeclareSchema(probe, op);
  } catch (const Error& e) {
    return StrCat("op '", name, "': ", e.what());
  }
  if (const OpDef* existing = OpRegistry::Global().Find(name)) {
    const FPluginOp* owner = existing->Get<FPluginOp>();
    if (owner == nullptr) return StrCat("op '", name, "' is already defined by the core");
    if (owner->plugin != plugin) return StrCat("op '", name, "' is already defined by plugin '", owner->plugin, "'");
    *reuse = true;
  }
  return "";
}

namespace {

void DefinePluginOp(OpRegistry& registry, const rxt_op_t& op, const std::string& plugin,
                    std::shared_ptr<const void> keep_alive) {
  OpDef& def = registry.Def(op.name);
  def.Describe(op.summary != nullptr ? op.summary : "");
  DeclareSchema(def, op);
  def.Set<FInferStructInfo>(InferenceOf(op, plugin, keep_alive));
  def.Set<FLegalize>(LegalizationOf(op, plugin, keep_alive));
  def.Set<FPluginOp>(FPluginOp{plugin});
}

}  // namespace

void DefinePluginOps(PluginRecord& record, const std::shared_ptr<const void>& keep_alive) {
  std::vector<const rxt_op_t*> ops;
  for (const PluginRecord::StagedItem& staged : record.staged) {
    if (staged.item.kind == PluginItemKind::kOp) ops.push_back(staged.item.op);
  }
  if (ops.empty()) return;
  OpRegistry::Global().Extend([&](OpRegistry& registry) {
    for (const rxt_op_t* op : ops) {
      bool reuse = false;
      std::string problem = CheckPluginOp(*op, record.info.name, &reuse);
      if (!problem.empty()) Throw(ErrorCode::kAlreadyExists, "plugin ", record.info.path, ": ", problem);
    }
    for (const rxt_op_t* op : ops) {
      if (registry.Find(op->name) == nullptr) DefinePluginOp(registry, *op, record.info.name, keep_alive);
    }
  });
}

}  // namespace rxt::plugin_detail
