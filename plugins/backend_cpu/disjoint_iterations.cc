#include "disjoint_iterations.h"

#include <algorithm>
#include <map>
#include <set>

#include "same_value.h"

namespace rxt::backend_cpu {
namespace {

namespace kf = ::rxt::plugin_support::kernel_format;

/// The buffer accesses under one loop, and which variables stand for the loop's.
class LoopAccesses {
 public:
  LoopAccesses(const kf::Kernel& k, int32_t loop_stmt) : k_(k), scanned_(k.exprs.size(), false) {
    loop_vars_.insert(k.stmts[loop_stmt].var);
    Walk(k.stmts[loop_stmt].body, 0);
  }

  struct Access {
    int32_t buffer;
    const std::vector<int32_t>* indices;
  };
  std::vector<Access> accesses;
  std::set<int32_t> written;
  bool allocates = false;

  /// Whether |index| is the loop's variable (or a block iterator bound to it).
  bool IsLoopVar(int32_t index) const {
    return index >= 0 && k_.exprs[index].kind == kf::ExprKind::kVar && loop_vars_.count(k_.exprs[index].var) > 0;
  }

 private:
  void Walk(int32_t stmt, int depth) {
    if (stmt == kf::kNone || depth > 256) return;
    const kf::Stmt& s = k_.stmts[stmt];
    switch (s.kind) {
      case kf::StmtKind::kSeq:
        for (int32_t child : s.stmts) Walk(child, depth + 1);
        return;
      case kf::StmtKind::kFor:
        Scan(s.extent);
        return Walk(s.body, depth + 1);
      case kf::StmtKind::kStore:
        accesses.push_back({s.buffer, &s.indices});
        for (int32_t index : s.indices) Scan(index);
        Scan(s.value);
        written.insert(s.buffer);
        return;
      case kf::StmtKind::kIf:
        Scan(s.cond);
        Walk(s.then_case, depth + 1);
        return Walk(s.else_case, depth + 1);
      case kf::StmtKind::kAllocate:
        allocates = true;
        return Walk(s.body, depth + 1);
      case kf::StmtKind::kBlock:
        for (const kf::IterVar& iter : s.iter_vars) {
          if (IsLoopVar(iter.value)) loop_vars_.insert(iter.var);
          Scan(iter.value);
        }
        Walk(s.init, depth + 1);
        return Walk(s.body, depth + 1);
    }
  }

  void Scan(int32_t expr) {
    if (expr == kf::kNone || scanned_[expr]) return;
    scanned_[expr] = true;
    const kf::Expr& e = k_.exprs[expr];
    if (e.kind == kf::ExprKind::kLoad) accesses.push_back({e.buffer, &e.operands});
    for (int32_t o : e.operands) Scan(o);
  }

  const kf::Kernel& k_;
  std::set<int32_t> loop_vars_;
  std::vector<bool> scanned_;
};

}  // namespace

std::vector<size_t> MaySameMemoryGroups(const kf::Kernel& kernel) {
  std::vector<size_t> group(kernel.buffers.size());
  for (size_t i = 0; i < group.size(); ++i) group[i] = i;
  auto root = [&group](size_t b) {
    while (group[b] != b) b = group[b];
    return b;
  };
  for (const kf::Attr& attr : kernel.attrs) {
    if (attr.name != "in_place") continue;
    const std::vector<kf::AttrValue>& flat = attr.value.array_value;
    for (size_t k = 0; k + 1 < flat.size(); k += 2) {
      int64_t in = flat[k].int_value, out = flat[k + 1].int_value;
      const int64_t params = static_cast<int64_t>(kernel.params.size());
      if (in < 0 || out < 0 || in >= params || out >= params) continue;
      const kf::Param& a = kernel.params[in];
      const kf::Param& b = kernel.params[out];
      if (a.kind != kf::ParamKind::kBuffer || b.kind != kf::ParamKind::kBuffer) continue;
      group[root(static_cast<size_t>(b.index))] = root(static_cast<size_t>(a.index));
    }
  }
  for (size_t i = 0; i < group.size(); ++i) group[i] = root(i);
  return group;
}

bool IterationsTouchDisjointMemory(const kf::Kernel& kernel, int32_t loop_stmt) {
  if (loop_stmt < 0 || loop_stmt >= static_cast<int32_t>(kernel.stmts.size()) ||
      kernel.stmts[loop_stmt].kind != kf::StmtKind::kFor) {
    return false;
  }
  LoopAccesses loop(kernel, loop_stmt);
  if (loop.allocates) return false;
  const std::vector<size_t> group = MaySameMemoryGroups(kernel);
  std::set<size_t> written_groups;
  for (int32_t b : loop.written) written_groups.insert(group[b]);
  for (size_t g : written_groups) {
    std::vector<const LoopAccesses::Access*> in_group;
    for (const LoopAccesses::Access& a : loop.accesses) {
      if (group[a.buffer] == g) in_group.push_back(&a);
    }
    // One shape, compact: the same indices are the same element in any of the group's buffers.
    const kf::Buffer& first = kernel.buffers[in_group.front()->buffer];
    for (const LoopAccesses::Access* a : in_group) {
      const kf::Buffer& b = kernel.buffers[a->buffer];
      if (!b.strides.empty() || b.shape.size() != first.shape.size()) return false;
      for (size_t d = 0; d < b.shape.size(); ++d) {
        if (!SameValue(kernel, b.shape[d], first.shape[d])) return false;
      }
      if (a->indices->size() != first.shape.size()) return false;
    }
    bool found = false;
    for (size_t d = 0; d < first.shape.size() && !found; ++d) {
      found = std::all_of(in_group.begin(), in_group.end(),
                          [&](const LoopAccesses::Access* a) { return loop.IsLoopVar((*a->indices)[d]); });
    }
    if (!found) return false;
  }
  return true;
}

}  // namespace rxt::backend_cpu
