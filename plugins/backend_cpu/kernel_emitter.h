// The state of emitting one kernel (kernel_codegen.h): shared by kernel_codegen.cc (the entry
// function, parameters, error exits, memory access annotations), expr_codegen.cc (expressions)
// and loop_codegen.cc (statements, loops, parallel loops, allocations).
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "index_bounds.h"
#include "kernel_codegen.h"
#include "reduction_interchange.h"
#include "scalar_codegen.h"

namespace rxt::backend_cpu {

class KernelEmitter {
 public:
  KernelEmitter(const kf::Kernel& kernel, llvm::Module& module, const CodegenOptions& options);
  llvm::Function* Emit(const std::string& symbol);

 private:
  /// Where a buffer's elements are while the kernel runs: its data and strides (i64, in elements).
  struct BufferView {
    llvm::Value* data = nullptr;
    std::vector<llvm::Value*> strides;
  };
  /// What the code being emitted sees: the value of every variable and buffer in scope.
  struct Env {
    std::vector<llvm::Value*> vars;    // per kernel variable; null when out of scope
    std::vector<BufferView> buffers;   // per kernel buffer
  };
  /// A value a parallel loop's body function receives from the code around the loop.
  struct Capture {
    enum class Kind : uint8_t { kVar, kBufferData, kBufferStride } kind = Kind::kVar;
    int32_t index = 0;  // the variable or buffer
    int32_t dim = 0;    // kBufferStride
    int32_t slot = -1;  // its field in the closure, or
    llvm::Constant* constant = nullptr;  // its value, known when the kernel is compiled
  };
  /// The function being emitted: the kernel itself or a parallel loop's body.
  struct FunctionState {
    llvm::Function* function = nullptr;
    llvm::Value* runtime = nullptr;     // the kernel's rxt_kernel_runtime_t*; null in a loop body
    std::vector<llvm::Value*> heap;     // live heap allocations, freed on an error exit
  };

  // kernel_codegen.cc
  llvm::Function* CreateFunction(const std::string& name, llvm::FunctionType* type, llvm::GlobalValue::LinkageTypes linkage);
  void BindParameters(llvm::Value* buffers, llvm::Value* int_vars, llvm::Value* float_vars);
  std::vector<llvm::Value*> CompactStrides(const std::vector<llvm::Value*>& dims);
  /// A new block that frees the live heap allocations and returns |code| (an i32 value or constant).
  llvm::BasicBlock* ErrorExit(llvm::Value* code);
  llvm::BasicBlock* DivisionByZeroExit();
  /// Alias scopes: every buffer is its own, so that LLVM knows stores to one do not change
  /// another; inside a parallel loop with disjoint iterations, also the loop's access group.
  void Annotate(llvm::Instruction* access, int32_t buffer);
  llvm::AllocaInst* EntryAlloca(llvm::Type* type, const char* name);

  // expr_codegen.cc
  llvm::Value* Expr(int32_t expr);
  llvm::Value* EmitExpr(const kf::Expr& e);
  llvm::Value* ShortCircuit(const kf::Expr& e);
  llvm::Value* Select(const kf::Expr& e);
  llvm::Value* Address(int32_t buffer, const std::vector<int32_t>& indices);
  llvm::Value* Index64(int32_t expr);
  /// Whether evaluating |expr| may fault (a load, an integer division by a non-constant):
  /// such expressions are evaluated only where the semantics say (&&, ||, select branches).
  bool MayFault(int32_t expr);
  // Values of expressions already emitted, reused while the variables they read keep their
  // values: cleared per statement; a conditional branch pushes a layer of its own.
  void ClearExprCache() { cache_.assign(1, {}); }

  // loop_codegen.cc
  void Stmt(int32_t stmt);
  void For(int32_t stmt);
  /// Iterations [begin, end) of the spatial loop |spatial| as |plan| says; |whole_tiles|: the
  /// range is a whole number of kReductionTile iterations.
  void InterchangedFor(const kf::Stmt& spatial, llvm::Value* begin, llvm::Value* end, const ReductionInterchange& plan,
                       bool whole_tiles = false);
  void ReductionNest(const InterchangePart& part, size_t level, const std::function<void()>& inner);
  void TiledPart(const kf::Stmt& spatial, llvm::Value* begin, llvm::Value* end, const InterchangePart& part,
                 bool whole_tiles);
  /// Iterations of a spatial loop that run together inside a strided reduction's loops.
  static constexpr int64_t kReductionTile = 8;
  /// Emits a loop of |step| from |begin| while below |end|, around what |body| emits for its
  /// counter (begin, end: one integer type).
  void CountedLoop(const std::string& name, bool is_unsigned, llvm::Value* begin, llvm::Value* end, int64_t step,
                   llvm::MDNode* metadata, const std::function<void(llvm::Value*)>& body);
  /// Emits `for var in [begin, end)` (begin, end: the variable's type) around what |body|
  /// emits.
  void Loop(int32_t var, llvm::Value* begin, llvm::Value* end, llvm::MDNode* metadata, const std::function<void()>& body);
  void ParallelFor(int32_t stmt, llvm::Value* extent);
  /// Whether the parallel loop |s| of |extent| has, known at compile time, less work than the
  /// threshold for waking threads (or one iteration): then it is emitted as a plain loop.
  bool TooLittleToShare(const kf::Stmt& s, llvm::Value* extent);
  /// The body function of parallel loop |stmt|, over units of |grain| iterations; |plan|: how
  /// it runs interchanged with the reduction its body starts, if it does.
  llvm::Function* EmitParallelBody(int32_t stmt, llvm::StructType* closure_type, const std::vector<Capture>& captures,
                                   const std::optional<ReductionInterchange>& plan, int64_t grain);
  llvm::Value* EstimateIterations(int32_t stmt, int depth);
  void Store(const kf::Stmt& s);
  void If(const kf::Stmt& s);
  void Allocate(const kf::Stmt& s);
  void Block(const kf::Stmt& s);
  llvm::MDNode* LoopMetadata(const kf::Stmt& s);

  const kf::Kernel& kernel_;
  llvm::Module& module_;
  llvm::LLVMContext& context_;
  CodegenOptions options_;
  llvm::IRBuilder<> b_;
  ScalarCodegen scalar_;
  std::string symbol_;
  int parallel_bodies_ = 0;

  Env env_;
  FunctionState fn_;
  std::vector<std::unordered_map<int32_t, llvm::Value*>> cache_;
  std::vector<int8_t> may_fault_;  // per expression: -1 unknown, 0, 1
  IndexBounds bounds_;             // loads that cannot fault (may run speculatively)

  std::vector<llvm::MDNode*> scopes_;   // per buffer: !{scope}
  std::vector<llvm::MDNode*> noalias_;  // per buffer: every other buffer's scope
  // While the body of a parallel loop whose iterations touch disjoint memory is emitted: the
  // access group of its memory accesses (loop_codegen.cc, EmitParallelBody); null elsewhere.
  llvm::MDNode* access_group_ = nullptr;
};

}  // namespace rxt::backend_cpu
