// The printer: modules and Relax functions. Kernels and scalar expressions are in
// print_kernel.cc, struct info, attributes and constants in print_value.cc.
#include "rxt/ir/printer.h"

#include <unordered_set>

#include "printer_impl.h"
#include "rxt/ir/op.h"
#include "rxt/support/message_text.h"
#include "text_syntax.h"

namespace rxt {
namespace text {
namespace {

constexpr size_t kMaxLineWidth = 100;

std::string Join(const std::vector<std::string>& parts, const char* separator = ", ") {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? separator : "") + parts[i];
  return out;
}

constexpr const char* kEllipsis = "\u2026";

struct NodePairHash {
  size_t operator()(const std::pair<const void*, const void*>& p) const {
    return std::hash<const void*>()(p.first) * 31 + std::hash<const void*>()(p.second);
  }
};
using NodePairs = std::unordered_set<std::pair<const void*, const void*>, NodePairHash>;

/// Whether |a| and |b| are the same struct info: the same kinds, dtypes and dims, variables
/// being the same nodes (unlike StructuralEqual, which pairs different ones). Conservative:
/// signatures and float values must be the very same nodes. |same| remembers the pairs of
/// tuples found the same (struct info is shared: a tuple may hold one sub-type twice).
bool SameStructInfo(const StructInfo& a, const StructInfo& b, NodePairs& same) {
  if (a == b) return true;
  if (a == nullptr || b == nullptr || a->kind != b->kind) return false;
  auto same_dims = [](const std::optional<std::vector<PrimExpr>>& x, const std::optional<std::vector<PrimExpr>>& y) {
    if (x.has_value() != y.has_value() || (x && x->size() != y->size())) return false;
    for (size_t i = 0; x && i < x->size(); ++i) {
      if (!IsInt((*x)[i]->dtype) || !ProvablyEqual((*x)[i], (*y)[i])) return false;
    }
    return true;
  };
  switch (a->kind) {
    case StructInfoKind::kObject: return true;
    case StructInfoKind::kPrim:
      return a->As<PrimSINode>()->dtype == b->As<PrimSINode>()->dtype &&
             a->As<PrimSINode>()->value == b->As<PrimSINode>()->value;
    case StructInfoKind::kShape:
      return a->As<ShapeSINode>()->ndim == b->As<ShapeSINode>()->ndim &&
             same_dims(a->As<ShapeSINode>()->values, b->As<ShapeSINode>()->values);
    case StructInfoKind::kTensor: {
      const auto* x = a->As<TensorSINode>();
      const auto* y = b->As<TensorSINode>();
      return x->dtype == y->dtype && x->ndim == y->ndim && same_dims(x->shape, y->shape);
    }
    case StructInfoKind::kTuple: {
      if (same.count({a.get(), b.get()})) return true;
      const auto& x = a->As<TupleSINode>()->fields;
      const auto& y = b->As<TupleSINode>()->fields;
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!SameStructInfo(x[i], y[i], same)) return false;
      }
      same.insert({a.get(), b.get()});
      return true;
    }
    case StructInfoKind::kFunc: return false;  // not the same node
  }
  return false;
}

}  // namespace

std::string TextPrinter::Bounded(std::string text) const {
  if (text.size() <= budget_) return text;
  size_t cut = budget_;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  text.resize(cut);
  return text + kEllipsis;
}

// ---- Namer

void Namer::PopScope() {
  RXT_CHECK(scopes_.size() > 1, "popping the outermost naming scope");
  for (const void* key : scopes_.back()) {
    auto it = names_.find(key);
    if (it == names_.end()) continue;
    if (--visible_[it->second] == 0) visible_.erase(it->second);
    names_.erase(it);
  }
  scopes_.pop_back();
  next_suffix_.clear();  // names are free again
}

const std::string* Namer::Find(const void* key) const {
  auto it = names_.find(key);
  return it == names_.end() ? nullptr : &it->second;
}

bool Namer::Taken(const std::string& name) const {
  return visible_.count(name) > 0 || (bare_ && IsReservedWord(name));
}

const std::string& Namer::DefineIn(size_t level, const void* key, std::string_view hint) {
  if (const std::string* existing = Find(key)) return *existing;
  // Relax variables keep their names verbatim (LocalName quotes what needs it); bare names
  // (kernel variables, symbolic dims) must read as identifiers.
  const std::string base = bare_ ? SanitizeName(hint, true) : hint.empty() ? std::string("v") : std::string(hint);
  std::string name = base;
  if (Taken(name)) {
    int& next = next_suffix_.try_emplace(base, 1).first->second;
    for (name = StrCat(base, "_", next); Taken(name); name = StrCat(base, "_", ++next)) {
    }
  }
  ++visible_[name];
  scopes_[level].push_back(key);
  return names_[key] = name;
}

// ---- Layout

void TextPrinter::Line(const std::string& text) {
  out_.append(static_cast<size_t>(indent_) * 2, ' ');
  out_ += text;
  out_ += '\n';
}

void TextPrinter::Header(const std::string& head, const std::vector<std::string>& params, const std::string& tail) {
  const size_t width = kMaxLineWidth - static_cast<size_t>(indent_) * 2;
  std::string one_line = head + Join(params) + tail;
  if (one_line.size() <= width) {
    Line(one_line);
    return;
  }
  // Fill lines up to the width, continuation lines aligned after the opening parenthesis;
  // what follows the closing parenthesis ("-> S {") moves to its own line if it must.
  const std::string rest = tail.substr(1);  // after the ')'
  const bool short_rest = rest.size() <= 2;  // " {" stays with the last parameter
  const std::string continuation(head.size(), ' ');
  std::string line = head;
  for (size_t i = 0; i < params.size(); ++i) {
    const bool last = i + 1 == params.size();
    std::string piece = params[i] + (last ? ")" + (short_rest ? rest : "") : ",");
    if (line.size() > head.size() && line.size() + 1 + piece.size() > width) {
      Line(line);
      line = continuation;
    } else if (line.size() > head.size()) {
      line += ' ';
    }
    line += piece;
  }
  if (params.empty()) line += ")" + (short_rest ? rest : "");
  if (short_rest || line.size() + rest.size() <= width) {
    Line(line + (short_rest ? "" : rest));
  } else {
    Line(line);
    Line("   " + rest);  // rest starts with a space: four in all
  }
}

std::string TextPrinter::GlobalName(const std::string& name) const {
  bool plain = !name.empty();
  for (char c : name) plain &= std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  return "@" + (plain ? name : QuoteString(name));
}

std::string TextPrinter::VarName(const VarNode* var) {
  if (const std::string* name = vars_.Find(var)) return LocalName(*name);
  // A standalone fragment, or a variable used out of scope. A message shows at most the
  // budget of a long name.
  return LocalName(std::string_view(var->name).substr(0, budget_));
}

// ---- Module and functions

std::string TextPrinter::Module(const IRModule& module) {
  std::vector<std::string> sections;
  if (!module.attrs.empty()) {
    Line("attributes " + AttrsBlock(module.attrs));
    sections.push_back(std::move(out_));
    out_.clear();
  }
  for (const auto& entry : module.entries()) {
    if (entry.function) {
      Function(entry.name, *entry.function);
    } else if (entry.kernel) {
      Kernel(entry.name, *entry.kernel);
    } else {
      continue;
    }
    sections.push_back(std::move(out_));
    out_.clear();
  }
  if (options_.print_metadata && !metadata_.empty()) sections.push_back(Metadata());
  return Join(sections, "\n");
}

void TextPrinter::Function(const std::string& name, const FunctionNode& function) {
  vars_ = Namer(false);
  prim_vars_ = Namer(true);
  std::vector<std::string> params;
  for (const Var& param : function.params) {
    std::string param_name = LocalName(vars_.Define(param.get(), param->name));
    params.push_back(param_name + ": " + SInfo(param->struct_info));
  }
  std::string tail = ") -> " + SInfo(function.ret_sinfo);
  if (!function.attrs.empty()) tail += " attributes " + AttrsBlock(function.attrs);
  if (!function.is_pure) tail += " impure";
  Header("def " + GlobalName(name) + "(", params, tail + " {");
  ++indent_;
  if (function.body) SeqBody(*function.body, "return");
  --indent_;
  Line("}");
}

void TextPrinter::SeqBody(const SeqExprNode& seq, const char* terminator) {
  for (const BindingBlock& block : seq.blocks) {
    if (!block.is_dataflow) {
      for (const rxt::Binding& binding : block.bindings) Binding(binding);
      continue;
    }
    Line("dataflow {");
    ++indent_;
    std::vector<std::string> outputs;
    for (const rxt::Binding& binding : block.bindings) {
      Binding(binding);
      if (binding.var && !binding.var->is_dataflow) outputs.push_back(VarName(binding.var.get()));
    }
    if (!outputs.empty()) Line("output " + Join(outputs));
    --indent_;
    Line("}");
  }
  Line(std::string(terminator) + " " + Expr(seq.body));
}

void TextPrinter::Binding(const rxt::Binding& binding) {
  if (!binding.var) return;
  std::string name = LocalName(vars_.Define(binding.var.get(), binding.var->name));
  if (AnnotationIsInferred(binding)) {
    Line(name + " = " + Expr(binding.value));
    return;
  }
  std::string sinfo = SInfo(binding.var->struct_info);
  std::string value = binding.is_match_cast()
                          ? "match_cast(" + Expr(binding.value) + ", " + SInfo(binding.match_sinfo) + ")"
                          : Expr(binding.value);
  Line(name + ": " + sinfo + " = " + value);
}

// A tuple type written out at each binding of a chain of tuples grows with the chain (and
// doubles per binding when a tuple holds the previous one twice), so it is left out where
// the parser gives it back: it infers the same struct info from these values.
bool TextPrinter::AnnotationIsInferred(const rxt::Binding& binding) {
  const StructInfo& sinfo = binding.var->struct_info;
  if (binding.is_match_cast() || !binding.value || !sinfo || sinfo->kind != StructInfoKind::kTuple) return false;
  NodePairs same;
  switch (binding.value->kind) {
    case ExprKind::kVar: return SameStructInfo(sinfo, binding.value->struct_info, same);
    case ExprKind::kTuple: {
      const auto& fields = binding.value->As<TupleNode>()->fields;
      const auto& types = sinfo->As<TupleSINode>()->fields;
      if (fields.size() != types.size()) return false;
      for (size_t i = 0; i < fields.size(); ++i) {
        if (!SameStructInfo(types[i], fields[i]->struct_info, same)) return false;
      }
      return true;
    }
    case ExprKind::kTupleGetItem: {
      const auto* item = binding.value->As<TupleGetItemNode>();
      const StructInfo& tuple = item->tuple->struct_info;
      const auto* fields = tuple ? tuple->As<TupleSINode>() : nullptr;
      return fields && item->index >= 0 && item->index < static_cast<int>(fields->fields.size()) &&
             SameStructInfo(sinfo, fields->fields[item->index], same);
    }
    default: return false;
  }
}

// ---- Expressions

std::string TextPrinter::Expr(const rxt::Expr& expr) {
  std::string text = ExprText(expr);
  if (budget_ != SIZE_MAX) printed_ += 2;  // at least the punctuation around it
  return text;
}

std::string TextPrinter::ExprText(const rxt::Expr& expr) {
  if (!expr) return "<null>";
  if (Exhausted()) return kEllipsis;
  switch (expr->kind) {
    case ExprKind::kVar: return Counted(VarName(expr->As<VarNode>()));
    case ExprKind::kConstant: return Counted(Constant(expr->As<ConstantNode>()->data));
    case ExprKind::kTuple: {
      std::vector<std::string> fields;
      for (const auto& field : expr->As<TupleNode>()->fields) {
        if (Exhausted()) {
          fields.push_back(kEllipsis);
          break;
        }
        fields.push_back(Expr(field));
      }
      return "(" + Join(fields) + (fields.size() == 1 ? ",)" : ")");
    }
    case ExprKind::kTupleGetItem: {
      const auto* item = expr->As<TupleGetItemNode>();
      return Expr(item->tuple) + "[" + std::to_string(item->index) + "]";
    }
    case ExprKind::kCall: return Call(*expr->As<CallNode>());
    case ExprKind::kShapeExpr: {
      std::vector<std::string> dims;
      for (const auto& dim : expr->As<ShapeExprNode>()->values) {
        if (Exhausted()) {
          dims.push_back(kEllipsis);
          break;
        }
        dims.push_back(Counted(PrimString(dim)));
      }
      return "shape(" + Join(dims) + ")";
    }
    case ExprKind::kPrimValue: return Counted("prim(" + PrimString(expr->As<PrimValueNode>()->value) + ")");
    case ExprKind::kStringImm: return Counted(StringText(expr->As<StringImmNode>()->value));
    case ExprKind::kIf:
      if (budget_ != SIZE_MAX) return "if " + Expr(expr->As<IfNode>()->cond) + " { " + kEllipsis + " }";
      return If(*expr->As<IfNode>());
    case ExprKind::kOp: return Counted(expr->As<OpNode>()->name());
    case ExprKind::kGlobalVar: return Counted(GlobalName(expr->As<GlobalVarNode>()->name));
    case ExprKind::kExternFunc: return Counted("extern(" + StringText(expr->As<ExternFuncNode>()->name) + ")");
  }
  return "<?>";
}

std::string TextPrinter::Counted(std::string text) {
  if (budget_ != SIZE_MAX) printed_ += text.size();
  return text;
}

std::string TextPrinter::StringText(const std::string& value) const {
  // A message quotes a long string through MessageText: bounded and printable.
  return budget_ == SIZE_MAX ? QuoteString(value) : "\"" + MessageText(value, budget_) + "\"";
}

std::string TextPrinter::Call(const CallNode& call) {
  std::string callee = Expr(call.callee);
  std::vector<std::string> args;
  auto exhausted = [&] {
    if (!Exhausted()) return false;
    args.push_back(kEllipsis);
    return true;
  };
  for (const auto& arg : call.args) {
    if (exhausted()) return callee + "(" + Join(args) + ")";
    args.push_back(Expr(arg));
  }
  // Every attribute, defaults included (what the call does is visible in the text, and an edit
  // of a dtype elsewhere cannot change what it reads back as), except one left unset at its
  // default (none, an unknown dtype), which says nothing.
  const OpDef* op = AsOp(call.callee);
  for (const auto& [key, value] : call.attrs.entries()) {
    const AttrSpec* spec = op ? op->FindAttr(key) : nullptr;
    bool unset = value.is_none() || (value.is<DType>() && value.get<DType>() == DType::kUnknown);
    if (spec && !spec->required && unset && spec->default_value == value) continue;
    if (exhausted()) return callee + "(" + Join(args) + ")";
    args.push_back(Counted((IsDottedName(key) ? key : StringText(key)) + "=" + AttrValueText(value)));
  }
  if (call.sinfo_args.size() == 1) {
    if (exhausted()) return callee + "(" + Join(args) + ")";
    args.push_back("out_sinfo=" + SInfo(call.sinfo_args[0]));
  } else if (!call.sinfo_args.empty()) {
    std::vector<std::string> outs;
    for (const auto& s : call.sinfo_args) {
      if (Exhausted()) {
        outs.push_back(kEllipsis);
        break;
      }
      outs.push_back(SInfo(s));
    }
    args.push_back("out_sinfo=[" + Join(outs) + "]");
  }
  return callee + "(" + Join(args) + ")";
}

// Multi-line: the first line continues the current one; the branches are indented one level.
std::string TextPrinter::If(const IfNode& node) {
  std::string saved = std::move(out_);
  out_.clear();
  std::string head = "if " + Expr(node.cond) + " {\n";
  ++indent_;
  if (node.then_branch) SeqBody(*node.then_branch, "yield");
  --indent_;
  Line("} else {");
  ++indent_;
  if (node.else_branch) SeqBody(*node.else_branch, "yield");
  --indent_;
  out_.append(static_cast<size_t>(indent_) * 2, ' ');
  out_ += "}";
  std::string text = head + out_;
  out_ = std::move(saved);
  return text;
}

}  // namespace text

// ---- Public entry points

std::string PrintModule(const IRModule& module, const PrintOptions& options) {
  return text::TextPrinter(options, false).Module(module);
}

std::string PrintFunction(const Function& function, const std::string& name, const PrintOptions& options) {
  if (!function) return "<null function>\n";
  text::TextPrinter printer(options, false);
  printer.Function(name, *function);
  std::string text = printer.Output();
  std::string metadata = printer.Metadata();
  if (options.print_metadata && !metadata.empty()) text += "\n" + metadata;
  return text;
}

std::string PrintKernel(const KernelFunction& kernel, const std::string& name, const PrintOptions& options) {
  if (!kernel) return "<null kernel>\n";
  text::TextPrinter printer(options, false);
  printer.Kernel(name, *kernel);
  return printer.Output();
}

std::string PrintExpr(const Expr& expr) {
  text::TextPrinter printer(PrintOptions{}, true);
  printer.SetBudget(kMaxMessageValueChars);
  return printer.Bounded(printer.Expr(expr));
}

std::string PrintAttrValue(const AttrValue& value) {
  return text::TextPrinter(PrintOptions{}, true).AttrValueText(value);
}

std::string ToString(const PrimExpr& expr) { return text::TextPrinter(PrintOptions{}, true).PrimString(expr); }

std::string PrintStructInfo(const StructInfo& sinfo) { return text::TextPrinter(PrintOptions{}, true).SInfo(sinfo); }

std::string ToString(const StructInfo& sinfo) {
  text::TextPrinter printer(PrintOptions{}, true);
  printer.SetBudget(kMaxMessageValueChars);
  return printer.Bounded(printer.SInfo(sinfo));
}

std::string ToString(const Stmt& stmt) {
  text::TextPrinter printer(PrintOptions{}, true);
  printer.StmtList(stmt);
  return printer.Output();
}

}  // namespace rxt
