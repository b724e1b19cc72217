#include "rxt/ir/prim_expr.h"

#include <cstdint>
#include <map>

#include "rxt/ir/kernel.h"

namespace rxt {
namespace {

// Intrinsic name -> arity. The single list the parser, printer and backends agree on.
const std::map<std::string, int>& Intrinsics() {
  static const std::map<std::string, int> kIntrinsics = {
      {"exp", 1},  {"log", 1},   {"sqrt", 1},  {"rsqrt", 1}, {"tanh", 1},  {"sigmoid", 1}, {"abs", 1},
      {"neg", 1},  {"erf", 1},   {"floor", 1}, {"ceil", 1},  {"round", 1}, {"isnan", 1},   {"pow", 2},
      {"sin", 1},  {"cos", 1},   {"tan", 1},   {"asin", 1},  {"acos", 1},  {"atan", 1},    {"sinh", 1},
      {"cosh", 1}, {"asinh", 1}, {"acosh", 1}, {"atanh", 1},
  };
  return kIntrinsics;
}

bool IsIntImm(const PrimExpr& e, int64_t v) {
  int64_t x;
  return GetConstInt(e, &x) && x == v;
}


// Folds integer arithmetic on two immediates in int64; returns null when it cannot.
PrimExpr FoldIntUnchecked(BinaryOp op, int64_t a, int64_t b, DType t) {
  auto floordiv = [](int64_t x, int64_t y) {
    int64_t q = x / y;
    return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
  };
  int64_t r = 0;
  switch (op) {  // an overflowing result is left unfolded rather than wrapped (UB in C++)
    case BinaryOp::kAdd: return __builtin_add_overflow(a, b, &r) ? nullptr : IntImm(r, t);
    case BinaryOp::kSub: return __builtin_sub_overflow(a, b, &r) ? nullptr : IntImm(r, t);
    case BinaryOp::kMul: return __builtin_mul_overflow(a, b, &r) ? nullptr : IntImm(r, t);
    case BinaryOp::kFloorDiv:
      if (b == 0 || (a == INT64_MIN && b == -1)) return nullptr;
      return IntImm(floordiv(a, b), t);
    case BinaryOp::kFloorMod:
      if (b == 0 || (a == INT64_MIN && b == -1)) return nullptr;
      return IntImm(a - floordiv(a, b) * b, t);
    case BinaryOp::kMin: return IntImm(a < b ? a : b, t);
    case BinaryOp::kMax: return IntImm(a > b ? a : b, t);
    default: return nullptr;
  }
}

// The folded result, or null when it cannot fold or the result would not fit the dtype
// (then the unfolded expression keeps the program's meaning).
PrimExpr FoldInt(BinaryOp op, int64_t a, int64_t b, DType t) {
  PrimExpr folded = FoldIntUnchecked(op, a, b, t);
  if (!folded || !IntFitsDType(folded->As<IntImmNode>()->value, t)) return nullptr;
  return folded;
}

}  // namespace

const char* BinaryOpName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return "+";
    case BinaryOp::kSub: return "-";
    case BinaryOp::kMul: return "*";
    case BinaryOp::kDiv: return "/";
    case BinaryOp::kFloorDiv: return "floordiv";
    case BinaryOp::kFloorMod: return "floormod";
    case BinaryOp::kMin: return "min";
    case BinaryOp::kMax: return "max";
    case BinaryOp::kEq: return "==";
    case BinaryOp::kNe: return "!=";
    case BinaryOp::kLt: return "<";
    case BinaryOp::kLe: return "<=";
    case BinaryOp::kGt: return ">";
    case BinaryOp::kGe: return ">=";
    case BinaryOp::kAnd: return "&&";
    case BinaryOp::kOr: return "||";
  }
  return "?";
}

bool IsComparison(BinaryOp op) {
  return op == BinaryOp::kEq || op == BinaryOp::kNe || op == BinaryOp::kLt || op == BinaryOp::kLe ||
         op == BinaryOp::kGt || op == BinaryOp::kGe;
}

bool IntFitsDType(int64_t value, DType dtype) {
  int bits = DTypeBits(dtype);
  if (bits >= 64) return true;
  if (IsUnsigned(dtype)) return value >= 0 && value < (int64_t{1} << bits);
  return value >= -(int64_t{1} << (bits - 1)) && value < (int64_t{1} << (bits - 1));
}

PrimExpr IntImm(int64_t value, DType dtype) { return std::make_shared<IntImmNode>(dtype, value); }
PrimExpr FloatImm(double value, DType dtype) { return std::make_shared<FloatImmNode>(dtype, value); }
PrimExpr BoolImm(bool value) { return std::make_shared<IntImmNode>(DType::kBool, value ? 1 : 0); }
PrimVar MakePrimVar(std::string name, DType dtype) { return std::make_shared<PrimVarNode>(std::move(name), dtype); }

PrimExpr MakeBinary(BinaryOp op, PrimExpr a, PrimExpr b) {
  RXT_CHECK(a && b, "null operand of ", BinaryOpName(op));
  if (a->dtype != b->dtype) {
    Throw(ErrorCode::kInvalidArgument, "operands of '", BinaryOpName(op), "' have different dtypes: ",
          DTypeName(a->dtype), " and ", DTypeName(b->dtype));
  }
  bool logical = op == BinaryOp::kAnd || op == BinaryOp::kOr;
  if (logical && a->dtype != DType::kBool) {
    Throw(ErrorCode::kInvalidArgument, "operands of '", BinaryOpName(op), "' must be bool, got ", DTypeName(a->dtype));
  }
  DType result = (IsComparison(op) || logical) ? DType::kBool : a->dtype;
  if (IsInt(a->dtype)) {
    int64_t x, y;
    if (GetConstInt(a, &x) && GetConstInt(b, &y)) {
      if (PrimExpr folded = FoldInt(op, x, y, a->dtype)) return folded;
    }
    // Identities that keep symbolic shapes readable.
    if (op == BinaryOp::kAdd && IsIntImm(b, 0)) return a;
    if (op == BinaryOp::kAdd && IsIntImm(a, 0)) return b;
    if (op == BinaryOp::kSub && IsIntImm(b, 0)) return a;
    if (op == BinaryOp::kMul && IsIntImm(b, 1)) return a;
    if (op == BinaryOp::kMul && IsIntImm(a, 1)) return b;
    if (op == BinaryOp::kMul && (IsIntImm(a, 0) || IsIntImm(b, 0))) return IntImm(0, a->dtype);
    if (op == BinaryOp::kFloorDiv && IsIntImm(b, 1)) return a;
  }
  return std::make_shared<BinaryNode>(result, op, std::move(a), std::move(b));
}

PrimExpr MakeNot(PrimExpr x) {
  if (x->dtype != DType::kBool) Throw(ErrorCode::kInvalidArgument, "operand of '!' must be bool, got ", DTypeName(x->dtype));
  return std::make_shared<NotNode>(std::move(x));
}

PrimExpr MakeSelect(PrimExpr cond, PrimExpr if_true, PrimExpr if_false) {
  if (cond->dtype != DType::kBool) {
    Throw(ErrorCode::kInvalidArgument, "select: condition must be bool, got ", DTypeName(cond->dtype));
  }
  if (if_true->dtype != if_false->dtype) {
    Throw(ErrorCode::kInvalidArgument, "select: branches have different dtypes: ", DTypeName(if_true->dtype), " and ",
          DTypeName(if_false->dtype));
  }
  return std::make_shared<SelectNode>(std::move(cond), std::move(if_true), std::move(if_false));
}

PrimExpr MakeCast(DType dtype, PrimExpr x) {
  if (dtype == DType::kUnknown) Throw(ErrorCode::kInvalidArgument, "cast to an unknown dtype");
  if (x->dtype == dtype) return x;
  return std::make_shared<CastNode>(dtype, std::move(x));
}

bool IsKnownIntrinsic(const std::string& name, int* arity) {
  auto it = Intrinsics().find(name);
  if (it == Intrinsics().end()) return false;
  if (arity) *arity = it->second;
  return true;
}

PrimExpr MakeIntrinsic(const std::string& name, std::vector<PrimExpr> args) {
  int arity = 0;
  if (!IsKnownIntrinsic(name, &arity)) Throw(ErrorCode::kInvalidArgument, "unknown intrinsic '", name, "'");
  if (static_cast<int>(args.size()) != arity) {
    Throw(ErrorCode::kInvalidArgument, "intrinsic ", name, " takes ", arity, " argument(s), got ", args.size());
  }
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i]->dtype != args[0]->dtype) {
      Throw(ErrorCode::kInvalidArgument, "intrinsic ", name, ": arguments have different dtypes");
    }
  }
  DType result = name == "isnan" ? DType::kBool : args[0]->dtype;
  return std::make_shared<IntrinsicNode>(result, name, std::move(args));
}

PrimExpr MakeLoad(Buffer buffer, std::vector<PrimExpr> indices) {
  RXT_CHECK(buffer != nullptr);
  if (indices.size() != buffer->shape.size()) {
    Throw(ErrorCode::kInvalidArgument, "load of ", buffer->name, ": ", indices.size(), " indices for a ",
          buffer->shape.size(), "-d buffer");
  }
  DType t = buffer->dtype;
  return std::make_shared<LoadNode>(t, std::move(buffer), std::move(indices));
}

bool GetConstInt(const PrimExpr& e, int64_t* value) {
  if (!e) return false;
  const auto* imm = e->As<IntImmNode>();
  if (imm == nullptr || e->dtype == DType::kBool) return false;
  if (value) *value = imm->value;
  return true;
}

bool ProvablyEqual(const PrimExpr& a, const PrimExpr& b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || a->dtype != b->dtype) return false;
  switch (a->kind) {
    case PrimKind::kIntImm: return a->As<IntImmNode>()->value == b->As<IntImmNode>()->value;
    case PrimKind::kFloatImm: return a->As<FloatImmNode>()->value == b->As<FloatImmNode>()->value;
    case PrimKind::kVar: return false;  // distinct variable nodes
    case PrimKind::kBinary: {
      const auto* x = a->As<BinaryNode>();
      const auto* y = b->As<BinaryNode>();
      return x->op == y->op && ProvablyEqual(x->a, y->a) && ProvablyEqual(x->b, y->b);
    }
    case PrimKind::kNot: return ProvablyEqual(a->As<NotNode>()->value, b->As<NotNode>()->value);
    case PrimKind::kSelect: {
      const auto* x = a->As<SelectNode>();
      const auto* y = b->As<SelectNode>();
      return ProvablyEqual(x->cond, y->cond) && ProvablyEqual(x->if_true, y->if_true) &&
             ProvablyEqual(x->if_false, y->if_false);
    }
    case PrimKind::kCast: return ProvablyEqual(a->As<CastNode>()->value, b->As<CastNode>()->value);
    case PrimKind::kIntrinsic: {
      const auto* x = a->As<IntrinsicNode>();
      const auto* y = b->As<IntrinsicNode>();
      if (x->name != y->name || x->args.size() != y->args.size()) return false;
      for (size_t i = 0; i < x->args.size(); ++i) {
        if (!ProvablyEqual(x->args[i], y->args[i])) return false;
      }
      return true;
    }
    case PrimKind::kLoad: return false;  // memory may change between loads
  }
  return false;
}

}  // namespace rxt
