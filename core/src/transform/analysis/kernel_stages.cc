/// Reads the stage structure of a kernel (kernel_stages.h).
#include "kernel_stages.h"

#include "rxt/ir/visitor.h"

namespace rxt {
namespace {

/// One loop nest: loops down to a block whose body (and init) is a single store.
std::optional<KernelStage> ReadStage(const Stmt& stmt) {
  KernelStage stage;
  stage.stmt = stmt;
  const StmtNode* s = stmt.get();
  while (const auto* loop = s->As<ForNode>()) {
    stage.loops.push_back(loop->var);
    stage.extents.push_back(loop->extent);
    s = loop->body.get();
  }
  stage.block = s->As<BlockNode>();
  if (stage.block == nullptr) return std::nullopt;
  stage.store = stage.block->body->As<StoreNode>();
  if (stage.store == nullptr) return std::nullopt;
  if (stage.block->init) {
    stage.init = stage.block->init->As<StoreNode>();
    if (stage.init == nullptr) return std::nullopt;
  }
  for (const IterVar& iter : stage.block->iter_vars) stage.is_reduce |= iter.kind == IterKind::kReduce;
  return stage;
}

class LoadCollector : public PrimExprVisitor {
 public:
  void VisitLoad(const LoadNode& node) override {
    loads.push_back(&node);
    PrimExprVisitor::VisitLoad(node);
  }
  std::vector<const LoadNode*> loads;
};

}  // namespace

std::optional<KernelStages> SplitStages(const Stmt& body) {
  KernelStages out;
  const Stmt* s = &body;
  while (const auto* alloc = (*s)->As<AllocateNode>()) {
    out.allocs.push_back(alloc->buffer);
    s = &alloc->body;
  }
  std::vector<Stmt> nests;
  if (const auto* seq = (*s)->As<SeqStmtNode>()) {
    nests = seq->stmts;
  } else {
    nests.push_back(*s);
  }
  for (const Stmt& nest : nests) {
    std::optional<KernelStage> stage = ReadStage(nest);
    if (!stage) return std::nullopt;
    out.stages.push_back(std::move(*stage));
  }
  if (out.stages.empty()) return std::nullopt;
  return out;
}

bool IsIdentityIndex(const std::vector<PrimExpr>& indices, const std::vector<PrimVar>& vars) {
  if (indices.size() != vars.size()) return false;
  for (size_t k = 0; k < vars.size(); ++k) {
    if (indices[k] != vars[k]) return false;
  }
  return true;
}

bool IsSameElementIndex(const std::vector<PrimExpr>& indices, const std::vector<PrimVar>& vars,
                        const std::vector<PrimExpr>& shape) {
  if (indices.size() != vars.size() || shape.size() != vars.size()) return false;
  for (size_t k = 0; k < vars.size(); ++k) {
    if (indices[k] == vars[k]) continue;
    int64_t index = -1, dim = -1;
    if (!GetConstInt(indices[k], &index) || index != 0 || !GetConstInt(shape[k], &dim) || dim != 1) return false;
  }
  return true;
}

std::vector<PrimVar> IterVarsOf(const BlockNode& block, IterKind kind) {
  std::vector<PrimVar> vars;
  for (const IterVar& iter : block.iter_vars) {
    if (iter.kind == kind) vars.push_back(iter.var);
  }
  return vars;
}

bool IsCanonicalStage(const KernelStage& stage) {
  const auto& iters = stage.block->iter_vars;
  if (iters.size() != stage.loops.size()) return false;
  bool seen_reduce = false;
  for (size_t k = 0; k < iters.size(); ++k) {
    if (iters[k].value != stage.loops[k]) return false;
    if (iters[k].kind == IterKind::kSpatial && seen_reduce) return false;
    seen_reduce |= iters[k].kind == IterKind::kReduce;
  }
  std::vector<PrimVar> spatial = IterVarsOf(*stage.block, IterKind::kSpatial);
  if (!IsIdentityIndex(stage.store->indices, spatial)) return false;
  if (stage.init && (stage.init->buffer != stage.store->buffer || !IsIdentityIndex(stage.init->indices, spatial))) {
    return false;
  }
  return stage.store->buffer->shape.size() == spatial.size();
}

std::vector<const LoadNode*> CollectLoads(const PrimExpr& e) {
  LoadCollector collector;
  collector.VisitPrimExpr(e);
  return std::move(collector.loads);
}

}  // namespace rxt
