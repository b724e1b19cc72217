// The printer: kernel functions, their statements and scalar expressions.
#include "printer_impl.h"
#include "text_syntax.h"

namespace rxt::text {
namespace {

// Precedence of scalar-expression forms, loosest first; the parser's grammar mirrors it.
enum Precedence : int { kOr = 1, kAnd, kCompare, kAdd, kMul, kUnary, kAtom };

int BinaryPrecedence(BinaryOp op) {
  switch (op) {
    case BinaryOp::kOr: return kOr;
    case BinaryOp::kAnd: return kAnd;
    case BinaryOp::kAdd:
    case BinaryOp::kSub: return kAdd;
    case BinaryOp::kMul:
    case BinaryOp::kDiv: return kMul;
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod:
    case BinaryOp::kMin:
    case BinaryOp::kMax: return kAtom;  // written as calls
    default: return kCompare;
  }
}

std::string Wrap(const PrimText& operand, int min_precedence) {
  return operand.precedence >= min_precedence ? operand.text : "(" + operand.text + ")";
}

std::string JoinTexts(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

// A statement list as the parser reads it: a SeqStmt is its elements.
std::vector<Stmt> Items(const Stmt& stmt) {
  if (!stmt) return {};
  if (const auto* seq = stmt->As<SeqStmtNode>()) return seq->stmts;
  return {stmt};
}

}  // namespace

std::string TextPrinter::PrimVarName(const PrimVarNode* var) {
  if (const std::string* name = prim_vars_.Find(var)) return *name;
  if (standalone_) return var->name;
  // A symbolic variable: it belongs to the whole function from its first appearance.
  return prim_vars_.DefineOuter(var, var->name);
}

std::string TextPrinter::BufferName(const BufferNode* buffer) const {
  if (const std::string* name = buffers_.Find(buffer)) return *name;
  return standalone_ ? buffer->name : SanitizeName(buffer->name, true);
}

std::string TextPrinter::BufferDecl(const BufferNode& buffer) {
  std::string text = "Buffer(" + ShapeTuple(buffer.shape) + ", " + DTypeName(buffer.dtype);
  if (!buffer.strides.empty()) text += ", strides=" + ShapeTuple(buffer.strides);
  return text + ")";
}

PrimText TextPrinter::Prim(const PrimExpr& expr) {
  if (!expr) return {"<null>", kAtom};
  switch (expr->kind) {
    case PrimKind::kIntImm: {
      std::string text = FormatIntLiteral(expr->As<IntImmNode>()->value, expr->dtype);
      return {text, text[0] == '-' ? kUnary : kAtom};
    }
    case PrimKind::kFloatImm: {
      std::string text = FormatFloatLiteral(expr->As<FloatImmNode>()->value, expr->dtype);
      return {text, text[0] == '-' ? kUnary : kAtom};
    }
    case PrimKind::kVar: return {PrimVarName(expr->As<PrimVarNode>()), kAtom};
    case PrimKind::kBinary: {
      const auto* node = expr->As<BinaryNode>();
      const int precedence = BinaryPrecedence(node->op);
      if (precedence == kAtom) {
        return {std::string(BinaryOpName(node->op)) + "(" + PrimString(node->a) + ", " + PrimString(node->b) + ")",
                kAtom};
      }
      // Left-associative: a right operand of the same precedence needs parentheses.
      std::string lhs = Wrap(Prim(node->a), precedence);
      std::string rhs = Wrap(Prim(node->b), precedence + 1);
      return {lhs + " " + BinaryOpName(node->op) + " " + rhs, precedence};
    }
    case PrimKind::kNot: return {"!" + Wrap(Prim(expr->As<NotNode>()->value), kUnary), kUnary};
    case PrimKind::kSelect: {
      const auto* node = expr->As<SelectNode>();
      return {"select(" + PrimString(node->cond) + ", " + PrimString(node->if_true) + ", " +
                  PrimString(node->if_false) + ")",
              kAtom};
    }
    case PrimKind::kCast:
      return {std::string(DTypeName(expr->dtype)) + "(" + PrimString(expr->As<CastNode>()->value) + ")", kAtom};
    case PrimKind::kIntrinsic: {
      const auto* node = expr->As<IntrinsicNode>();
      std::vector<std::string> args;
      for (const auto& arg : node->args) args.push_back(PrimString(arg));
      return {node->name + "(" + JoinTexts(args) + ")", kAtom};
    }
    case PrimKind::kLoad: {
      const auto* node = expr->As<LoadNode>();
      std::vector<std::string> indices;
      for (const auto& index : node->indices) indices.push_back(PrimString(index));
      return {(node->buffer ? BufferName(node->buffer.get()) : "<null>") + "[" + JoinTexts(indices) + "]", kAtom};
    }
  }
  return {"<?>", kAtom};
}

void TextPrinter::Kernel(const std::string& name, const KernelFunctionNode& kernel) {
  prim_vars_ = Namer(true);
  buffers_ = Namer(true);
  std::vector<std::string> params;
  for (const KernelParam& param : kernel.params) {
    if (param.buffer) {
      std::string buffer_name = buffers_.Define(param.buffer.get(), param.buffer->name);
      params.push_back(buffer_name + ": " + BufferDecl(*param.buffer));
    } else if (param.scalar) {
      std::string scalar_name = prim_vars_.Define(param.scalar.get(), param.scalar->name);
      params.push_back(scalar_name + ": " + DTypeName(param.scalar->dtype));
    }
  }
  std::string tail = ")";
  if (!kernel.attrs.empty()) tail += " attributes " + AttrsBlock(kernel.attrs);
  Header("kernel " + GlobalName(name) + "(", params, tail + " {");
  ++indent_;
  StmtList(kernel.body);
  --indent_;
  Line("}");
}

void TextPrinter::StmtList(const rxt::Stmt& stmt) {
  buffers_.PushScope();
  std::vector<rxt::Stmt> items = Items(stmt);
  for (size_t i = 0; i < items.size();) {
    const auto* alloc = items[i] ? items[i]->As<AllocateNode>() : nullptr;
    if (alloc && alloc->buffer && i + 1 == items.size()) {
      // The flat form: the allocation's body is the rest of this list.
      const std::string& buffer_name = buffers_.Define(alloc->buffer.get(), alloc->buffer->name);
      Line("alloc " + buffer_name + ": " + BufferDecl(*alloc->buffer));
      items = Items(alloc->body);
      i = 0;
      continue;
    }
    Stmt(items[i]);
    ++i;
  }
  buffers_.PopScope();
}

void TextPrinter::Stmt(const rxt::Stmt& stmt) {
  if (!stmt) return;
  switch (stmt->kind) {
    case StmtKind::kSeq:  // a nested list keeps its shape as a bare { ... }
      Line("{");
      ++indent_;
      StmtList(stmt);
      --indent_;
      Line("}");
      return;
    case StmtKind::kFor: {
      const auto* node = stmt->As<ForNode>();
      std::string extent = PrimString(node->extent);
      prim_vars_.PushScope();
      std::string var = node->var ? prim_vars_.Define(node->var.get(), node->var->name) : "<null>";
      std::string kind = node->loop_kind == LoopKind::kSerial ? "" : std::string(" ") + LoopKindName(node->loop_kind);
      Line("for " + var + " in range(" + extent + ")" + kind + " {");
      ++indent_;
      StmtList(node->body);
      --indent_;
      prim_vars_.PopScope();
      Line("}");
      return;
    }
    case StmtKind::kStore: {
      const auto* node = stmt->As<StoreNode>();
      std::vector<std::string> indices;
      for (const auto& index : node->indices) indices.push_back(PrimString(index));
      std::string buffer = node->buffer ? BufferName(node->buffer.get()) : "<null>";
      Line(buffer + "[" + JoinTexts(indices) + "] = " + PrimString(node->value));
      return;
    }
    case StmtKind::kIf: {
      const auto* node = stmt->As<IfStmtNode>();
      Line("if " + PrimString(node->cond) + " {");
      ++indent_;
      StmtList(node->then_case);
      --indent_;
      if (node->else_case) {
        Line("} else {");
        ++indent_;
        StmtList(node->else_case);
        --indent_;
      }
      Line("}");
      return;
    }
    case StmtKind::kAllocate: {  // not last in its list: the braced form scopes the buffer
      const auto* node = stmt->As<AllocateNode>();
      if (!node->buffer) return;
      buffers_.PushScope();
      const std::string& buffer_name = buffers_.Define(node->buffer.get(), node->buffer->name);
      Line("alloc " + buffer_name + ": " + BufferDecl(*node->buffer) + " {");
      ++indent_;
      StmtList(node->body);
      --indent_;
      buffers_.PopScope();
      Line("}");
      return;
    }
    case StmtKind::kBlock: {
      const auto* node = stmt->As<BlockNode>();
      std::vector<std::string> values;
      for (const IterVar& iv : node->iter_vars) values.push_back(PrimString(iv.value));
      prim_vars_.PushScope();
      std::vector<std::string> iters;
      for (size_t i = 0; i < node->iter_vars.size(); ++i) {
        const IterVar& iv = node->iter_vars[i];
        std::string var = iv.var ? prim_vars_.Define(iv.var.get(), iv.var->name) : "<null>";
        iters.push_back((iv.kind == IterKind::kReduce ? "reduce " : "") + var + " = " + values[i]);
      }
      std::string name = IsBareName(node->name) ? node->name : QuoteString(node->name);
      Line("block " + name + "(" + JoinTexts(iters) + ") {");
      ++indent_;
      if (node->init) {
        Line("init {");
        ++indent_;
        StmtList(node->init);
        --indent_;
        Line("}");
      }
      StmtList(node->body);
      --indent_;
      prim_vars_.PopScope();
      Line("}");
      return;
    }
  }
}

}  // namespace rxt::text
