#include "reduction_interchange.h"

#include <algorithm>
#include <map>

namespace rxt::backend_cpu {
namespace {

namespace kf = ::rxt::plugin_support::kernel_format;

bool ReadsAny(const kf::Kernel& k, int32_t expr, const std::vector<int32_t>& vars) {
  const kf::Expr& e = k.exprs[expr];
  if (e.kind == kf::ExprKind::kVar) return std::find(vars.begin(), vars.end(), e.var) != vars.end();
  for (int32_t o : e.operands) {
    if (ReadsAny(k, o, vars)) return true;
  }
  return false;
}

/// What the parts of one spatial loop write and read, with each block's iterators replaced by
/// the values they are bound to (so that indices of different blocks compare).
class Analysis {
 public:
  Analysis(const kf::Kernel& k, int32_t spatial_var) : k_(k), spatial_var_(spatial_var) {}

  /// Adds a part; false if it does not have the shape or its iterators do not fit.
  bool AddPart(const std::vector<int32_t>& reduction_vars, int32_t block_stmt) {
    const kf::Stmt& block = k_.stmts[block_stmt];
    bool has_own = false;
    for (const kf::IterVar& iter : block.iter_vars) {
      if (iter.kind == kf::IterKind::kSpatial) {
        // Spatial iterators follow the loops outside the reduction only.
        if (ReadsAny(k_, iter.value, reduction_vars)) return false;
      } else if (ReadsAny(k_, iter.value, {spatial_var_})) {
        return false;  // reduce iterators follow the reduction loops only
      }
      bound_[iter.var] = iter.value;
      const kf::Expr& value = k_.exprs[iter.value];
      has_own = has_own || (iter.kind == kf::IterKind::kSpatial && value.kind == kf::ExprKind::kVar &&
                            value.var == spatial_var_);
    }
    if (!has_own) return false;
    size_t first = stores_.size();
    if (!CollectStores(block.body) || (block.init != kf::kNone && !CollectStores(block.init))) return false;
    for (size_t s = first; s < stores_.size(); ++s) {
      const kf::Stmt& store = *stores_[s];
      // Each iteration writes its own elements: the last index is the spatial loop's variable
      // (compact buffers: the last dim has stride 1).
      if (store.indices.empty() || !k_.buffers[store.buffer].strides.empty()) return false;
      if (!IsSpatialVar(store.indices.back())) return false;
    }
    return true;
  }

  /// Whether every load of a written buffer, anywhere in the parts, reads an element stored.
  bool ReadsOnlyOwnElements(const std::vector<int32_t>& blocks) const {
    for (int32_t b : blocks) {
      const kf::Stmt& block = k_.stmts[b];
      for (const kf::IterVar& iter : block.iter_vars) {
        if (!OwnLoads(iter.value)) return false;
      }
    }
    for (const kf::Stmt* s : stores_) {
      if (!OwnLoads(s->value)) return false;
      for (int32_t index : s->indices) {
        if (!OwnLoads(index)) return false;
      }
    }
    return true;
  }

  /// Whether consecutive values of the spatial variable read consecutive elements in the
  /// stores of |block| (it appears only in the last index, one step per element).
  bool Contiguous(int32_t block_stmt) const {
    std::vector<const kf::Stmt*> stores;
    const kf::Stmt& block = k_.stmts[block_stmt];
    for (const kf::Stmt* s : stores_) {
      if (Within(block.body, s) || (block.init != kf::kNone && Within(block.init, s))) stores.push_back(s);
    }
    for (const kf::Stmt* s : stores) {
      if (!ReadsContiguously(s->value)) return false;
    }
    return true;
  }

 private:
  bool CollectStores(int32_t stmt) {
    const kf::Stmt& s = k_.stmts[stmt];
    if (s.kind == kf::StmtKind::kStore) {
      stores_.push_back(&s);
      return true;
    }
    if (s.kind != kf::StmtKind::kSeq) return false;
    for (int32_t child : s.stmts) {
      if (!CollectStores(child)) return false;
    }
    return true;
  }

  bool Within(int32_t stmt, const kf::Stmt* target) const {
    const kf::Stmt& s = k_.stmts[stmt];
    if (&s == target) return true;
    for (int32_t child : s.stmts) {
      if (Within(child, target)) return true;
    }
    return false;
  }

  // An expression with block iterators replaced by their values, compared structurally.
  int32_t Resolve(int32_t expr) const {
    const kf::Expr& e = k_.exprs[expr];
    if (e.kind == kf::ExprKind::kVar) {
      auto it = bound_.find(e.var);
      if (it != bound_.end()) return it->second;
    }
    return expr;
  }

  bool Same(int32_t a, int32_t b) const {
    a = Resolve(a);
    b = Resolve(b);
    if (a == b) return true;
    const kf::Expr& x = k_.exprs[a];
    const kf::Expr& y = k_.exprs[b];
    if (x.kind != y.kind || x.dtype != y.dtype || x.int_value != y.int_value || x.var != y.var ||
        x.buffer != y.buffer || x.binary_op != y.binary_op || x.intrinsic != y.intrinsic ||
        x.operands.size() != y.operands.size() || !(x.float_value == y.float_value)) {
      return false;
    }
    for (size_t i = 0; i < x.operands.size(); ++i) {
      if (!Same(x.operands[i], y.operands[i])) return false;
    }
    return true;
  }

  bool IsSpatialVar(int32_t expr) const {
    const kf::Expr& e = k_.exprs[Resolve(expr)];
    return e.kind == kf::ExprKind::kVar && e.var == spatial_var_;
  }

  bool ReadsSpatial(int32_t expr) const {
    if (IsSpatialVar(expr)) return true;
    const kf::Expr& e = k_.exprs[Resolve(expr)];
    for (int32_t o : e.operands) {
      if (ReadsSpatial(o)) return true;
    }
    return false;
  }

  bool OwnLoads(int32_t expr) const {
    const kf::Expr& e = k_.exprs[expr];
    if (e.kind == kf::ExprKind::kLoad) {
      bool written = false, own = false;
      for (const kf::Stmt* s : stores_) {
        if (s->buffer != e.buffer) continue;
        written = true;
        bool same = s->indices.size() == e.operands.size();
        for (size_t i = 0; same && i < e.operands.size(); ++i) same = Same(s->indices[i], e.operands[i]);
        own = own || same;
      }
      if (written && !own) return false;
    }
    for (int32_t o : e.operands) {
      if (!OwnLoads(o)) return false;
    }
    return true;
  }

  // spatial, spatial + x or x + spatial (x not reading it): one step, one element.
  bool IsUnitStep(int32_t index) const {
    if (IsSpatialVar(index)) return true;
    const kf::Expr& e = k_.exprs[Resolve(index)];
    if (e.kind != kf::ExprKind::kBinary || e.binary_op != kf::BinaryOp::kAdd) return false;
    return (IsUnitStep(e.operands[0]) && !ReadsSpatial(e.operands[1])) ||
           (IsUnitStep(e.operands[1]) && !ReadsSpatial(e.operands[0]));
  }

  bool ReadsContiguously(int32_t expr) const {
    const kf::Expr& e = k_.exprs[expr];
    if (e.kind == kf::ExprKind::kLoad) {
      for (size_t d = 0; d < e.operands.size(); ++d) {
        bool last = d + 1 == e.operands.size();
        if (ReadsSpatial(e.operands[d]) && (!last || !IsUnitStep(e.operands[d]))) return false;
      }
      if (!k_.buffers[e.buffer].strides.empty() && ReadsSpatial(e.operands.back())) return false;
    }
    for (int32_t o : e.operands) {
      if (!ReadsContiguously(o)) return false;
    }
    return true;
  }

  const kf::Kernel& k_;
  int32_t spatial_var_;
  std::map<int32_t, int32_t> bound_;  // block iterator -> its value
  std::vector<const kf::Stmt*> stores_;
};

}  // namespace

std::optional<ReductionInterchange> PlanReductionInterchange(const kf::Kernel& k, int32_t outer) {
  const kf::Stmt& spatial = k.stmts[outer];
  // Of any kind (a parallel loop's body function runs the plan on its share of iterations).
  if (spatial.kind != kf::StmtKind::kFor) return std::nullopt;
  std::vector<int32_t> children = {spatial.body};
  if (k.stmts[spatial.body].kind == kf::StmtKind::kSeq) children = k.stmts[spatial.body].stmts;

  Analysis analysis(k, spatial.var);
  ReductionInterchange plan;
  std::vector<int32_t> blocks;
  bool any_reduction = false;
  for (int32_t child : children) {
    InterchangePart part;
    part.stmt = child;
    std::vector<int32_t> reduction_vars;
    int32_t body = child;
    while (k.stmts[body].kind == kf::StmtKind::kFor) {
      const kf::Stmt& loop = k.stmts[body];
      if (loop.loop_kind == kf::LoopKind::kParallel || ReadsAny(k, loop.extent, {spatial.var})) return std::nullopt;
      part.reduction_loops.push_back(body);
      reduction_vars.push_back(loop.var);
      body = loop.body;
    }
    if (k.stmts[body].kind != kf::StmtKind::kBlock) return std::nullopt;
    part.block = body;
    if (!analysis.AddPart(reduction_vars, body)) return std::nullopt;
    any_reduction = any_reduction || !part.reduction_loops.empty();
    blocks.push_back(body);
    plan.parts.push_back(part);
  }
  if (!any_reduction || !analysis.ReadsOnlyOwnElements(blocks)) return std::nullopt;
  for (InterchangePart& part : plan.parts) part.contiguous = analysis.Contiguous(part.block);
  return plan;
}

}  // namespace rxt::backend_cpu
