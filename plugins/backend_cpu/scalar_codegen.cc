#include "scalar_codegen.h"

#include <llvm/ADT/APFloat.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>

#include <cmath>
#include <cstring>

namespace rxt::backend_cpu {

using kf::BinaryOp;
using kf::DType;
using kf::Intrinsic;

uint16_t FloatToBFloat16Bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  if (std::isnan(f)) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1);
  return static_cast<uint16_t>(x >> 16);
}

llvm::Type* RegisterType(llvm::LLVMContext& c, DType t) {
  switch (t) {
    case DType::kFloat16: return llvm::Type::getHalfTy(c);
    case DType::kBFloat16:
    case DType::kFloat32: return llvm::Type::getFloatTy(c);
    case DType::kFloat64: return llvm::Type::getDoubleTy(c);
    case DType::kInt8:
    case DType::kUInt8: return llvm::Type::getInt8Ty(c);
    case DType::kInt16: return llvm::Type::getInt16Ty(c);
    case DType::kInt32: return llvm::Type::getInt32Ty(c);
    case DType::kBool: return llvm::Type::getInt1Ty(c);
    case DType::kInt64:
    case DType::kUnknown: break;
  }
  return llvm::Type::getInt64Ty(c);
}

llvm::Type* MemoryType(llvm::LLVMContext& c, DType t) {
  if (t == DType::kBFloat16) return llvm::Type::getInt16Ty(c);
  if (t == DType::kBool) return llvm::Type::getInt8Ty(c);
  return RegisterType(c, t);
}

llvm::Value* ScalarCodegen::IntConstant(DType t, int64_t value) {
  llvm::Type* type = RegisterType(b_.getContext(), t);
  if (t == DType::kBool) return llvm::ConstantInt::get(type, value != 0 ? 1 : 0);
  // ConstantInt keeps the low bits: integers wrap in their width.
  unsigned bits = type->getIntegerBitWidth();
  uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  return llvm::ConstantInt::get(type, static_cast<uint64_t>(value) & mask);
}

llvm::Value* ScalarCodegen::FloatConstant(DType t, double value) {
  llvm::LLVMContext& c = b_.getContext();
  switch (t) {
    case DType::kFloat64: return llvm::ConstantFP::get(llvm::Type::getDoubleTy(c), value);
    case DType::kFloat32: return llvm::ConstantFP::get(llvm::Type::getFloatTy(c), static_cast<float>(value));
    case DType::kFloat16: {
      llvm::APFloat f(static_cast<float>(value));
      bool lost = false;
      f.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven, &lost);
      return llvm::ConstantFP::get(c, f);
    }
    case DType::kBFloat16: {
      uint32_t bits = uint32_t{FloatToBFloat16Bits(static_cast<float>(value))} << 16;
      float rounded;
      std::memcpy(&rounded, &bits, sizeof rounded);
      return llvm::ConstantFP::get(llvm::Type::getFloatTy(c), rounded);
    }
    default: break;
  }
  return llvm::UndefValue::get(RegisterType(c, t));  // a float immediate always has a float dtype
}

llvm::Value* ScalarCodegen::FromMemory(DType t, llvm::Value* loaded) {
  if (t == DType::kBFloat16) {
    llvm::Value* bits = b_.CreateShl(b_.CreateZExt(loaded, b_.getInt32Ty()), 16);
    return b_.CreateBitCast(bits, b_.getFloatTy());
  }
  if (t == DType::kBool) return b_.CreateICmpNE(loaded, b_.getInt8(0));
  return loaded;
}

llvm::Value* ScalarCodegen::ToMemory(DType t, llvm::Value* value) {
  // A bfloat16 register value is always exactly a bfloat16: its upper half is the value.
  if (t == DType::kBFloat16) return b_.CreateTrunc(b_.CreateLShr(b_.CreateBitCast(value, b_.getInt32Ty()), 16), b_.getInt16Ty());
  if (t == DType::kBool) return b_.CreateZExt(value, b_.getInt8Ty());
  return value;
}

llvm::Value* ScalarCodegen::FromInt64(DType t, llvm::Value* value) {
  if (t == DType::kBool) return b_.CreateICmpNE(value, b_.getInt64(0));
  return b_.CreateTrunc(value, RegisterType(b_.getContext(), t));
}

llvm::Value* ScalarCodegen::FromDouble(DType t, llvm::Value* value) {
  if (t == DType::kFloat64) return value;
  llvm::Value* f = b_.CreateFPTrunc(value, b_.getFloatTy());  // to float first, as the reference rounds
  return RoundTo(t, f);
}

llvm::Value* ScalarCodegen::ToInt64(DType t, llvm::Value* value) {
  if (IsUnsigned(t)) return b_.CreateZExt(value, b_.getInt64Ty());
  return b_.CreateSExt(value, b_.getInt64Ty());
}

llvm::Value* ScalarCodegen::RoundBFloat16(llvm::Value* f) {
  llvm::Value* bits = b_.CreateBitCast(f, b_.getInt32Ty());
  llvm::Value* lsb = b_.CreateAnd(b_.CreateLShr(bits, 16), 1);
  llvm::Value* rounded = b_.CreateAnd(b_.CreateAdd(bits, b_.CreateAdd(lsb, b_.getInt32(0x7fff))), 0xffff0000u);
  llvm::Value* quiet_nan = b_.CreateAnd(b_.CreateOr(bits, 0x00400000u), 0xffff0000u);
  llvm::Value* is_nan = b_.CreateFCmpUNO(f, f);
  return b_.CreateBitCast(b_.CreateSelect(is_nan, quiet_nan, rounded), b_.getFloatTy());
}

llvm::Value* ScalarCodegen::RoundTo(DType t, llvm::Value* computed) {
  if (t == DType::kFloat16) return b_.CreateFPTrunc(computed, b_.getHalfTy());
  if (t == DType::kBFloat16) return RoundBFloat16(computed);
  return computed;
}

llvm::Type* ScalarCodegen::ComputeType(DType t) { return t == DType::kFloat64 ? b_.getDoubleTy() : b_.getFloatTy(); }

// ---- Binary operators.

llvm::Value* ScalarCodegen::Binary(BinaryOp op, DType t, llvm::Value* a, llvm::Value* b, const ErrorBlockFn& error_block) {
  if (kf::IsFloat(t)) {
    switch (op) {
      case BinaryOp::kEq: return b_.CreateFCmpOEQ(a, b);
      case BinaryOp::kNe: return b_.CreateFCmpUNE(a, b);  // NaN != anything
      case BinaryOp::kLt: return b_.CreateFCmpOLT(a, b);
      case BinaryOp::kLe: return b_.CreateFCmpOLE(a, b);
      case BinaryOp::kGt: return b_.CreateFCmpOGT(a, b);
      case BinaryOp::kGe: return b_.CreateFCmpOGE(a, b);
      default: return FloatArithmetic(op, t, a, b);
    }
  }
  const bool is_unsigned = IsUnsigned(t);
  switch (op) {
    case BinaryOp::kAdd: return b_.CreateAdd(a, b);
    case BinaryOp::kSub: return b_.CreateSub(a, b);
    case BinaryOp::kMul: return b_.CreateMul(a, b);
    case BinaryOp::kDiv:
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod: return IntDivide(op, t, a, b, error_block);
    case BinaryOp::kMin: return b_.CreateSelect(is_unsigned ? b_.CreateICmpULT(a, b) : b_.CreateICmpSLT(a, b), a, b);
    case BinaryOp::kMax: return b_.CreateSelect(is_unsigned ? b_.CreateICmpUGT(a, b) : b_.CreateICmpSGT(a, b), a, b);
    case BinaryOp::kEq: return b_.CreateICmpEQ(a, b);
    case BinaryOp::kNe: return b_.CreateICmpNE(a, b);
    case BinaryOp::kLt: return is_unsigned ? b_.CreateICmpULT(a, b) : b_.CreateICmpSLT(a, b);
    case BinaryOp::kLe: return is_unsigned ? b_.CreateICmpULE(a, b) : b_.CreateICmpSLE(a, b);
    case BinaryOp::kGt: return is_unsigned ? b_.CreateICmpUGT(a, b) : b_.CreateICmpSGT(a, b);
    case BinaryOp::kGe: return is_unsigned ? b_.CreateICmpUGE(a, b) : b_.CreateICmpSGE(a, b);
    case BinaryOp::kAnd: return b_.CreateAnd(a, b);
    case BinaryOp::kOr: return b_.CreateOr(a, b);
  }
  return a;
}

// float16 arithmetic is IEEE half arithmetic (one rounding per operation, as computing in
// float and rounding is); bfloat16 computes in float and rounds after every step.
llvm::Value* ScalarCodegen::FloatArithmetic(BinaryOp op, DType t, llvm::Value* a, llvm::Value* b) {
  auto round = [&](llvm::Value* v) { return t == DType::kBFloat16 ? RoundBFloat16(v) : v; };
  switch (op) {
    case BinaryOp::kAdd: return round(b_.CreateFAdd(a, b));
    case BinaryOp::kSub: return round(b_.CreateFSub(a, b));
    case BinaryOp::kMul: return round(b_.CreateFMul(a, b));
    case BinaryOp::kDiv: return round(b_.CreateFDiv(a, b));
    case BinaryOp::kFloorDiv: return CallUnary(llvm::Intrinsic::floor, round(b_.CreateFDiv(a, b)));
    case BinaryOp::kFloorMod: {
      llvm::Value* q = CallUnary(llvm::Intrinsic::floor, round(b_.CreateFDiv(a, b)));
      return round(b_.CreateFSub(a, round(b_.CreateFMul(q, b))));
    }
    case BinaryOp::kMin:
    case BinaryOp::kMax: {
      // NaN if either side is NaN (like PyTorch's minimum/maximum and relu).
      llvm::Value* pick_a = op == BinaryOp::kMin ? b_.CreateFCmpOLT(a, b) : b_.CreateFCmpOGT(a, b);
      llvm::Value* nan = llvm::ConstantFP::getNaN(a->getType());
      return b_.CreateSelect(b_.CreateFCmpUNO(a, b), nan, b_.CreateSelect(pick_a, a, b));
    }
    default: break;
  }
  return a;
}

// /, floordiv and floormod of integers: division by zero is an error; dividing by -1 is
// negation (the most negative value wraps to itself), never the trap of x86's idiv.
llvm::Value* ScalarCodegen::IntDivide(BinaryOp op, DType t, llvm::Value* a, llvm::Value* b,
                                      const ErrorBlockFn& error_block) {
  auto* constant = llvm::dyn_cast<llvm::ConstantInt>(b);
  if (constant == nullptr || constant->isZero()) {
    llvm::Function* f = b_.GetInsertBlock()->getParent();
    llvm::BasicBlock* ok = llvm::BasicBlock::Create(b_.getContext(), "divisor_ok", f);
    llvm::Value* is_zero = b_.CreateICmpEQ(b, llvm::ConstantInt::get(b->getType(), 0));
    b_.CreateCondBr(is_zero, error_block(), ok, llvm::MDBuilder(b_.getContext()).createBranchWeights(1, 1 << 20));
    b_.SetInsertPoint(ok);
  }
  if (IsUnsigned(t)) return op == BinaryOp::kFloorMod ? b_.CreateURem(a, b) : b_.CreateUDiv(a, b);
  llvm::Type* type = a->getType();
  llvm::Value* zero = llvm::ConstantInt::get(type, 0);
  llvm::Value* is_minus_one = b_.CreateICmpEQ(b, llvm::ConstantInt::getSigned(type, -1));
  llvm::Value* divisor = b_.CreateSelect(is_minus_one, llvm::ConstantInt::get(type, 1), b);
  llvm::Value* result;
  if (op == BinaryOp::kDiv) {
    result = b_.CreateSDiv(a, divisor);
  } else {
    llvm::Value* q = b_.CreateSDiv(a, divisor);
    llvm::Value* r = b_.CreateSRem(a, divisor);
    // The remainder has the dividend's sign; floor semantics differ when it is non-zero and
    // the signs of remainder and divisor differ.
    llvm::Value* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero),
                                       b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
    result = op == BinaryOp::kFloorDiv ? b_.CreateSub(q, b_.CreateZExt(adjust, type))
                                       : b_.CreateAdd(r, b_.CreateSelect(adjust, b, zero));
  }
  llvm::Value* by_minus_one = op == BinaryOp::kFloorMod ? zero : b_.CreateSub(zero, a);
  return b_.CreateSelect(is_minus_one, by_minus_one, result);
}

// ---- Casts.

llvm::Value* ScalarCodegen::Cast(DType to, DType from, llvm::Value* x) {
  if (to == from) return x;
  llvm::LLVMContext& c = b_.getContext();
  llvm::Type* to_type = RegisterType(c, to);
  if (kf::IsFloat(from)) {
    if (to == DType::kBool) return b_.CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0));  // NaN is true
    if (!kf::IsFloat(to)) {
      // Truncates toward zero and saturates; NaN gives 0. Half goes through float first (exact):
      // LLVM 16's x86 lowering of fptosi.sat from half with AVX-512 FP16 (a Sapphire Rapids
      // host) turns NaN into the minimum (float16 -> int16 gave -32768).
      if (from == DType::kFloat16) x = b_.CreateFPExt(x, b_.getFloatTy());
      llvm::Intrinsic::ID id = to == DType::kUInt8 ? llvm::Intrinsic::fptoui_sat : llvm::Intrinsic::fptosi_sat;
      return b_.CreateIntrinsic(id, {to_type, x->getType()}, {x});
    }
    if (to == DType::kFloat64) return b_.CreateFPExt(x, to_type);
    // To float, then (16-bit types) to the target: the reference rounds through float.
    llvm::Value* f = x;
    if (from == DType::kFloat64) f = b_.CreateFPTrunc(x, b_.getFloatTy());
    if (from == DType::kFloat16) f = b_.CreateFPExt(x, b_.getFloatTy());
    return RoundTo(to, f);
  }
  if (kf::IsFloat(to)) {
    llvm::Type* first = to == DType::kFloat64 ? b_.getDoubleTy() : b_.getFloatTy();
    llvm::Value* f = IsUnsigned(from) ? b_.CreateUIToFP(x, first) : b_.CreateSIToFP(x, first);
    return RoundTo(to, f);
  }
  if (to == DType::kBool) return b_.CreateICmpNE(x, llvm::ConstantInt::get(x->getType(), 0));
  return IsUnsigned(from) ? b_.CreateZExtOrTrunc(x, to_type) : b_.CreateSExtOrTrunc(x, to_type);
}

// ---- Intrinsics.

llvm::Value* ScalarCodegen::CallUnary(llvm::Intrinsic::ID id, llvm::Value* x) {
  return b_.CreateUnaryIntrinsic(id, x);
}

// tanh and erf have no LLVM intrinsic: the C library's, declared pure so that LLVM may hoist
// and combine them.
llvm::Value* ScalarCodegen::CallLibm(const char* float_name, const char* double_name, llvm::Value* x) {
  llvm::Type* type = x->getType();
  llvm::FunctionCallee callee =
      module_.getOrInsertFunction(type->isDoubleTy() ? double_name : float_name, llvm::FunctionType::get(type, {type}, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
    f->setWillReturn();
  }
  llvm::CallInst* call = b_.CreateCall(callee, {x});
  call->setDoesNotAccessMemory();
  return call;
}

// pow from the C library, as the reference calls it: LLVM would rewrite pow(x, 2) as x * x,
// which rounds differently from glibc's pow in rare cases.
llvm::Value* ScalarCodegen::CallPow(llvm::Value* x, llvm::Value* y) {
  llvm::Type* type = x->getType();
  llvm::FunctionCallee callee = module_.getOrInsertFunction(type->isDoubleTy() ? "pow" : "powf",
                                                            llvm::FunctionType::get(type, {type, type}, false));
  llvm::CallInst* call = b_.CreateCall(callee, {x, y});
  call->addFnAttr(llvm::Attribute::NoBuiltin);
  call->setDoesNotThrow();
  return call;
}

llvm::Value* ScalarCodegen::Intrinsic(kf::Intrinsic f, DType t, llvm::Value* x, llvm::Value* y) {
  if (f == Intrinsic::kIsNan) return kf::IsFloat(t) ? b_.CreateFCmpUNO(x, x) : b_.getFalse();
  if (!kf::IsFloat(t)) {  // abs, neg, floor, ceil and round of an integer
    llvm::Value* zero = llvm::ConstantInt::get(x->getType(), 0);
    if (f == Intrinsic::kNeg) return b_.CreateSub(zero, x);
    if (f == Intrinsic::kAbs && !IsUnsigned(t)) return b_.CreateSelect(b_.CreateICmpSLT(x, zero), b_.CreateSub(zero, x), x);
    return x;
  }
  // float16 and bfloat16 compute in float (as float32 does) and round once at the end.
  llvm::Type* compute = ComputeType(t);
  auto widen = [&](llvm::Value* v) { return v->getType() == compute ? v : b_.CreateFPExt(v, compute); };
  llvm::Value* a = widen(x);
  llvm::Value* one = llvm::ConstantFP::get(compute, 1.0);
  llvm::Value* r = a;
  switch (f) {
    case Intrinsic::kExp: r = CallUnary(llvm::Intrinsic::exp, a); break;
    case Intrinsic::kLog: r = CallUnary(llvm::Intrinsic::log, a); break;
    case Intrinsic::kSqrt: r = CallUnary(llvm::Intrinsic::sqrt, a); break;
    case Intrinsic::kRsqrt: r = b_.CreateFDiv(one, CallUnary(llvm::Intrinsic::sqrt, a)); break;
    case Intrinsic::kTanh: r = CallLibm("tanhf", "tanh", a); break;
    case Intrinsic::kSigmoid:
      r = b_.CreateFDiv(one, b_.CreateFAdd(one, CallUnary(llvm::Intrinsic::exp, b_.CreateFNeg(a))));
      break;
    case Intrinsic::kAbs: r = CallUnary(llvm::Intrinsic::fabs, a); break;
    case Intrinsic::kNeg: r = b_.CreateFNeg(a); break;
    case Intrinsic::kErf: r = CallLibm("erff", "erf", a); break;
    case Intrinsic::kFloor: r = CallUnary(llvm::Intrinsic::floor, a); break;
    case Intrinsic::kCeil: r = CallUnary(llvm::Intrinsic::ceil, a); break;
    case Intrinsic::kRound: r = CallUnary(llvm::Intrinsic::roundeven, a); break;  // half to even
    case Intrinsic::kPow: r = CallPow(a, widen(y)); break;
    case Intrinsic::kSin: r = CallUnary(llvm::Intrinsic::sin, a); break;
    case Intrinsic::kCos: r = CallUnary(llvm::Intrinsic::cos, a); break;
    case Intrinsic::kTan: r = CallLibm("tanf", "tan", a); break;
    case Intrinsic::kAsin: r = CallLibm("asinf", "asin", a); break;
    case Intrinsic::kAcos: r = CallLibm("acosf", "acos", a); break;
    case Intrinsic::kAtan: r = CallLibm("atanf", "atan", a); break;
    case Intrinsic::kSinh: r = CallLibm("sinhf", "sinh", a); break;
    case Intrinsic::kCosh: r = CallLibm("coshf", "cosh", a); break;
    case Intrinsic::kAsinh: r = CallLibm("asinhf", "asinh", a); break;
    case Intrinsic::kAcosh: r = CallLibm("acoshf", "acosh", a); break;
    case Intrinsic::kAtanh: r = CallLibm("atanhf", "atanh", a); break;
    case Intrinsic::kIsNan: break;
  }
  return RoundTo(t, r);
}

}  // namespace rxt::backend_cpu
