#include "rxt/ir/kernel.h"

#include "rxt/support/error.h"

namespace rxt {

Buffer MakeBuffer(std::string name, DType dtype, std::vector<PrimExpr> shape, std::vector<PrimExpr> strides) {
  if (!strides.empty() && strides.size() != shape.size()) {
    Throw(ErrorCode::kInvalidArgument, "buffer ", name, ": ", strides.size(), " strides for ", shape.size(), " dims");
  }
  for (const auto& d : shape) {
    if (!d || !IsInt(d->dtype)) Throw(ErrorCode::kInvalidArgument, "buffer ", name, ": dims must be integers");
  }
  return std::make_shared<BufferNode>(std::move(name), dtype, std::move(shape), std::move(strides));
}

const char* LoopKindName(LoopKind k) {
  switch (k) {
    case LoopKind::kSerial: return "serial";
    case LoopKind::kParallel: return "parallel";
    case LoopKind::kVectorized: return "vectorized";
    case LoopKind::kUnrolled: return "unrolled";
  }
  return "serial";
}

Stmt MakeSeq(std::vector<Stmt> stmts) {
  if (stmts.size() == 1) return stmts[0];
  return std::make_shared<SeqStmtNode>(std::move(stmts));
}
Stmt MakeFor(PrimVar var, PrimExpr extent, Stmt body, LoopKind kind) {
  return std::make_shared<ForNode>(std::move(var), std::move(extent), kind, std::move(body));
}
Stmt MakeStore(Buffer buffer, std::vector<PrimExpr> indices, PrimExpr value) {
  if (indices.size() != buffer->shape.size()) {
    Throw(ErrorCode::kInvalidArgument, "store to ", buffer->name, ": ", indices.size(), " indices for a ",
          buffer->shape.size(), "-d buffer");
  }
  if (value->dtype != buffer->dtype) {
    Throw(ErrorCode::kInvalidArgument, "store to ", buffer->name, ": value is ", DTypeName(value->dtype),
          " but the buffer holds ", DTypeName(buffer->dtype));
  }
  return std::make_shared<StoreNode>(std::move(buffer), std::move(indices), std::move(value));
}
Stmt MakeIfStmt(PrimExpr cond, Stmt then_case, Stmt else_case) {
  if (cond->dtype != DType::kBool) Throw(ErrorCode::kInvalidArgument, "if: condition must be bool");
  return std::make_shared<IfStmtNode>(std::move(cond), std::move(then_case), std::move(else_case));
}
Stmt MakeAllocate(Buffer buffer, Stmt body) {
  return std::make_shared<AllocateNode>(std::move(buffer), std::move(body));
}
Stmt MakeBlock(std::string name, std::vector<IterVar> iter_vars, Stmt init, Stmt body) {
  return std::make_shared<BlockNode>(std::move(name), std::move(iter_vars), std::move(init), std::move(body));
}
KernelFunction MakeKernelFunction(std::vector<KernelParam> params, Stmt body, Attrs attrs) {
  return std::make_shared<KernelFunctionNode>(std::move(params), std::move(body), std::move(attrs));
}

}  // namespace rxt
