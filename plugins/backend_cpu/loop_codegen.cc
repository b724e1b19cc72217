// Statements: loops (serial, vectorized, unrolled, parallel; reductions interchanged so that
// they vectorize), stores, ifs, blocks with their reduction init, and local allocations.
#include <llvm/IR/Constants.h>
#include <llvm/IR/MDBuilder.h>

#include <functional>
#include <optional>

#include "disjoint_iterations.h"
#include "kernel_emitter.h"
#include "reduction_interchange.h"
#include "rxt/compiled_kernel.h"

namespace rxt::backend_cpu {

using kf::StmtKind;

namespace {

// Local allocations up to this size with a size known at compile time live on the stack.
constexpr uint64_t kMaxStackAllocationBytes = 64 * 1024;
// What an inner loop of unknown extent is assumed to run, to decide whether a parallel loop
// around it has enough work.
constexpr double kUnknownExtentGuess = 16;

// rxt_kernel_runtime_t's fields, by position.
enum RuntimeField : unsigned { kStructSize = 0, kPool = 1, kParallelFor = 2, kNumThreads = 3 };

}  // namespace

void KernelEmitter::Stmt(int32_t stmt) {
  const kf::Stmt& s = kernel_.stmts[stmt];
  switch (s.kind) {
    case StmtKind::kSeq:
      for (int32_t child : s.stmts) Stmt(child);
      return;
    case StmtKind::kFor: return For(stmt);
    case StmtKind::kStore: return Store(s);
    case StmtKind::kIf: return If(s);
    case StmtKind::kAllocate: return Allocate(s);
    case StmtKind::kBlock: return Block(s);
  }
}

void KernelEmitter::For(int32_t stmt) {
  const kf::Stmt& s = kernel_.stmts[stmt];
  ClearExprCache();
  llvm::Value* extent = Expr(s.extent);
  // Inside a parallel loop's body (no runtime there), nested parallel loops run serially; so
  // does one whose work is known here to be below the threshold (the check at run time would
  // always keep it on the caller): a plain loop, with no outlined body and closure to compile.
  if (s.loop_kind == kf::LoopKind::kParallel && fn_.runtime != nullptr && !TooLittleToShare(s, extent)) {
    return ParallelFor(stmt, extent);
  }
  llvm::Value* zero = llvm::ConstantInt::get(extent->getType(), 0);
  if (std::optional<ReductionInterchange> plan = PlanReductionInterchange(kernel_, stmt)) {
    return InterchangedFor(s, zero, extent, *plan);
  }
  Loop(s.var, zero, extent, LoopMetadata(s), [&] { Stmt(s.body); });
}

// The spatial loop |spatial| split into one loop per part of its body (reduction_interchange.h
// says when that, and running it inside the reduction loops, gives the same results).
void KernelEmitter::InterchangedFor(const kf::Stmt& spatial, llvm::Value* begin, llvm::Value* end,
                                    const ReductionInterchange& plan, bool whole_tiles) {
  for (const InterchangePart& part : plan.parts) {
    if (part.reduction_loops.empty()) {
      Loop(spatial.var, begin, end, LoopMetadata(spatial), [&] { Stmt(part.block); });
    } else if (part.contiguous) {
      ReductionNest(part, 0, [&] { Loop(spatial.var, begin, end, LoopMetadata(spatial), [&] { Stmt(part.block); }); });
    } else if (!IsUnsigned(kernel_.vars[spatial.var].dtype)) {
      TiledPart(spatial, begin, end, part, whole_tiles);
    } else {
      Loop(spatial.var, begin, end, LoopMetadata(spatial), [&] { Stmt(part.stmt); });  // as written
    }
  }
}

// The reduction loops of |part| from |level| in, around what |inner| emits.
void KernelEmitter::ReductionNest(const InterchangePart& part, size_t level, const std::function<void()>& inner) {
  if (level == part.reduction_loops.size()) return inner();
  const kf::Stmt& reduction = kernel_.stmts[part.reduction_loops[level]];
  ClearExprCache();
  llvm::Value* n = Expr(reduction.extent);
  Loop(reduction.var, llvm::ConstantInt::get(n->getType(), 0), n, LoopMetadata(reduction),
       [&] { ReductionNest(part, level + 1, inner); });
}

// Tiles of kReductionTile iterations of the spatial loop run inside the reduction loops
// (unrolled: that many independent accumulation chains), then the remaining iterations as
// written — none when the caller knows [begin, end) to be whole tiles (and then no code for them:
// a reduction nest LLVM would otherwise compile for nothing).
void KernelEmitter::TiledPart(const kf::Stmt& spatial, llvm::Value* begin, llvm::Value* end, const InterchangePart& part,
                              bool whole_tiles) {
  constexpr int64_t kTile = kReductionTile;
  llvm::Type* type = end->getType();
  llvm::Value* count = b_.CreateSub(end, begin);
  llvm::Value* tiled_end =
      whole_tiles ? end
                  : b_.CreateSelect(b_.CreateICmpSGT(count, llvm::ConstantInt::get(type, 0)),
                                    b_.CreateSub(end, b_.CreateSRem(count, llvm::ConstantInt::get(type, kTile))), begin,
                                    "tiled_end");
  const std::string& name = kernel_.vars[spatial.var].name;
  CountedLoop(name + ".tile", false, begin, tiled_end, kTile, LoopMetadata(spatial), [&](llvm::Value* base) {
    ReductionNest(part, 0, [&] {
      for (int64_t t = 0; t < kTile; ++t) {
        ClearExprCache();
        env_.vars[spatial.var] = b_.CreateAdd(base, llvm::ConstantInt::get(type, t), name, false, true);
        Stmt(part.block);
      }
      env_.vars[spatial.var] = nullptr;
    });
  });
  if (!whole_tiles) Loop(spatial.var, tiled_end, end, LoopMetadata(spatial), [&] { Stmt(part.stmt); });
}

void KernelEmitter::Loop(int32_t loop_var, llvm::Value* begin, llvm::Value* end, llvm::MDNode* metadata,
                         const std::function<void()>& body_fn) {
  const kf::Var& var = kernel_.vars[loop_var];
  CountedLoop(var.name, IsUnsigned(var.dtype), begin, end, 1, metadata, [&](llvm::Value* i) {
    env_.vars[loop_var] = i;
    body_fn();
  });
  env_.vars[loop_var] = nullptr;
}

void KernelEmitter::CountedLoop(const std::string& name, bool is_unsigned, llvm::Value* begin, llvm::Value* end,
                                int64_t step, llvm::MDNode* metadata, const std::function<void(llvm::Value*)>& body_fn) {
  auto less = [&](llvm::Value* a, llvm::Value* b) { return is_unsigned ? b_.CreateICmpULT(a, b) : b_.CreateICmpSLT(a, b); };
  llvm::BasicBlock* before = b_.GetInsertBlock();
  llvm::BasicBlock* body = llvm::BasicBlock::Create(context_, name, fn_.function);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(context_, name + ".exit", fn_.function);
  b_.CreateCondBr(less(begin, end), body, exit);

  b_.SetInsertPoint(body);
  llvm::PHINode* i = b_.CreatePHI(begin->getType(), 2, name);
  i->addIncoming(begin, before);
  body_fn(i);
  // i + step <= end (a step above 1 only runs to a multiple of itself), so it does not overflow.
  llvm::Value* next =
      b_.CreateAdd(i, llvm::ConstantInt::get(i->getType(), step), name + ".next", is_unsigned, !is_unsigned);
  i->addIncoming(next, b_.GetInsertBlock());
  llvm::BranchInst* back = b_.CreateCondBr(less(next, end), body, exit);
  back->setMetadata(llvm::LLVMContext::MD_loop, metadata);

  b_.SetInsertPoint(exit);
  ClearExprCache();
}

// No llvm.loop.vectorize.enable (nor .width), even on `vectorized` loops: forcing the
// vectorizer also lets it reorder floating-point reductions (LoopVectorizeHints::
// allowReordering), and results must equal serial execution. LLVM's O3 vectorizes innermost
// loops by its cost model anyway, reductions excepted.
llvm::MDNode* KernelEmitter::LoopMetadata(const kf::Stmt& s) {
  auto flag = [&](const char* name) { return llvm::MDNode::get(context_, {llvm::MDString::get(context_, name)}); };
  std::vector<llvm::Metadata*> ops = {nullptr, flag("llvm.loop.mustprogress")};
  if (s.loop_kind == kf::LoopKind::kUnrolled) ops.push_back(flag("llvm.loop.unroll.enable"));
  llvm::MDNode* node = llvm::MDNode::getDistinct(context_, ops);
  node->replaceOperandWith(0, node);
  return node;
}

// ---- Parallel loops.
//
// The loop's body becomes `i32 body(ptr closure, i64 begin, i64 end)`; the closure holds every
// value in scope (variables, buffer pointers and strides) but constants. The loop then calls
// runtime->parallel_for(pool, extent, body, closure) when it is worth waking threads, or
// body(closure, 0, extent) on this thread.

void KernelEmitter::ParallelFor(int32_t stmt, llvm::Value* extent) {
  const kf::Stmt& s = kernel_.stmts[stmt];
  std::vector<Capture> captures;
  std::vector<llvm::Type*> types;
  std::vector<llvm::Value*> values;
  // Constants (static dims and strides, the innermost stride 1) go to the body as they are: read
  // from the closure, LLVM would not know them there, and would version loops on whether a
  // stride is 1, compiling every loop twice.
  auto capture = [&](Capture c, llvm::Value* v) {
    if (auto* constant = llvm::dyn_cast<llvm::Constant>(v)) {
      c.constant = constant;
      captures.push_back(c);
      return;
    }
    c.slot = static_cast<int32_t>(types.size());
    captures.push_back(c);
    types.push_back(v->getType());
    values.push_back(v);
  };
  for (size_t v = 0; v < env_.vars.size(); ++v) {
    if (env_.vars[v] != nullptr) capture({Capture::Kind::kVar, static_cast<int32_t>(v), 0}, env_.vars[v]);
  }
  for (size_t b = 0; b < env_.buffers.size(); ++b) {
    const BufferView& view = env_.buffers[b];
    if (view.data == nullptr) continue;
    capture({Capture::Kind::kBufferData, static_cast<int32_t>(b), 0}, view.data);
    for (size_t d = 0; d < view.strides.size(); ++d) {
      capture({Capture::Kind::kBufferStride, static_cast<int32_t>(b), static_cast<int32_t>(d)}, view.strides[d]);
    }
  }
  llvm::StructType* closure_type = llvm::StructType::get(context_, types);
  llvm::AllocaInst* closure = EntryAlloca(closure_type, "closure");
  for (size_t i = 0; i < values.size(); ++i) b_.CreateStore(values[i], b_.CreateStructGEP(closure_type, closure, i));
  // A loop directly around a reduction runs interchanged with it (reduction_interchange.h),
  // in tiles of kReductionTile iterations where it reads with a stride: the pool then shares
  // out whole tiles (units of that many iterations), so that chunk edges cut none.
  std::optional<ReductionInterchange> plan = PlanReductionInterchange(kernel_, stmt);
  const int64_t grain = plan ? kReductionTile : 1;
  llvm::Function* body = EmitParallelBody(stmt, closure_type, captures, plan, grain);

  llvm::Value* extent64 = scalar_.ToInt64(kernel_.vars[s.var].dtype, extent);
  llvm::Value* work = b_.CreateFMul(b_.CreateSIToFP(extent64, b_.getDoubleTy()), EstimateIterations(s.body, 0));
  llvm::Value* units = extent64;
  if (grain > 1) {
    llvm::Value* positive = b_.CreateICmpSGT(extent64, b_.getInt64(0));
    units = b_.CreateSelect(positive, b_.CreateSDiv(b_.CreateAdd(extent64, b_.getInt64(grain - 1)), b_.getInt64(grain)),
                            b_.getInt64(0), "units");
  }
  llvm::StructType* runtime_type =
      llvm::StructType::get(context_, {b_.getInt64Ty(), b_.getPtrTy(), b_.getPtrTy(), b_.getInt32Ty()});
  llvm::Value* runtime = fn_.runtime;

  llvm::BasicBlock* check = llvm::BasicBlock::Create(context_, "parallel_check", fn_.function);
  llvm::BasicBlock* on_pool = llvm::BasicBlock::Create(context_, "parallel_pool", fn_.function);
  llvm::BasicBlock* on_caller = llvm::BasicBlock::Create(context_, "parallel_serial", fn_.function);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(context_, "parallel_done", fn_.function);
  b_.CreateCondBr(b_.CreateIsNotNull(runtime), check, on_caller);

  b_.SetInsertPoint(check);
  llvm::Value* threads = b_.CreateLoad(b_.getInt32Ty(), b_.CreateStructGEP(runtime_type, runtime, kNumThreads));
  llvm::Value* worth_it = b_.CreateAnd(
      b_.CreateAnd(b_.CreateICmpSGT(threads, b_.getInt32(1)), b_.CreateICmpSGT(units, b_.getInt64(1))),
      b_.CreateFCmpOGE(work, llvm::ConstantFP::get(b_.getDoubleTy(), options_.parallel_work_threshold)));
  b_.CreateCondBr(worth_it, on_pool, on_caller);

  b_.SetInsertPoint(on_pool);
  llvm::Value* pool = b_.CreateLoad(b_.getPtrTy(), b_.CreateStructGEP(runtime_type, runtime, kPool));
  llvm::Value* parallel_for = b_.CreateLoad(b_.getPtrTy(), b_.CreateStructGEP(runtime_type, runtime, kParallelFor));
  llvm::FunctionType* parallel_for_type = llvm::FunctionType::get(
      b_.getInt32Ty(), {b_.getPtrTy(), b_.getInt64Ty(), b_.getPtrTy(), b_.getPtrTy()}, false);
  llvm::Value* pool_code = b_.CreateCall(parallel_for_type, parallel_for, {pool, units, body, closure});
  b_.CreateBr(done);

  b_.SetInsertPoint(on_caller);
  llvm::Value* caller_code = b_.CreateCall(body, {closure, b_.getInt64(0), units});
  b_.CreateBr(done);

  b_.SetInsertPoint(done);
  llvm::PHINode* code = b_.CreatePHI(b_.getInt32Ty(), 2, "parallel_code");
  code->addIncoming(pool_code, on_pool);
  code->addIncoming(caller_code, on_caller);
  llvm::BasicBlock* after = llvm::BasicBlock::Create(context_, "parallel_after", fn_.function);
  b_.CreateCondBr(b_.CreateICmpNE(code, b_.getInt32(RXT_KERNEL_OK)), ErrorExit(code), after,
                  llvm::MDBuilder(context_).createBranchWeights(1, 1 << 20));
  b_.SetInsertPoint(after);
  ClearExprCache();
}

llvm::Function* KernelEmitter::EmitParallelBody(int32_t stmt, llvm::StructType* closure_type,
                                                const std::vector<Capture>& captures,
                                                const std::optional<ReductionInterchange>& plan, int64_t grain) {
  const kf::Stmt& s = kernel_.stmts[stmt];
  llvm::IRBuilderBase::InsertPointGuard guard(b_);
  Env outer_env = std::move(env_);
  FunctionState outer_fn = std::move(fn_);
  auto outer_cache = std::move(cache_);

  llvm::FunctionType* type =
      llvm::FunctionType::get(b_.getInt32Ty(), {b_.getPtrTy(), b_.getInt64Ty(), b_.getInt64Ty()}, false);
  llvm::Function* f = CreateFunction(symbol_ + ".parallel" + std::to_string(parallel_bodies_++), type,
                                     llvm::GlobalValue::InternalLinkage);
  f->addParamAttr(0, llvm::Attribute::NoAlias);
  f->addParamAttr(0, llvm::Attribute::NoCapture);
  f->addParamAttr(0, llvm::Attribute::ReadOnly);
  // Inlined into its serial call, the loop nest would be optimized and compiled twice.
  f->addFnAttr(llvm::Attribute::NoInline);
  fn_ = FunctionState{f, nullptr, {}};
  env_ = Env{std::vector<llvm::Value*>(kernel_.vars.size(), nullptr), std::vector<BufferView>(kernel_.buffers.size())};
  ClearExprCache();
  b_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", f));
  for (const Capture& c : captures) {
    llvm::Value* v = c.constant != nullptr ? static_cast<llvm::Value*>(c.constant)
                                           : b_.CreateLoad(closure_type->getElementType(c.slot),
                                                           b_.CreateStructGEP(closure_type, f->getArg(0), c.slot));
    switch (c.kind) {
      case Capture::Kind::kVar: env_.vars[c.index] = v; break;
      case Capture::Kind::kBufferData: env_.buffers[c.index].data = v; break;
      case Capture::Kind::kBufferStride: {
        std::vector<llvm::Value*>& strides = env_.buffers[c.index].strides;
        if (strides.size() <= static_cast<size_t>(c.dim)) strides.resize(c.dim + 1);
        strides[c.dim] = v;
        break;
      }
    }
  }
  llvm::Type* var_type = RegisterType(context_, kernel_.vars[s.var].dtype);
  llvm::Value* begin = f->getArg(1);
  llvm::Value* end = f->getArg(2);
  bool whole_tiles = false;  // every share a whole number of units
  if (grain > 1) {
    const kf::Expr& e = kernel_.exprs[s.extent];
    whole_tiles = e.kind == kf::ExprKind::kIntImm && e.int_value % grain == 0;
    // Units of |grain| iterations: [begin * grain, min(end * grain, extent)).
    llvm::Value* extent = scalar_.ToInt64(kernel_.vars[s.var].dtype, Expr(s.extent));
    begin = b_.CreateMul(begin, b_.getInt64(grain));
    end = b_.CreateMul(end, b_.getInt64(grain));
    end = b_.CreateSelect(b_.CreateICmpSLT(end, extent), end, extent);
  }
  begin = b_.CreateTrunc(begin, var_type);
  end = b_.CreateTrunc(end, var_type);
  if (plan) {
    InterchangedFor(s, begin, end, *plan, whole_tiles);
  } else {
    // Where the iterations provably touch disjoint memory (disjoint_iterations.h), the loop
    // says so: LLVM then vectorizes it without run-time overlap checks, which an output written
    // over its own input (a donated buffer) would fail, leaving the scalar loop.
    llvm::MDNode* metadata = LoopMetadata(s);
    if (IterationsTouchDisjointMemory(kernel_, stmt)) {
      access_group_ = llvm::MDNode::getDistinct(context_, {});
      std::vector<llvm::Metadata*> ops(metadata->op_begin(), metadata->op_end());
      ops.push_back(llvm::MDNode::get(context_, {llvm::MDString::get(context_, "llvm.loop.parallel_accesses"), access_group_}));
      metadata = llvm::MDNode::getDistinct(context_, ops);
      metadata->replaceOperandWith(0, metadata);
    }
    Loop(s.var, begin, end, metadata, [&] { Stmt(s.body); });
    access_group_ = nullptr;
  }
  b_.CreateRet(b_.getInt32(RXT_KERNEL_OK));

  env_ = std::move(outer_env);
  fn_ = std::move(outer_fn);
  cache_ = std::move(outer_cache);
  return f;
}

// Iterations of the innermost statements under |stmt|, roughly: known extents and variables
// in scope are used, other extents are guessed.
bool KernelEmitter::TooLittleToShare(const kf::Stmt& s, llvm::Value* extent) {
  auto* n = llvm::dyn_cast<llvm::ConstantInt>(extent);
  if (n == nullptr) return false;
  // Folded to a constant when every extent inside is static (else it emits a few instructions
  // nothing uses, which O3 removes).
  auto* per_iteration = llvm::dyn_cast<llvm::ConstantFP>(EstimateIterations(s.body, 0));
  if (per_iteration == nullptr) return false;
  double work = static_cast<double>(n->getSExtValue()) * per_iteration->getValueAPF().convertToDouble();
  return n->getSExtValue() <= 1 || work < options_.parallel_work_threshold;
}

llvm::Value* KernelEmitter::EstimateIterations(int32_t stmt, int depth) {
  const kf::Stmt& s = kernel_.stmts[stmt];
  llvm::Type* f64 = b_.getDoubleTy();
  auto constant = [&](double v) { return llvm::ConstantFP::get(f64, v); };
  if (depth > 64) return constant(1);
  switch (s.kind) {
    case StmtKind::kStore: return constant(1);
    case StmtKind::kSeq: {
      llvm::Value* sum = constant(0);
      for (int32_t child : s.stmts) sum = b_.CreateFAdd(sum, EstimateIterations(child, depth + 1));
      return sum;
    }
    case StmtKind::kFor: {
      const kf::Expr& extent = kernel_.exprs[s.extent];
      llvm::Value* n = constant(kUnknownExtentGuess);
      if (extent.kind == kf::ExprKind::kIntImm) n = constant(static_cast<double>(extent.int_value));
      if (extent.kind == kf::ExprKind::kVar && env_.vars[extent.var] != nullptr) {
        n = b_.CreateSIToFP(scalar_.ToInt64(extent.dtype, env_.vars[extent.var]), f64);
      }
      return b_.CreateFMul(n, EstimateIterations(s.body, depth + 1));
    }
    case StmtKind::kIf: {
      llvm::Value* n = EstimateIterations(s.then_case, depth + 1);
      return s.else_case == kf::kNone ? n : b_.CreateFAdd(n, EstimateIterations(s.else_case, depth + 1));
    }
    case StmtKind::kAllocate: return EstimateIterations(s.body, depth + 1);
    case StmtKind::kBlock: {
      llvm::Value* n = EstimateIterations(s.body, depth + 1);
      return s.init == kf::kNone ? n : b_.CreateFAdd(n, EstimateIterations(s.init, depth + 1));
    }
  }
  return constant(1);
}

// ---- Other statements.

void KernelEmitter::Store(const kf::Stmt& s) {
  ClearExprCache();
  kf::DType dtype = kernel_.buffers[s.buffer].dtype;
  llvm::Value* address = Address(s.buffer, s.indices);
  llvm::Value* value = scalar_.ToMemory(dtype, Expr(s.value));
  llvm::StoreInst* store = b_.CreateAlignedStore(value, address, llvm::Align(kf::DTypeBits(dtype) / 8));
  Annotate(store, s.buffer);
}

void KernelEmitter::If(const kf::Stmt& s) {
  ClearExprCache();
  llvm::Value* cond = Expr(s.cond);
  llvm::BasicBlock* then_block = llvm::BasicBlock::Create(context_, "then", fn_.function);
  llvm::BasicBlock* merge = llvm::BasicBlock::Create(context_, "endif", fn_.function);
  llvm::BasicBlock* else_block =
      s.else_case == kf::kNone ? merge : llvm::BasicBlock::Create(context_, "else", fn_.function);
  b_.CreateCondBr(cond, then_block, else_block);
  b_.SetInsertPoint(then_block);
  Stmt(s.then_case);
  b_.CreateBr(merge);
  if (s.else_case != kf::kNone) {
    b_.SetInsertPoint(else_block);
    Stmt(s.else_case);
    b_.CreateBr(merge);
  }
  b_.SetInsertPoint(merge);
  ClearExprCache();
}

void KernelEmitter::Allocate(const kf::Stmt& s) {
  ClearExprCache();
  const kf::Buffer& buffer = kernel_.buffers[s.buffer];
  std::vector<llvm::Value*> dims;
  for (int32_t e : buffer.shape) dims.push_back(Index64(e));
  BufferView view;
  if (buffer.strides.empty()) {
    view.strides = CompactStrides(dims);
  } else {
    for (int32_t e : buffer.strides) view.strides.push_back(Index64(e));
  }
  // Elements spanned: 1 + sum of (dim - 1) * stride, or none when a dim is not positive.
  llvm::Value* span = b_.getInt64(1);
  llvm::Value* empty = b_.getFalse();
  for (size_t d = 0; d < dims.size(); ++d) {
    empty = b_.CreateOr(empty, b_.CreateICmpSLE(dims[d], b_.getInt64(0)));
    span = b_.CreateAdd(span, b_.CreateMul(b_.CreateSub(dims[d], b_.getInt64(1)), view.strides[d]));
  }
  const uint64_t element_bytes = kf::DTypeBits(buffer.dtype) / 8;
  llvm::Value* bytes = b_.CreateMul(b_.CreateSelect(empty, b_.getInt64(0), span), b_.getInt64(element_bytes));
  auto* known = llvm::dyn_cast<llvm::ConstantInt>(bytes);
  bool on_heap = known == nullptr || known->getZExtValue() > kMaxStackAllocationBytes;
  if (!on_heap) {
    llvm::AllocaInst* stack = EntryAlloca(llvm::ArrayType::get(b_.getInt8Ty(), std::max<uint64_t>(known->getZExtValue(), 1)),
                                          buffer.name.c_str());
    stack->setAlignment(llvm::Align(64));
    view.data = stack;
  } else {
    llvm::FunctionCallee malloc_fn = module_.getOrInsertFunction("malloc", b_.getPtrTy(), b_.getInt64Ty());
    llvm::Value* size = b_.CreateSelect(b_.CreateICmpUGT(bytes, b_.getInt64(0)), bytes, b_.getInt64(1));
    view.data = b_.CreateCall(malloc_fn, {size}, buffer.name);
    llvm::BasicBlock* ok = llvm::BasicBlock::Create(context_, buffer.name + ".allocated", fn_.function);
    b_.CreateCondBr(b_.CreateIsNull(view.data), ErrorExit(b_.getInt32(RXT_KERNEL_OUT_OF_MEMORY)), ok,
                    llvm::MDBuilder(context_).createBranchWeights(1, 1 << 20));
    b_.SetInsertPoint(ok);
    fn_.heap.push_back(view.data);
  }
  llvm::Value* data = view.data;
  env_.buffers[s.buffer] = std::move(view);
  Stmt(s.body);
  env_.buffers[s.buffer] = BufferView();
  if (on_heap) {
    fn_.heap.pop_back();
    b_.CreateCall(module_.getOrInsertFunction("free", b_.getVoidTy(), b_.getPtrTy()), {data});
  }
  ClearExprCache();
}

// A block binds its iterators, runs its init on the first iteration of the reduction (every
// reduce iterator 0), then its body.
void KernelEmitter::Block(const kf::Stmt& s) {
  ClearExprCache();
  std::vector<llvm::Value*> values;
  for (const kf::IterVar& iter : s.iter_vars) values.push_back(Expr(iter.value));
  llvm::Value* first = b_.getTrue();
  for (size_t k = 0; k < s.iter_vars.size(); ++k) {
    env_.vars[s.iter_vars[k].var] = values[k];
    if (s.iter_vars[k].kind == kf::IterKind::kReduce) {
      first = b_.CreateAnd(first, b_.CreateICmpEQ(values[k], llvm::ConstantInt::get(values[k]->getType(), 0)));
    }
  }
  if (s.init != kf::kNone) {
    llvm::BasicBlock* init = llvm::BasicBlock::Create(context_, "init", fn_.function);
    llvm::BasicBlock* body = llvm::BasicBlock::Create(context_, "block", fn_.function);
    b_.CreateCondBr(first, init, body);
    b_.SetInsertPoint(init);
    Stmt(s.init);
    b_.CreateBr(body);
    b_.SetInsertPoint(body);
  }
  Stmt(s.body);
  for (const kf::IterVar& iter : s.iter_vars) env_.vars[iter.var] = nullptr;
  ClearExprCache();
}

}  // namespace rxt::backend_cpu
