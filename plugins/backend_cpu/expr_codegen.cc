// Expressions: a DAG of nodes evaluated where a statement needs them. Nodes that may fault
// (loads, integer divisions by a variable) are evaluated only where the semantics evaluate
// them: the chosen branch of a select, the right side of && and || when it decides.
#include <stdexcept>

#include "kernel_emitter.h"

namespace rxt::backend_cpu {

using kf::ExprKind;

llvm::Value* KernelEmitter::Expr(int32_t expr) {
  for (const auto& layer : cache_) {
    auto it = layer.find(expr);
    if (it != layer.end()) return it->second;
  }
  llvm::Value* v = EmitExpr(kernel_.exprs[expr]);
  cache_.back()[expr] = v;
  return v;
}

llvm::Value* KernelEmitter::EmitExpr(const kf::Expr& e) {
  switch (e.kind) {
    case ExprKind::kIntImm: return scalar_.IntConstant(e.dtype, e.int_value);
    case ExprKind::kFloatImm: return scalar_.FloatConstant(e.dtype, e.float_value);
    case ExprKind::kVar: {
      llvm::Value* v = env_.vars[e.var];
      if (v == nullptr) throw std::runtime_error("variable " + kernel_.vars[e.var].name + " is read out of its scope");
      return v;
    }
    case ExprKind::kBinary:
      if (kf::IsLogical(e.binary_op)) return ShortCircuit(e);
      return scalar_.Binary(e.binary_op, kernel_.exprs[e.operands[0]].dtype, Expr(e.operands[0]), Expr(e.operands[1]),
                            [this] { return DivisionByZeroExit(); });
    case ExprKind::kNot: return b_.CreateNot(Expr(e.operands[0]));
    case ExprKind::kSelect: return Select(e);
    case ExprKind::kCast: return scalar_.Cast(e.dtype, kernel_.exprs[e.operands[0]].dtype, Expr(e.operands[0]));
    case ExprKind::kIntrinsic: {
      llvm::Value* x = Expr(e.operands[0]);
      llvm::Value* y = e.operands.size() > 1 ? Expr(e.operands[1]) : nullptr;
      return scalar_.Intrinsic(e.intrinsic, kernel_.exprs[e.operands[0]].dtype, x, y);
    }
    case ExprKind::kLoad: {
      llvm::Type* type = MemoryType(context_, e.dtype);
      llvm::LoadInst* load = b_.CreateAlignedLoad(type, Address(e.buffer, e.operands),
                                                  llvm::Align(kf::DTypeBits(e.dtype) / 8));
      Annotate(load, e.buffer);
      return scalar_.FromMemory(e.dtype, load);
    }
  }
  throw std::runtime_error("unknown expression kind");
}

// a && b, a || b: b only when a does not decide (a branch when b may fault).
llvm::Value* KernelEmitter::ShortCircuit(const kf::Expr& e) {
  const bool is_and = e.binary_op == kf::BinaryOp::kAnd;
  llvm::Value* a = Expr(e.operands[0]);
  if (!MayFault(e.operands[1])) {
    llvm::Value* b = Expr(e.operands[1]);
    return is_and ? b_.CreateSelect(a, b, b_.getFalse()) : b_.CreateSelect(a, b_.getTrue(), b);
  }
  llvm::BasicBlock* from = b_.GetInsertBlock();
  llvm::BasicBlock* rhs = llvm::BasicBlock::Create(context_, is_and ? "and_rhs" : "or_rhs", fn_.function);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(context_, is_and ? "and_done" : "or_done", fn_.function);
  b_.CreateCondBr(a, is_and ? rhs : done, is_and ? done : rhs);
  b_.SetInsertPoint(rhs);
  cache_.emplace_back();
  llvm::Value* b = Expr(e.operands[1]);
  cache_.pop_back();
  llvm::BasicBlock* rhs_end = b_.GetInsertBlock();
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  llvm::PHINode* phi = b_.CreatePHI(b_.getInt1Ty(), 2);
  phi->addIncoming(is_and ? b_.getFalse() : b_.getTrue(), from);
  phi->addIncoming(b, rhs_end);
  return phi;
}

// select(c, x, y) evaluates only the chosen side: a plain select when neither side may fault.
llvm::Value* KernelEmitter::Select(const kf::Expr& e) {
  llvm::Value* cond = Expr(e.operands[0]);
  if (!MayFault(e.operands[1]) && !MayFault(e.operands[2])) {
    return b_.CreateSelect(cond, Expr(e.operands[1]), Expr(e.operands[2]));
  }
  llvm::BasicBlock* then_block = llvm::BasicBlock::Create(context_, "select_true", fn_.function);
  llvm::BasicBlock* else_block = llvm::BasicBlock::Create(context_, "select_false", fn_.function);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(context_, "select_done", fn_.function);
  b_.CreateCondBr(cond, then_block, else_block);
  llvm::Value* values[2];
  llvm::BasicBlock* ends[2];
  llvm::BasicBlock* blocks[2] = {then_block, else_block};
  for (int side = 0; side < 2; ++side) {
    b_.SetInsertPoint(blocks[side]);
    cache_.emplace_back();
    values[side] = Expr(e.operands[1 + side]);
    cache_.pop_back();
    ends[side] = b_.GetInsertBlock();
    b_.CreateBr(done);
  }
  b_.SetInsertPoint(done);
  llvm::PHINode* phi = b_.CreatePHI(values[0]->getType(), 2);
  phi->addIncoming(values[0], ends[0]);
  phi->addIncoming(values[1], ends[1]);
  return phi;
}

llvm::Value* KernelEmitter::Index64(int32_t expr) { return scalar_.ToInt64(kernel_.exprs[expr].dtype, Expr(expr)); }

// Element offset = sum of index * stride; no bounds check (binding checked the shapes, and
// the kernel's indices are its author's promise, as in any compiled code).
llvm::Value* KernelEmitter::Address(int32_t buffer, const std::vector<int32_t>& indices) {
  const BufferView& view = env_.buffers[buffer];
  if (view.data == nullptr) throw std::runtime_error("buffer " + kernel_.buffers[buffer].name + " is used out of its scope");
  llvm::Value* offset = nullptr;
  for (size_t d = 0; d < indices.size(); ++d) {
    llvm::Value* term = b_.CreateMul(Index64(indices[d]), view.strides[d]);
    offset = offset == nullptr ? term : b_.CreateAdd(offset, term);
  }
  if (offset == nullptr) return view.data;  // a 0-d buffer
  return b_.CreateInBoundsGEP(MemoryType(context_, kernel_.buffers[buffer].dtype), view.data, offset);
}

bool KernelEmitter::MayFault(int32_t expr) {
  int8_t& known = may_fault_[expr];
  if (known >= 0) return known == 1;
  const kf::Expr& e = kernel_.exprs[expr];
  bool faults = e.kind == ExprKind::kLoad && !bounds_.LoadInBounds(expr);
  if (e.kind == ExprKind::kBinary && !kf::IsFloat(kernel_.exprs[e.operands[0]].dtype) &&
      (e.binary_op == kf::BinaryOp::kDiv || e.binary_op == kf::BinaryOp::kFloorDiv ||
       e.binary_op == kf::BinaryOp::kFloorMod)) {
    const kf::Expr& divisor = kernel_.exprs[e.operands[1]];
    faults = divisor.kind != ExprKind::kIntImm ||
             llvm::cast<llvm::ConstantInt>(scalar_.IntConstant(divisor.dtype, divisor.int_value))->isZero();
  }
  for (size_t i = 0; i < e.operands.size() && !faults; ++i) faults = MayFault(e.operands[i]);
  known = faults ? 1 : 0;
  return faults;
}

}  // namespace rxt::backend_cpu
