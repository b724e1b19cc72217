// The scalar semantics of the kernel format in LLVM IR, one dtype rule at a time: how each
// dtype lives in registers and memory, wraps, rounds, divides, converts and calls intrinsics.
// docs/kernel_format.md ("Semantics") states the rules; the reference interpreter's
// scalar_ops.h computes the same thing.
//
// Registers: float16 is LLVM `half` (its arithmetic rounds to half after every operation),
// bfloat16 is a `float` holding a bfloat16 value (computed in float, rounded with
// RoundBFloat16 after every operation), bool is i1, uint8 is i8 read as unsigned. Memory:
// bfloat16 is i16 bits, bool one byte.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <functional>

#include "rxt/plugin_support/kernel_codec.h"

namespace rxt::backend_cpu {

namespace kf = ::rxt::plugin_support::kernel_format;

llvm::Type* RegisterType(llvm::LLVMContext& context, kf::DType t);
llvm::Type* MemoryType(llvm::LLVMContext& context, kf::DType t);
/// uint8 and bool compare, extend and divide as unsigned.
inline bool IsUnsigned(kf::DType t) { return t == kf::DType::kUInt8 || t == kf::DType::kBool; }

class ScalarCodegen {
 public:
  /// Makes the block an integer division by zero branches to (it returns the error code).
  using ErrorBlockFn = std::function<llvm::BasicBlock*()>;

  ScalarCodegen(llvm::IRBuilder<>& builder, llvm::Module& module) : b_(builder), module_(module) {}

  llvm::Value* IntConstant(kf::DType t, int64_t value);
  /// |value| rounded to |t| as the reference does (to float first for the 16-bit types).
  llvm::Value* FloatConstant(kf::DType t, double value);

  /// A loaded element to its register form, and back.
  llvm::Value* FromMemory(kf::DType t, llvm::Value* loaded);
  llvm::Value* ToMemory(kf::DType t, llvm::Value* value);

  /// A variable's value from int_vars (i64) or float_vars (double) in its register form.
  llvm::Value* FromInt64(kf::DType t, llvm::Value* value);
  llvm::Value* FromDouble(kf::DType t, llvm::Value* value);
  /// An integer (any width, signedness from |t|) as i64: indices, strides, extents.
  llvm::Value* ToInt64(kf::DType t, llvm::Value* value);

  /// a op b for operands of dtype |t|, but not && and || (the caller short-circuits them).
  /// Integer division by zero branches to |error_block()|.
  llvm::Value* Binary(kf::BinaryOp op, kf::DType t, llvm::Value* a, llvm::Value* b, const ErrorBlockFn& error_block);
  llvm::Value* Cast(kf::DType to, kf::DType from, llvm::Value* x);
  llvm::Value* Intrinsic(kf::Intrinsic f, kf::DType t, llvm::Value* x, llvm::Value* y);

  /// A float rounded to the nearest bfloat16 (ties to even; NaN stays a quiet NaN).
  llvm::Value* RoundBFloat16(llvm::Value* f);

 private:
  llvm::Value* FloatArithmetic(kf::BinaryOp op, kf::DType t, llvm::Value* a, llvm::Value* b);
  llvm::Value* IntDivide(kf::BinaryOp op, kf::DType t, llvm::Value* a, llvm::Value* b, const ErrorBlockFn& error_block);
  /// Rounds a value computed in the float type of |t| (float for 16-bit floats) to |t|.
  llvm::Value* RoundTo(kf::DType t, llvm::Value* computed);
  /// The type intrinsics of |t| compute in: double for float64, float otherwise.
  llvm::Type* ComputeType(kf::DType t);
  llvm::Value* CallUnary(llvm::Intrinsic::ID id, llvm::Value* x);
  llvm::Value* CallLibm(const char* float_name, const char* double_name, llvm::Value* x);
  llvm::Value* CallPow(llvm::Value* x, llvm::Value* y);

  llvm::IRBuilder<>& b_;
  llvm::Module& module_;
};

/// The nearest bfloat16 of |f| as float bits, as the reference rounds it (for constants).
uint16_t FloatToBFloat16Bits(float f);

}  // namespace rxt::backend_cpu
