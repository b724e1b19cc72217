#include "loop_collapse.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "same_value.h"

namespace rxt::backend_cpu {
namespace {

namespace kf = ::rxt::plugin_support::kernel_format;

bool IsPlainVar(const kf::Kernel& k, int32_t expr) { return k.exprs[expr].kind == kf::ExprKind::kVar; }

/// How the variables of one perfect loop nest (the chain of loops, outermost first, each the
/// whole body of the one before) are used in it.
class NestAnalysis {
 public:
  NestAnalysis(const kf::Kernel& k, std::vector<int32_t> loops)
      : k_(k), loops_(std::move(loops)), tainted_(loops_.size(), false), reduce_(loops_.size(), false),
        scanned_(k.exprs.size(), false) {
    for (size_t j = 0; j < loops_.size(); ++j) alias_[k_.stmts[loops_[j]].var] = static_cast<int>(j);
    for (size_t j = 1; j < loops_.size(); ++j) Scan(k_.stmts[loops_[j]].extent);
    Walk(InnerBody());
  }

  /// The groups of adjacent loops to merge, as positions in the chain.
  std::vector<std::pair<int, int>> Groups() const {
    std::vector<std::pair<int, int>> groups;
    const int n = static_cast<int>(loops_.size());
    for (int first = 0; first < n;) {
      int last = first;
      while (last + 1 < n && Mergeable(last)) ++last;
      int end = last;
      // A parallel group must not end at a loop the backend would interchange with a reduction.
      if (k_.stmts[loops_[first]].loop_kind == kf::LoopKind::kParallel && EnclosesReduction(end)) --end;
      if (end > first) groups.emplace_back(first, end);
      first = last + 1;
    }
    return groups;
  }

 private:
  int32_t InnerBody() const { return k_.stmts[loops_.back()].body; }

  int LoopOf(int32_t index_expr) const {
    if (!IsPlainVar(k_, index_expr)) return -1;
    auto it = alias_.find(k_.exprs[index_expr].var);
    return it == alias_.end() ? -1 : it->second;
  }

  void Walk(int32_t stmt) {
    if (stmt == kf::kNone) return;
    const kf::Stmt& s = k_.stmts[stmt];
    switch (s.kind) {
      case kf::StmtKind::kSeq:
        for (int32_t child : s.stmts) Walk(child);
        return;
      case kf::StmtKind::kFor:
        Scan(s.extent);
        return Walk(s.body);
      case kf::StmtKind::kStore:
        Access(s.buffer, s.indices);
        Scan(s.value);
        written_.insert(s.buffer);
        return;
      case kf::StmtKind::kIf:
        Scan(s.cond);
        Walk(s.then_case);
        return Walk(s.else_case);
      case kf::StmtKind::kAllocate:
        for (int32_t e : k_.buffers[s.buffer].shape) Scan(e);
        for (int32_t e : k_.buffers[s.buffer].strides) Scan(e);
        locals_.insert(s.buffer);
        return Walk(s.body);
      case kf::StmtKind::kBlock:
        for (const kf::IterVar& iter : s.iter_vars) {
          const bool reduce = iter.kind == kf::IterKind::kReduce;
          if (reduce && IsPlainVar(k_, iter.value)) reduce_loop_vars_.insert(k_.exprs[iter.value].var);
          int j = LoopOf(iter.value);
          if (j < 0) {
            Scan(iter.value);
            continue;
          }
          alias_[iter.var] = j;
          if (reduce) reduce_[j] = true;
        }
        Walk(s.init);
        return Walk(s.body);
    }
  }

  // An expression read as a value: a nest variable here is used other than as an index.
  void Scan(int32_t expr) {
    if (expr == kf::kNone || scanned_[expr]) return;
    scanned_[expr] = true;
    const kf::Expr& e = k_.exprs[expr];
    if (e.kind == kf::ExprKind::kVar) {
      auto it = alias_.find(e.var);
      if (it != alias_.end()) tainted_[it->second] = true;
      return;
    }
    if (e.kind == kf::ExprKind::kLoad) return Access(e.buffer, e.operands);
    for (int32_t o : e.operands) Scan(o);
  }

  void Access(int32_t buffer, const std::vector<int32_t>& indices) {
    accesses_.push_back({buffer, &indices});
    for (int32_t index : indices) {
      if (!IsPlainVar(k_, index)) Scan(index);
    }
  }

  bool IsParam(int32_t buffer) const {
    return std::any_of(k_.params.begin(), k_.params.end(),
                       [&](const kf::Param& p) { return p.kind == kf::ParamKind::kBuffer && p.index == buffer; });
  }

  /// Whether loops j and j + 1 of the chain can be one loop.
  bool Mergeable(int j) const {
    const kf::Stmt& outer = k_.stmts[loops_[j]];
    const kf::Stmt& inner = k_.stmts[loops_[j + 1]];
    if (outer.loop_kind != kf::LoopKind::kSerial && outer.loop_kind != kf::LoopKind::kParallel) return false;
    if (inner.loop_kind != kf::LoopKind::kSerial) return false;
    if (tainted_[j] || tainted_[j + 1] || reduce_[j] || reduce_[j + 1]) return false;
    const kf::DType dtype = k_.vars[outer.var].dtype;
    if (k_.vars[inner.var].dtype != dtype || (dtype != kf::DType::kInt32 && dtype != kf::DType::kInt64)) return false;

    bool in_parameter = false;  // some parameter buffer's dim equals the inner extent
    for (const auto& access : accesses_) {
      const std::vector<int32_t>& indices = *access.indices;
      std::vector<size_t> at_outer, at_inner;
      for (size_t d = 0; d < indices.size(); ++d) {
        int loop = LoopOf(indices[d]);
        if (loop == j) at_outer.push_back(d);
        if (loop == j + 1) at_inner.push_back(d);
      }
      if (at_outer.empty() && at_inner.empty()) continue;
      if (at_outer.size() != 1 || at_inner.size() != 1 || at_inner[0] != at_outer[0] + 1) return false;
      const kf::Buffer& buffer = k_.buffers[access.buffer];
      if (!buffer.strides.empty() || !SameValue(k_, buffer.shape[at_inner[0]], inner.extent)) return false;
      in_parameter = in_parameter || IsParam(access.buffer);
    }

    // The product runs nothing exactly when one of the loops ran nothing, and fits the dtype.
    const kf::Expr& a = k_.exprs[outer.extent];
    const kf::Expr& b = k_.exprs[inner.extent];
    if (a.kind == kf::ExprKind::kIntImm && b.kind == kf::ExprKind::kIntImm) {
      int64_t product = 0;
      const int64_t max = dtype == kf::DType::kInt32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
      if (a.int_value < 0 || b.int_value < 0 || __builtin_mul_overflow(a.int_value, b.int_value, &product) || product > max) {
        return false;
      }
    } else {
      // A symbolic extent: the inner one is a parameter's dim (not negative), and the product,
      // like the elements of that parameter the nest reads, fits in int64.
      if (dtype != kf::DType::kInt64 || !in_parameter) return false;
      if (b.kind == kf::ExprKind::kIntImm && b.int_value < 0) return false;
    }
    return outer.loop_kind != kf::LoopKind::kParallel || ParallelSafe(j);
  }

  /// ParallelizeLoops' rule for loop j: every buffer the nest writes (but its own local ones)
  /// has a dim that each of its accesses indexes by the loop's variable.
  bool ParallelSafe(int j) const {
    for (int32_t buffer : written_) {
      if (locals_.count(buffer)) continue;
      bool found = false;
      for (size_t d = 0; d < k_.buffers[buffer].shape.size() && !found; ++d) {
        found = std::all_of(accesses_.begin(), accesses_.end(), [&](const AccessRef& a) {
          return a.buffer != buffer || (a.indices->size() > d && LoopOf((*a.indices)[d]) == j);
        });
      }
      if (!found) return false;
    }
    return true;
  }

  // Whether the body of loop j of the chain starts with a reduction loop.
  bool EnclosesReduction(int j) const {
    if (j + 1 < static_cast<int>(loops_.size())) return reduce_[j + 1];
    const kf::Stmt& body = k_.stmts[InnerBody()];
    std::vector<int32_t> heads = body.kind == kf::StmtKind::kSeq ? body.stmts : std::vector<int32_t>{InnerBody()};
    return std::any_of(heads.begin(), heads.end(), [&](int32_t h) {
      const kf::Stmt& s = k_.stmts[h];
      return s.kind == kf::StmtKind::kFor && reduce_loop_vars_.count(s.var) > 0;
    });
  }

  struct AccessRef {
    int32_t buffer;
    const std::vector<int32_t>* indices;
  };

  const kf::Kernel& k_;
  std::vector<int32_t> loops_;
  std::map<int32_t, int> alias_;  // loop variable or block iterator bound to it -> its loop
  std::vector<bool> tainted_;     // the loop's variable is read other than as a whole index
  std::vector<bool> reduce_;      // some block binds the loop as a reduce iterator
  std::vector<bool> scanned_;
  std::vector<AccessRef> accesses_;
  std::set<int32_t> written_, locals_, reduce_loop_vars_;
};

void PlanStmt(const kf::Kernel& k, int32_t stmt, std::vector<CollapsedLoops>& plan) {
  if (stmt == kf::kNone) return;
  const kf::Stmt& s = k.stmts[stmt];
  switch (s.kind) {
    case kf::StmtKind::kSeq:
      for (int32_t child : s.stmts) PlanStmt(k, child, plan);
      return;
    case kf::StmtKind::kFor: {
      std::vector<int32_t> chain = {stmt};
      while (k.stmts[k.stmts[chain.back()].body].kind == kf::StmtKind::kFor) chain.push_back(k.stmts[chain.back()].body);
      if (chain.size() > 1) {
        for (auto [first, last] : NestAnalysis(k, chain).Groups()) {
          plan.push_back({std::vector<int32_t>(chain.begin() + first, chain.begin() + last + 1)});
        }
      }
      return PlanStmt(k, k.stmts[chain.back()].body, plan);
    }
    case kf::StmtKind::kIf:
      PlanStmt(k, s.then_case, plan);
      return PlanStmt(k, s.else_case, plan);
    case kf::StmtKind::kAllocate: return PlanStmt(k, s.body, plan);
    case kf::StmtKind::kBlock:
      PlanStmt(k, s.init, plan);
      return PlanStmt(k, s.body, plan);
    case kf::StmtKind::kStore: return;
  }
}

int32_t AddExpr(kf::Kernel& k, kf::Expr e) {
  k.exprs.push_back(std::move(e));
  return static_cast<int32_t>(k.exprs.size()) - 1;
}

int32_t IntImm(kf::Kernel& k, kf::DType dtype, int64_t value) {
  kf::Expr e;
  e.kind = kf::ExprKind::kIntImm;
  e.dtype = dtype;
  e.int_value = value;
  return AddExpr(k, std::move(e));
}

/// a * b, a new expression of |k|.
int32_t Multiply(kf::Kernel& k, kf::DType dtype, int32_t a, int32_t b) {
  kf::Expr mul;
  mul.kind = kf::ExprKind::kBinary;
  mul.dtype = dtype;
  mul.binary_op = kf::BinaryOp::kMul;
  mul.operands = {a, b};
  return AddExpr(k, std::move(mul));
}

}  // namespace

std::vector<CollapsedLoops> PlanLoopCollapse(const kf::Kernel& kernel) {
  std::vector<CollapsedLoops> plan;
  if (!kernel.stmts.empty()) PlanStmt(kernel, kernel.body(), plan);
  return plan;
}

kf::Kernel CollapseLoops(kf::Kernel kernel) {
  for (const CollapsedLoops& group : PlanLoopCollapse(kernel)) {
    kf::Stmt& last = kernel.stmts[group.loops.back()];
    const kf::DType dtype = kernel.vars[last.var].dtype;
    // The product of the extents: folded where they are constants (new expressions go last, after
    // their operands).
    int64_t constant = 1;
    int32_t symbolic = kf::kNone;
    for (int32_t loop : group.loops) {
      int32_t extent = kernel.stmts[loop].extent;
      if (kernel.exprs[extent].kind == kf::ExprKind::kIntImm) {
        constant *= kernel.exprs[extent].int_value;  // PlanLoopCollapse checked it fits
      } else if (symbolic == kf::kNone) {
        symbolic = extent;
      } else {
        symbolic = Multiply(kernel, dtype, symbolic, extent);
      }
    }
    int32_t product = IntImm(kernel, dtype, constant);
    if (symbolic != kf::kNone && constant != 1) {
      product = Multiply(kernel, dtype, symbolic, product);
    } else if (symbolic != kf::kNone) {
      product = symbolic;
    }
    const kf::LoopKind kind = kernel.stmts[group.loops.front()].loop_kind;
    const int32_t one = IntImm(kernel, dtype, 1);
    for (size_t i = 0; i + 1 < group.loops.size(); ++i) {
      kernel.stmts[group.loops[i]].extent = one;
      kernel.stmts[group.loops[i]].loop_kind = kf::LoopKind::kSerial;
    }
    kernel.stmts[group.loops.back()].extent = product;
    kernel.stmts[group.loops.back()].loop_kind = kind;
  }
  return kernel;
}

}  // namespace rxt::backend_cpu
