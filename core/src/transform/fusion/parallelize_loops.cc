/// ParallelizeLoops: marks the outermost loop of each loop nest of every kernel `parallel`
/// where running its iterations at the same time cannot change the result: every buffer the
/// loop writes is written and read only at elements of the iteration's own slice (one dim
/// indexed by the loop variable, directly or through a block iterator bound to it). A
/// reduction's spatial loops qualify, its reduce loops never do (every iteration writes the
/// same elements). Loops of extent 1 are looked through to the next one.
///
/// Local buffers allocated inside the loop are the iteration's own. A loop whose body starts a
/// reduction (a per-channel sum) is marked too: the CPU backend interchanges it with the
/// reduction on each thread's share of it. A backend decides at run time whether a marked loop
/// has enough work to wake threads for (plugins/backend_cpu: parallel_work_threshold); the
/// reference backend runs it serially.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "rxt/ir/mutator.h"
#include "rxt/ir/visitor.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

/// Every load and store under a loop and the block iterators bound there.
class AccessCollector : public StmtVisitor {
 public:
  struct Access {
    Buffer buffer;
    const std::vector<PrimExpr>* indices;
  };

  void VisitLoad(const LoadNode& node) override {
    loads.push_back({node.buffer, &node.indices});
    StmtVisitor::VisitLoad(node);
  }
  void VisitStore(const StoreNode& node) override {
    stores.push_back({node.buffer, &node.indices});
    StmtVisitor::VisitStore(node);
  }
  void VisitAllocate(const AllocateNode& node) override {
    locals.insert(node.buffer.get());
    StmtVisitor::VisitAllocate(node);
  }
  void VisitBlock(const BlockNode& node) override {
    for (const IterVar& iter : node.iter_vars) {
      bound[iter.var.get()] = iter.value;
    }
    StmtVisitor::VisitBlock(node);
  }

  std::vector<Access> loads, stores;
  std::unordered_map<const PrimVarNode*, PrimExpr> bound;  // block iterator -> its value
  std::unordered_set<const BufferNode*> locals;  // allocated inside: one per iteration
};

/// Whether |index| is the loop variable |loop|, directly or through a block iterator.
bool IsLoopIndex(const PrimExpr& index, const PrimVarNode* loop, const AccessCollector& body) {
  const auto* var = index->As<PrimVarNode>();
  if (var == nullptr) return false;
  if (var == loop) return true;
  auto it = body.bound.find(var);
  return it != body.bound.end() && it->second->As<PrimVarNode>() == loop;
}

/// Whether the iterations of |loop| touch disjoint elements of everything they write (but
/// their own local buffers).
bool CanRunInParallel(const ForNode& loop) {
  AccessCollector body;
  body.VisitStmt(loop.body);
  if (body.stores.empty()) return false;
  std::vector<const BufferNode*> written;
  for (const auto& store : body.stores) {
    if (!body.locals.count(store.buffer.get()) &&
        std::find(written.begin(), written.end(), store.buffer.get()) == written.end()) {
      written.push_back(store.buffer.get());
    }
  }
  const PrimVarNode* var = loop.var.get();
  for (const BufferNode* buffer : written) {
    // Some dim that every access of the buffer indexes by the loop variable.
    bool found = false;
    for (size_t d = 0; d < buffer->shape.size() && !found; ++d) {
      auto at_d = [&](const AccessCollector::Access& a) {
        return a.buffer.get() != buffer || (a.indices->size() > d && IsLoopIndex((*a.indices)[d], var, body));
      };
      found = std::all_of(body.stores.begin(), body.stores.end(), at_d) &&
              std::all_of(body.loads.begin(), body.loads.end(), at_d);
    }
    if (!found) return false;
  }
  return true;
}

bool IsUnitExtent(const PrimExpr& extent) {
  int64_t value = 0;
  return GetConstInt(extent, &value) && value == 1;
}

/// Marks the first loop of non-unit extent of each top-level nest (under the kernel's local
/// allocations and sequence) when CanRunInParallel allows it.
class LoopParallelizer : public StmtMutator {
 public:
  Stmt VisitStmt(const Stmt& s) override {
    if (s->As<AllocateNode>() != nullptr || s->As<SeqStmtNode>() != nullptr) return StmtMutator::VisitStmt(s);
    return Nest(s);
  }

 private:
  Stmt Nest(const Stmt& s) {
    const auto* loop = s->As<ForNode>();
    if (loop == nullptr || loop->loop_kind != LoopKind::kSerial) return s;
    if (IsUnitExtent(loop->extent)) {
      Stmt body = Nest(loop->body);
      return body == loop->body ? s : MakeFor(loop->var, loop->extent, body, loop->loop_kind);
    }
    if (!CanRunInParallel(*loop)) return s;
    return MakeFor(loop->var, loop->extent, loop->body, LoopKind::kParallel);
  }
};

IRModule ParallelizeModule(IRModule module, const PassContext&) {
  const IRModule input = module;
  for (const IRModule::Entry& entry : input.entries()) {
    if (!entry.kernel) continue;
    LoopParallelizer parallelizer;
    KernelFunction rewritten = parallelizer.VisitKernel(entry.kernel);
    if (rewritten != entry.kernel) module.AddKernel(entry.name, rewritten);
  }
  return module;
}

}  // namespace

Pass ParallelizeLoops() { return CreateModulePass(ParallelizeModule, "ParallelizeLoops"); }

}  // namespace rxt
