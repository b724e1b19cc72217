// The parser: Relax function bodies and expressions. Every binding goes through the
// BlockBuilder, which infers its struct info; annotations are checked against it.
#include <algorithm>

#include "parser_impl.h"
#include "text_syntax.h"

namespace rxt::text {

Expr Parser::Normalize(const Expr& expr, const Token& at) {
  try {
    return builder_->Normalize(expr);
  } catch (const Error& e) {
    Reposition(e, at);
  }
}

// The names a dataflow block lists in its `output` clause (which comes last), so that their
// bindings are made non-dataflow variables as they are parsed.
std::unordered_set<std::string> Parser::ScanOutputs(size_t open) const {
  std::unordered_set<std::string> outputs;
  int depth = 0;
  for (size_t i = open; i < tokens_.size(); ++i) {
    const Token& token = tokens_[i];
    if (token.Is("(") || token.Is("[") || token.Is("{")) ++depth;
    if ((token.Is(")") || token.Is("]") || token.Is("}")) && --depth == 0) break;
    if (depth != 1 || !token.Is("output")) continue;
    for (size_t j = i + 1; j < tokens_.size() && tokens_[j].kind == TokenKind::kLocal; j += 2) {
      outputs.insert(tokens_[j].value);
      if (j + 1 >= tokens_.size() || !tokens_[j + 1].Is(",")) break;
    }
  }
  return outputs;
}

// blocks... (return|yield) expr
SeqExpr Parser::ParseSeq(const char* terminator) {
  DepthGuard guard(*this);
  vars_.Push();
  std::vector<BindingBlock> blocks;
  for (;;) {
    const Token& token = Peek();
    if (token.Is("dataflow") && Peek(1).Is("{")) {
      blocks.push_back(ParseDataflowBlock());
    } else if (token.kind == TokenKind::kLocal) {
      builder_->BeginBindingBlock();
      while (Peek().kind == TokenKind::kLocal) ParseBinding(nullptr);
      blocks.push_back(builder_->EndBlock());
    } else if (token.Is(terminator)) {
      break;
    } else {
      FailExpected(StrCat("a binding, 'dataflow' or '", terminator, "'"));
    }
  }
  Next();
  builder_->BeginBindingBlock();
  const Token& at = Peek();
  Expr body = Normalize(ParseExpr(), at);
  BindingBlock extra = builder_->EndBlock();  // bindings of nested sub-expressions
  if (!extra.bindings.empty()) {
    if (!blocks.empty() && !blocks.back().is_dataflow) {
      for (auto& binding : extra.bindings) blocks.back().bindings.push_back(std::move(binding));
    } else {
      blocks.push_back(std::move(extra));
    }
  }
  vars_.Pop();
  return MakeSeqFromBlocks(std::move(blocks), body);
}

// dataflow { bindings... output %a, %b }
BindingBlock Parser::ParseDataflowBlock() {
  Next();
  const size_t open = pos_;
  Expect("{");
  const std::unordered_set<std::string> outputs = ScanOutputs(open);
  builder_->BeginDataflowBlock();
  vars_.Push();
  while (Peek().kind == TokenKind::kLocal) ParseBinding(&outputs);
  if (Accept("output")) {
    std::unordered_set<std::string> listed;
    do {
      const Token& name = ExpectKind(TokenKind::kLocal, "an output variable");
      const auto it = vars_.Top().find(name.value);
      if (it == vars_.Top().end()) Fail(name, StrCat("output %", name.value, " is not bound in this dataflow block"));
      if (!listed.insert(name.value).second) Fail(name, StrCat("output %", name.value, " is listed twice"));
    } while (Accept(","));
  }
  if (!Peek().Is("}")) FailExpected(Peek().Is("output") ? "'}'" : "a binding, 'output' or '}'");
  Next();
  BindingBlock block = builder_->EndBlock();
  // Dataflow variables end with their block; outputs stay visible.
  std::vector<std::pair<std::string, Var>> kept;
  for (const auto& [name, var] : vars_.Top()) {
    if (var->is_dataflow) {
      ended_dataflow_[name] = var->span;
    } else {
      kept.emplace_back(name, var);
    }
  }
  vars_.Pop();
  for (auto& [name, var] : kept) vars_.Define(name, std::move(var));
  return block;
}

// %v[: S] = value | %v[: S] = match_cast(value, S)
void Parser::ParseBinding(const std::unordered_set<std::string>* outputs) {
  const Token& name = Next();
  if (const Var* existing = vars_.Find(name.value)) {
    const Span& first = (*existing)->span;
    Fail(name, StrCat("redefinition of %", name.value,
                      first.known() ? StrCat(" (first defined at ", first.line, ":", first.column, ")") : ""));
  }
  StructInfo annotation;
  const Token* annotation_token = nullptr;
  if (Accept(":")) {
    annotation_token = &Peek();
    annotation = ParseStructInfo();
  }
  Expect("=");
  const bool dataflow = builder_->InDataflowBlock() && !(outputs && outputs->count(name.value));
  const Token& value_token = Peek();
  Binding binding;
  if (value_token.Is("match_cast") && Peek(1).Is("(")) {
    Next();
    Next();
    const Token& at = Peek();
    Expr value = Normalize(ParseExpr(), at);
    Expect(",");
    const Token& target_token = Peek();
    StructInfo target = ParseStructInfo();
    Expect(")");
    const StructInfo& from = GetStructInfo(value);
    // A cast may refine (Tensor(ndim=2) -> Tensor((n, 4))) but never change kind or dtype.
    if (!IsBaseOf(from, target, true) && !IsBaseOf(target, from, true)) {
      Fail(target_token, StrCat("type error: match_cast of a value of ", ToString(from), " can never give ",
                                ToString(target)));
    }
    if (annotation && !IsBaseOf(annotation, target, true)) {
      Fail(*annotation_token, StrCat("type error: %", name.value, " is annotated ", ToString(annotation),
                                     " but match_cast gives ", ToString(target)));
    }
    binding.value = value;
    binding.match_sinfo = target;
    annotation = annotation ? annotation : target;
  } else {
    binding.value = Normalize(ParseExpr(), value_token);
    const StructInfo& inferred = GetStructInfo(binding.value);
    if (annotation && !IsBaseOf(annotation, inferred, true)) {
      Fail(*annotation_token, StrCat("type error: %", name.value, " is annotated ", ToString(annotation),
                                     " but its value is ", ToString(inferred)));
    }
    if (!annotation) annotation = inferred;
  }
  binding.var = dataflow ? MakeDataflowVar(name.value, annotation, SpanOf(name))
                         : MakeVar(name.value, annotation, SpanOf(name));
  vars_.Define(name.value, binding.var);
  builder_->AddBinding(std::move(binding));
}

// ---- Expressions

Expr Parser::ParseExpr() {
  DepthGuard guard(*this);
  ChainGuard chain(*this);
  Expr expr = ParseExprAtom();
  while (Peek().Is("[")) {
    const Token& open = Next();
    chain.Extend(open);
    const int index = static_cast<int>(ParseIndex("a tuple index", INT32_MAX));
    Expect("]");
    expr = MakeTupleGetItem(expr, index, SpanOf(open));
  }
  return expr;
}

Expr Parser::ParseExprAtom() {
  const Token& token = Peek();
  switch (token.kind) {
    case TokenKind::kLocal: {
      Next();
      if (const Var* var = vars_.Find(token.value)) return *var;
      if (ended_dataflow_.count(token.value)) {
        Fail(token, StrCat("%", token.value, " is a dataflow variable of a block that has ended; list it in the "
                           "block's output to use it outside"));
      }
      Fail(token, StrCat("undefined variable %", token.value));
    }
    case TokenKind::kGlobal: {
      Next();
      if (!module_.Contains(token.value)) {
        std::vector<std::string> names;
        for (const auto& entry : module_.entries()) names.push_back(entry.name);
        Fail(token, StrCat("undefined function @", token.value, SuggestName(token.value, names, "@")));
      }
      Expr global = MakeGlobalVar(token.value, SpanOf(token));
      return Peek().Is("(") ? ParseCall(global, token) : global;
    }
    case TokenKind::kString: Next(); return MakeStringImm(token.value, SpanOf(token));
    case TokenKind::kNumber:
      Fail(token, StrCat("expected an expression but found ", Describe(token),
                         " (write prim(...) for a scalar or const(..., dtype) for a tensor)"));
    case TokenKind::kPunct:
      if (token.Is("(")) return ParseTupleExpr();
      FailExpected("an expression");
    case TokenKind::kEnd: FailExpected("an expression");
    case TokenKind::kIdent: break;
  }
  if (token.Is("if")) return ParseIf();
  if (token.Is("const") && Peek(1).Is("(")) return MakeConstant(ParseInlineConstant(), SpanOf(token));
  if (token.Is("meta") && Peek(1).Is("[")) return MakeConstant(ParseMetaReference(), SpanOf(token));
  if (token.Is("shape") && Peek(1).Is("(")) {
    Next();
    Next();
    std::vector<PrimExpr> dims;
    while (!Peek().Is(")")) {
      const Token& at = Peek();
      dims.push_back(ParsePrimExpr());
      if (!IsInt(dims.back()->dtype)) {
        Fail(at, StrCat("expected an integer dimension but found one of type ", DTypeName(dims.back()->dtype)));
      }
      if (!Accept(",")) break;
    }
    Expect(")");
    return MakeShapeExpr(std::move(dims), SpanOf(token));
  }
  if (token.Is("prim") && Peek(1).Is("(")) {
    Next();
    Next();
    PrimExpr value = ParsePrimExpr();
    Expect(")");
    return MakePrimValue(value, SpanOf(token));
  }
  if (token.Is("extern") && Peek(1).Is("(")) {
    Next();
    Next();
    const Token& name = ExpectKind(TokenKind::kString, "the name of an external function");
    Expect(")");
    Expr callee = MakeExternFunc(name.value, SpanOf(token));
    return Peek().Is("(") ? ParseCall(callee, token) : callee;
  }
  if (token.Is("match_cast")) Fail(token, "match_cast is only allowed as the value of a binding");
  if (!Peek(1).Is("(")) FailExpected("an expression");
  // An op call.
  const OpDef* op = OpRegistry::Global().Find(std::string(token.text));
  if (op == nullptr) {
    try {
      OpRegistry::Global().Get(std::string(token.text));  // throws with a "did you mean" hint
    } catch (const Error& e) {
      Fail(token, e.what());
    }
  }
  Next();
  return ParseCall(op->AsExpr(), token);
}

// () | (e) | (e,) | (e1, e2, ...)
Expr Parser::ParseTupleExpr() {
  const Token& open = Next();
  std::vector<Expr> fields;
  if (Accept(")")) return MakeTuple({}, SpanOf(open));
  fields.push_back(ParseExpr());
  if (Accept(")")) return fields[0];  // parentheses around one expression
  Expect(",");
  while (!Peek().Is(")")) {
    fields.push_back(ParseExpr());
    if (!Accept(",")) break;
  }
  Expect(")");
  return MakeTuple(std::move(fields), SpanOf(open));
}

// callee(args..., name=value..., out_sinfo=S | out_sinfo=[S, ...])
Expr Parser::ParseCall(Expr callee, const Token& callee_token) {
  Expect("(");
  std::vector<Expr> args;
  Attrs attrs;
  std::map<std::string, const Token*> attr_tokens;  // name -> its value's first token
  std::vector<StructInfo> sinfo_args;
  bool seen_keyword = false, seen_sinfo = false;
  while (!Peek().Is(")")) {
    const Token& token = Peek();
    if ((token.kind == TokenKind::kIdent || token.kind == TokenKind::kString) && Peek(1).Is("=")) {
      const std::string key = token.kind == TokenKind::kString ? token.value : std::string(token.text);
      Next();
      Next();
      seen_keyword = true;
      if (key == "out_sinfo") {
        if (seen_sinfo) Fail(token, "duplicate out_sinfo");
        seen_sinfo = true;
        if (Accept("[")) {
          while (!Peek().Is("]")) {
            sinfo_args.push_back(ParseStructInfo());
            if (!Accept(",")) break;
          }
          Expect("]");
        } else {
          sinfo_args.push_back(ParseStructInfo());
        }
      } else {
        if (attrs.Find(key)) Fail(token, StrCat("duplicate attribute '", key, "'"));
        attr_tokens[key] = &Peek();
        attrs.Set(key, ParseAttrValue());
      }
    } else {
      if (seen_keyword) Fail(token, "positional argument after keyword arguments");
      args.push_back(ParseExpr());
    }
    if (!Accept(",")) break;
  }
  Expect(")");
  if (const OpDef* op = AsOp(callee)) {
    for (const auto& [key, value_token] : attr_tokens) {
      if (op->FindAttr(key)) continue;
      const Token& key_token = tokens_[static_cast<size_t>(value_token - tokens_.data()) - 2];
      Fail(key_token, UnknownAttributeMessage(*op, key));
    }
    try {
      attrs = op->CompleteAttrs(attrs);
    } catch (const Error& e) {
      // Point at the attribute the message names, if any.
      const std::string message = e.what();
      for (const auto& [key, value_token] : attr_tokens) {
        if (message.find("'" + key + "'") != std::string::npos) Fail(*value_token, message);
      }
      Fail(callee_token, message);
    }
  }
  return MakeCall(std::move(callee), std::move(args), std::move(attrs), std::move(sinfo_args), SpanOf(callee_token));
}

// if cond { ... yield e } else { ... yield e }
Expr Parser::ParseIf() {
  const Token& if_token = Next();
  const Token& cond_token = Peek();
  Expr cond = Normalize(ParseExpr(), cond_token);
  Expect("{");
  SeqExpr then_branch = ParseSeq("yield");
  Expect("}");
  Expect("else");
  Expect("{");
  SeqExpr else_branch = ParseSeq("yield");
  Expect("}");
  return MakeIf(cond, then_branch, else_branch, SpanOf(if_token));
}

}  // namespace rxt::text
