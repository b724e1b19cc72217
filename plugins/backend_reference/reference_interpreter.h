// The reference backend's interpreter: runs one kernel in the portable kernel format
// (rxt/kernel_format.h) on DLPack tensors, statement by statement. It is the correctness oracle
// every other backend is compared against, so it favours plain, checked semantics over speed:
// every load and store is bounds-checked, integer division by zero is an error, loop kinds
// (parallel, vectorized, unrolled) all run serially.
//
//   ReferenceInterpreter relu = ReferenceInterpreter::FromBytes(bytes.data(), bytes.size());
//   relu.Run({KernelArg::Tensor(&x), KernelArg::Tensor(&y)});   // y = relu(x)
#pragma once

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernel_error.h"
#include "rxt/plugin_support/kernel_binding.h"
#include "rxt/plugin_support/kernel_codec.h"
#include "scalar_ops.h"

namespace rxt::backend_reference {

/// One argument of a kernel call: a tensor for a buffer parameter, a number for a scalar one.
struct KernelArg {
  enum class Kind : uint8_t { kTensor, kInt, kFloat };
  Kind kind = Kind::kTensor;
  const DLTensor* tensor = nullptr;  // not owned; its data is read and written in place
  int64_t int_value = 0;
  double float_value = 0;

  static KernelArg Tensor(const DLTensor* t) {
    KernelArg a;
    a.tensor = t;
    return a;
  }
  static KernelArg Int(int64_t v) {
    KernelArg a;
    a.kind = Kind::kInt;
    a.int_value = v;
    return a;
  }
  static KernelArg Float(double v) {
    KernelArg a;
    a.kind = Kind::kFloat;
    a.float_value = v;
    return a;
  }
};

class ReferenceInterpreter {
 public:
  /// Takes a kernel, checks it (KernelError with ValidateKernel's message if invalid) and
  /// prepares it to run.
  explicit ReferenceInterpreter(plugin_support::kernel_format::Kernel kernel);
  /// Decodes bytes in the portable kernel format; KernelError with the decoder's message.
  static ReferenceInterpreter FromBytes(const uint8_t* data, size_t size);

  const plugin_support::kernel_format::Kernel& kernel() const { return kernel_; }

  /// Runs the kernel once. |args| has one entry per parameter, in order; outputs are the
  /// trailing buffers (destination-passing style). Symbolic dims are bound from the tensors'
  /// shapes (and strides, where declared) and must agree wherever they appear. Throws
  /// KernelError naming the kernel for a bad argument or a fault while running. May be called
  /// from several threads at once.
  void Run(const std::vector<KernelArg>& args) const;

 private:
  /// A buffer while the kernel runs: where its elements are and how to step through them.
  struct BufferView {
    uint8_t* data = nullptr;
    std::vector<int64_t> shape;
    std::vector<int64_t> strides;  // in elements
  };
  /// The state of one Run: values of variables and views of buffers, by their indices.
  struct Frame {
    std::vector<Value> vars;
    std::vector<BufferView> buffers;
  };

  // What is cheap to work out once, before any run: each expression with its operands' dtype
  // and immediates converted to their dtype, and the indices of every load and store, where a
  // bare variable (the usual index) is read directly.
  struct IndexRange {
    int32_t first = 0;
    int32_t count = 0;
    bool all_vars = true;  // every index is a bare variable: the fast path of Address
  };
  struct PreparedIndex {
    int32_t var = -1;   // >= 0: the index is this variable
    int32_t expr = -1;  // otherwise: this expression
  };
  struct PreparedExpr;
  using EvalFn = Value (*)(const ReferenceInterpreter& self, const PreparedExpr& e, const Frame& frame);
  struct PreparedExpr {
    EvalFn eval = nullptr;  // how to evaluate it: chosen by kind and dtype (see ChooseEval)
    plugin_support::kernel_format::DType dtype = plugin_support::kernel_format::DType::kInt64;          // of the result
    plugin_support::kernel_format::DType operand_dtype = plugin_support::kernel_format::DType::kInt64;  // of the first operand
    plugin_support::kernel_format::BinaryOp binary_op = plugin_support::kernel_format::BinaryOp::kAdd;
    plugin_support::kernel_format::Intrinsic intrinsic = plugin_support::kernel_format::Intrinsic::kExp;
    int32_t slot = -1;                   // kVar: the variable; kLoad: the buffer
    int32_t operands[3] = {-1, -1, -1};  // kBinary, kNot, kSelect, kCast, kIntrinsic
    IndexRange indices;                  // kLoad
    Value constant = IntValue(0);        // kIntImm, kFloatImm
  };

  /// |kernel| if ValidateKernel accepts it; else KernelError with its message.
  static plugin_support::kernel_format::Kernel ValidKernel(plugin_support::kernel_format::Kernel kernel);
  void Prepare();
  IndexRange PrepareIndices(const std::vector<int32_t>& exprs);

  // argument_binding.cc
  void BindArguments(const std::vector<KernelArg>& args, Frame& frame) const;

  // reference_interpreter.cc
  void Exec(int32_t stmt, Frame& frame) const;
  void ExecAllocate(const plugin_support::kernel_format::Stmt& alloc, Frame& frame) const;
  Value Eval(int32_t expr, const Frame& frame) const {
    const PreparedExpr& e = exprs_[expr];
    return e.eval(*this, e, frame);
  }
  // One evaluator per kind of expression. Arithmetic and loads are instantiated per dtype, so
  // that the dtype's rules are settled once when the kernel is prepared, not for every element.
  static EvalFn ChooseEval(const plugin_support::kernel_format::Expr& e, plugin_support::kernel_format::DType operand_dtype);
  static Value EvalImmediate(const ReferenceInterpreter& self, const PreparedExpr& e, const Frame& frame);
  static Value EvalVar(const ReferenceInterpreter& self, const PreparedExpr& e, const Frame& frame);
  static Value EvalAnd(const ReferenceInterpreter& self, const PreparedExpr& e, const Frame& frame);
  static Value EvalOr(const ReferenceInterpreter& self, const PreparedExpr& e, const Frame& frame);
  static Value EvalNot(const ReferenceInterpreter& self, const PreparedExpr& e, const Frame& frame);
  static Value EvalSelect(const ReferenceInterpreter& self, const PreparedExpr& e, const Frame& frame);
  static Value EvalCast(const ReferenceInterpreter& self, const PreparedExpr& e, const Frame& frame);
  static Value EvalIntrinsic(const ReferenceInterpreter& self, const PreparedExpr& e, const Frame& frame);
  template <plugin_support::kernel_format::DType T>
  static Value EvalArithmetic(const ReferenceInterpreter& self, const PreparedExpr& e, const Frame& frame);
  template <plugin_support::kernel_format::DType T>
  static Value EvalLoad(const ReferenceInterpreter& self, const PreparedExpr& e, const Frame& frame);
  int64_t EvalIndex(const PreparedIndex& index, const Frame& frame) const {
    return index.var >= 0 ? frame.vars[index.var].i : Eval(index.expr, frame).i;
  }
  /// Address of an element of |buffer|; KernelError if out of bounds.
  uint8_t* Address(int32_t buffer, IndexRange indices, const Frame& frame, const char* access) const {
    return indices.all_vars ? AddressAtVars(buffer, indices, frame, access) : AddressAt(buffer, indices, frame, access);
  }
  uint8_t* AddressAtVars(int32_t buffer, IndexRange indices, const Frame& frame, const char* access) const;
  uint8_t* AddressAt(int32_t buffer, IndexRange indices, const Frame& frame, const char* access) const;
  [[noreturn]] void ThrowOutOfBounds(int32_t buffer, IndexRange indices, const Frame& frame, const char* access) const;
  /// Readable text of an expression, for error messages.
  std::string ExprText(int32_t expr, int depth = 0) const;

  plugin_support::kernel_format::Kernel kernel_;
  plugin_support::kernel_binding::KernelBinder binder_;   // argument rules shared with every backend
  std::vector<PreparedExpr> exprs_;       // parallel to kernel_.exprs
  std::vector<IndexRange> stmt_indices_;  // parallel to kernel_.stmts: store indices, block iterator values
  std::vector<PreparedIndex> indices_;    // what the IndexRanges point into
  std::vector<int> element_bytes_;        // per buffer
};

}  // namespace rxt::backend_reference
