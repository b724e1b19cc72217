#include "reduction_interchange.h"

#include <algorithm>

namespace rxt::backend_cpu {
namespace {

namespace kf = ::rxt::kernel_format;

bool ReadsAny(const kf::Kernel& k, int32_t expr, const std::vector<int32_t>& vars) {
  const kf::Expr& e = k.exprs[expr];
  if (e.kind == kf::ExprKind::kVar) return std::find(vars.begin(), vars.end(), e.var) != vars.end();
  for (int32_t o : e.operands) {
    if (ReadsAny(k, o, vars)) return true;
  }
  return false;
}

bool SameExpr(const kf::Kernel& k, int32_t a, int32_t b) {
  if (a == b) return true;
  const kf::Expr& x = k.exprs[a];
  const kf::Expr& y = k.exprs[b];
  if (x.kind != y.kind || x.dtype != y.dtype || x.int_value != y.int_value || x.var != y.var ||
      x.buffer != y.buffer || x.binary_op != y.binary_op || x.intrinsic != y.intrinsic ||
      x.operands.size() != y.operands.size() || !(x.float_value == y.float_value)) {
    return false;
  }
  for (size_t i = 0; i < x.operands.size(); ++i) {
    if (!SameExpr(k, x.operands[i], y.operands[i])) return false;
  }
  return true;
}

bool SameIndices(const kf::Kernel& k, const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!SameExpr(k, a[i], b[i])) return false;
  }
  return true;
}

// The stores of a block's init and body; false if they hold anything but stores.
bool CollectStores(const kf::Kernel& k, int32_t stmt, std::vector<const kf::Stmt*>& stores) {
  const kf::Stmt& s = k.stmts[stmt];
  if (s.kind == kf::StmtKind::kStore) {
    stores.push_back(&s);
    return true;
  }
  if (s.kind != kf::StmtKind::kSeq) return false;
  for (int32_t child : s.stmts) {
    if (!CollectStores(k, child, stores)) return false;
  }
  return true;
}

// Whether every load of a written buffer in |expr| reads an element the block stores.
bool ReadsOnlyOwnElements(const kf::Kernel& k, int32_t expr, const std::vector<const kf::Stmt*>& stores) {
  const kf::Expr& e = k.exprs[expr];
  if (e.kind == kf::ExprKind::kLoad) {
    bool written = false, own = false;
    for (const kf::Stmt* s : stores) {
      if (s->buffer != e.buffer) continue;
      written = true;
      own = own || SameIndices(k, s->indices, e.operands);
    }
    if (written && !own) return false;
  }
  for (int32_t o : e.operands) {
    if (!ReadsOnlyOwnElements(k, o, stores)) return false;
  }
  return true;
}

}  // namespace

std::optional<ReductionInterchange> PlanReductionInterchange(const kf::Kernel& k, int32_t outer) {
  const kf::Stmt& spatial = k.stmts[outer];
  if (spatial.kind != kf::StmtKind::kFor || spatial.loop_kind == kf::LoopKind::kParallel) return std::nullopt;
  ReductionInterchange plan;
  std::vector<int32_t> reduction_vars;
  int32_t body = spatial.body;
  while (k.stmts[body].kind == kf::StmtKind::kFor) {
    const kf::Stmt& loop = k.stmts[body];
    if (loop.loop_kind == kf::LoopKind::kParallel || ReadsAny(k, loop.extent, {spatial.var})) return std::nullopt;
    plan.reduction_loops.push_back(body);
    reduction_vars.push_back(loop.var);
    body = loop.body;
  }
  if (plan.reduction_loops.empty() || k.stmts[body].kind != kf::StmtKind::kBlock) return std::nullopt;
  const kf::Stmt& block = k.stmts[body];
  plan.block = body;

  // Spatial iterators follow the spatial loop only, reduce iterators the reduction loops only;
  // one spatial iterator is the spatial loop's variable itself.
  int32_t own = -1;
  for (const kf::IterVar& iter : block.iter_vars) {
    if (iter.kind == kf::IterKind::kSpatial) {
      if (ReadsAny(k, iter.value, reduction_vars)) return std::nullopt;
      const kf::Expr& value = k.exprs[iter.value];
      if (value.kind == kf::ExprKind::kVar && value.var == spatial.var) own = iter.var;
    } else if (ReadsAny(k, iter.value, {spatial.var})) {
      return std::nullopt;
    }
  }
  if (own < 0) return std::nullopt;

  // Each iteration of the spatial loop writes its own elements: every store's last index is
  // that iterator (compact buffers: the last dim has stride 1), and written buffers are read
  // only at the elements stored.
  std::vector<const kf::Stmt*> stores;
  if (!CollectStores(k, block.body, stores) || (block.init != kf::kNone && !CollectStores(k, block.init, stores))) {
    return std::nullopt;
  }
  for (const kf::Stmt* s : stores) {
    if (s->indices.empty() || !k.buffers[s->buffer].strides.empty()) return std::nullopt;
    const kf::Expr& last = k.exprs[s->indices.back()];
    if (last.kind != kf::ExprKind::kVar || last.var != own) return std::nullopt;
  }
  for (const kf::Stmt* s : stores) {
    if (!ReadsOnlyOwnElements(k, s->value, stores)) return std::nullopt;
    for (int32_t index : s->indices) {
      if (!ReadsOnlyOwnElements(k, index, stores)) return std::nullopt;
    }
  }
  for (const kf::IterVar& iter : block.iter_vars) {
    if (!ReadsOnlyOwnElements(k, iter.value, stores)) return std::nullopt;
  }
  return plan;
}

}  // namespace rxt::backend_cpu
