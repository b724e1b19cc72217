// The parser: scalar expressions, in shapes (`n * 2`), prim values and kernel bodies.
// Precedence, loosest first: || && comparisons + - * / unary(- !) atoms.
#include <cmath>
#include <limits>

#include "parser_impl.h"
#include "text_syntax.h"

namespace rxt::text {
namespace {

std::optional<BinaryOp> CompareOp(const Token& t) {
  if (t.kind != TokenKind::kPunct) return std::nullopt;
  if (t.text == "==") return BinaryOp::kEq;
  if (t.text == "!=") return BinaryOp::kNe;
  if (t.text == "<") return BinaryOp::kLt;
  if (t.text == "<=") return BinaryOp::kLe;
  if (t.text == ">") return BinaryOp::kGt;
  if (t.text == ">=") return BinaryOp::kGe;
  return std::nullopt;
}

// The dtype a literal's suffix names: "i32" -> int32 ("" -> int64 or an error for floats).
std::optional<DType> SuffixDType(std::string_view suffix) {
  std::optional<DType> dtype = ParseDType(suffix);
  if (!dtype || DTypeSuffix(*dtype) != suffix) return std::nullopt;
  return dtype;
}

}  // namespace

// Constant operands fold (MakeBinary); an overflowing or dividing-by-zero fold is left as
// an expression, as the IR itself does, so that printed modules always read back.
PrimExpr Parser::Binary(BinaryOp op, PrimExpr a, PrimExpr b, const Token& at) const {
  try {
    return MakeBinary(op, std::move(a), std::move(b));
  } catch (const Error& e) {
    Reposition(e, at);
  }
}

PrimExpr Parser::ParsePrimExpr() {
  DepthGuard guard(*this);
  return ParseOr();
}

PrimExpr Parser::ParseOr() {
  ChainGuard chain(*this);
  PrimExpr lhs = ParseAnd();
  while (Peek().Is("||")) {
    const Token& op = Next();
    chain.Extend(op);
    lhs = Binary(BinaryOp::kOr, lhs, ParseAnd(), op);
  }
  return lhs;
}

PrimExpr Parser::ParseAnd() {
  ChainGuard chain(*this);
  PrimExpr lhs = ParseCompare();
  while (Peek().Is("&&")) {
    const Token& op = Next();
    chain.Extend(op);
    lhs = Binary(BinaryOp::kAnd, lhs, ParseCompare(), op);
  }
  return lhs;
}

PrimExpr Parser::ParseCompare() {
  ChainGuard chain(*this);
  PrimExpr lhs = ParseAdd();
  while (std::optional<BinaryOp> op = CompareOp(Peek())) {
    const Token& token = Next();
    chain.Extend(token);
    lhs = Binary(*op, lhs, ParseAdd(), token);
  }
  return lhs;
}

PrimExpr Parser::ParseAdd() {
  ChainGuard chain(*this);
  PrimExpr lhs = ParseMul();
  while (Peek().Is("+") || Peek().Is("-")) {
    const Token& op = Next();
    chain.Extend(op);
    lhs = Binary(op.Is("+") ? BinaryOp::kAdd : BinaryOp::kSub, lhs, ParseMul(), op);
  }
  return lhs;
}

PrimExpr Parser::ParseMul() {
  ChainGuard chain(*this);
  PrimExpr lhs = ParseUnary();
  while (Peek().Is("*") || Peek().Is("/")) {
    const Token& op = Next();
    chain.Extend(op);
    lhs = Binary(op.Is("*") ? BinaryOp::kMul : BinaryOp::kDiv, lhs, ParseUnary(), op);
  }
  return lhs;
}

PrimExpr Parser::ParseUnary() {
  DepthGuard guard(*this);
  const Token& token = Peek();
  if (token.Is("!")) {
    Next();
    PrimExpr operand = ParseUnary();
    try {
      return MakeNot(operand);
    } catch (const Error& e) {
      Reposition(e, token);
    }
  }
  if (!token.Is("-")) return ParsePrimAtom();
  Next();
  if (Peek().kind == TokenKind::kNumber) return ParseNumberLiteral(Next(), /*negative=*/true);
  PrimExpr operand = ParseUnary();
  // A negated immediate is an immediate; anything else is the neg intrinsic.
  if (const auto* imm = operand->As<FloatImmNode>()) return FloatImm(-imm->value, operand->dtype);
  if (const auto* imm = operand->As<IntImmNode>()) {
    if (operand->dtype == DType::kBool) Fail(token, "cannot negate a bool");
    if (imm->value != std::numeric_limits<int64_t>::min()) return IntImm(-imm->value, operand->dtype);
  }
  try {
    return MakeIntrinsic("neg", {operand});
  } catch (const Error& e) {
    Reposition(e, token);
  }
}

PrimExpr Parser::ParseNumberLiteral(const Token& token, bool negative) {
  DType dtype = DType::kInt64;
  if (!token.suffix.empty()) {
    std::optional<DType> suffix_dtype = SuffixDType(token.suffix);
    if (!suffix_dtype) Fail(token, StrCat("unknown literal suffix '", token.suffix, "' in ", Describe(token)));
    dtype = *suffix_dtype;
  } else if (token.is_float_text) {
    Fail(token, StrCat("expected a float literal with a dtype suffix (", token.text, "f32, ", token.text,
                       "f64...) but found ", Describe(token)));
  }
  if (IsFloat(dtype)) {
    // Float immediates hold a double: the text is read at double precision whatever the dtype.
    std::optional<double> value = ReadDouble(token.digits);
    if (!value || std::fabs(*value) > MaxFinite(dtype)) {
      Fail(token, StrCat(negative ? "-" : "", token.text, " is out of range for ", DTypeName(dtype)));
    }
    return FloatImm(negative ? -*value : *value, dtype);
  }
  if (token.is_float_text) {
    Fail(token, StrCat("expected an integer literal for ", DTypeName(dtype), " but found ", Describe(token)));
  }
  int64_t value = 0;
  std::string error = ParseIntText(token.digits, negative, dtype, &value);
  if (!error.empty()) Fail(token, error);
  return IntImm(value, dtype);
}

PrimExpr Parser::ParsePrimAtom() {
  const Token& token = Peek();
  if (token.kind == TokenKind::kNumber) return ParseNumberLiteral(Next(), false);
  if (token.Is("(")) {
    Next();
    PrimExpr inner = ParsePrimExpr();
    Expect(")");
    return inner;
  }
  if (token.kind != TokenKind::kIdent) FailExpected("a scalar expression");
  if (token.Is("true") || token.Is("false")) return BoolImm(Next().Is("true"));
  for (std::string_view prefix : {"inf_", "nan_"}) {
    if (token.text.substr(0, 4) != prefix) continue;
    std::optional<DType> dtype = SuffixDType(token.text.substr(4));
    if (!dtype || !IsFloat(*dtype)) Fail(token, StrCat("unknown special float ", Describe(token)));
    Next();
    return FloatImm(prefix == "inf_" ? std::numeric_limits<double>::infinity()
                                     : std::numeric_limits<double>::quiet_NaN(),
                    *dtype);
  }
  if (Peek(1).Is("(")) return ParsePrimCall(Next());
  if (Peek(1).Is("[")) {
    const Token& name = Next();
    Buffer buffer = LookupBuffer(name);
    Next();
    std::vector<PrimExpr> indices;
    while (!Peek().Is("]")) {
      indices.push_back(ParsePrimExpr());
      if (!Accept(",")) break;
    }
    Expect("]");
    try {
      return MakeLoad(buffer, std::move(indices));
    } catch (const Error& e) {
      Reposition(e, name);
    }
  }
  return ResolvePrimVar(Next());
}

// floordiv/floormod/min/max(a, b), select(c, a, b), casts dtype(x), intrinsics exp(x)...
PrimExpr Parser::ParsePrimCall(const Token& name) {
  Expect("(");
  std::vector<PrimExpr> args;
  while (!Peek().Is(")")) {
    args.push_back(ParsePrimExpr());
    if (!Accept(",")) break;
  }
  Expect(")");
  const std::string fn(name.text);
  auto want_args = [&](size_t n) {
    if (args.size() != n) Fail(name, StrCat(fn, " takes ", n, " argument(s) but ", args.size(), " were given"));
  };
  try {
    static const std::pair<const char*, BinaryOp> kBinaryCalls[] = {{"floordiv", BinaryOp::kFloorDiv},
                                                                    {"floormod", BinaryOp::kFloorMod},
                                                                    {"min", BinaryOp::kMin},
                                                                    {"max", BinaryOp::kMax}};
    for (const auto& [call_name, op] : kBinaryCalls) {
      if (fn != call_name) continue;
      want_args(2);
      return Binary(op, args[0], args[1], name);
    }
    if (fn == "select") {
      want_args(3);
      return MakeSelect(args[0], args[1], args[2]);
    }
    if (std::optional<DType> dtype = ParseDType(fn); dtype && fn == DTypeName(*dtype)) {
      want_args(1);
      return MakeCast(*dtype, args[0]);
    }
    int arity = 0;
    if (IsKnownIntrinsic(fn, &arity)) {
      want_args(static_cast<size_t>(arity));
      return MakeIntrinsic(fn, std::move(args));
    }
  } catch (const Error& e) {
    Reposition(e, name);
  }
  Fail(name, StrCat("unknown function '", fn, "' in a scalar expression"));
}

PrimExpr Parser::ResolvePrimVar(const Token& name) {
  const std::string key(name.text);
  if (const PrimVar* var = prim_vars_.Find(key)) return *var;
  // Symbolic variables are created on first appearance and live in the whole function.
  CheckNewName(name);
  PrimVar var = MakePrimVar(key, implicit_var_dtype_);
  prim_vars_.DefineOuter(key, var);
  return var;
}

}  // namespace rxt::text
