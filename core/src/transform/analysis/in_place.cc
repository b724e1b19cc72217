#include "rxt/transform/analysis/in_place.h"

#include <unordered_set>
#include <vector>

#include "rxt/ir/equality.h"
#include "rxt/ir/mutator.h"
#include "rxt/ir/visitor.h"
#include "transform/analysis/kernel_stages.h"

namespace rxt {
namespace {

/// One load or store of the two buffers, in execution order within an iteration.
struct Access {
  bool is_store;
  bool of_input;                  // else of the output
  std::vector<PrimExpr> indices;  // block iterators replaced by their loop expressions
  std::vector<PrimVar> loops;     // the enclosing loop variables, outermost first
  bool in_reduction;
};

class AccessCollector {
 public:
  AccessCollector(const BufferNode* input, const BufferNode* output) : input_(input), output_(output) {}

  void Walk(const Stmt& s) {
    if (s == nullptr || !ok) return;
    switch (s->kind) {
      case StmtKind::kSeq:
        for (const Stmt& child : s->As<SeqStmtNode>()->stmts) Walk(child);
        return;
      case StmtKind::kFor: {
        const ForNode* loop = s->As<ForNode>();
        loops_.push_back(loop->var);
        Walk(loop->body);
        loops_.pop_back();
        return;
      }
      case StmtKind::kAllocate: Walk(s->As<AllocateNode>()->body); return;
      case StmtKind::kIf: ok = false; return;
      case StmtKind::kBlock: {
        const BlockNode* block = s->As<BlockNode>();
        PrimVarMap saved = bindings_;
        bool saved_reduce = in_reduction_;
        for (const IterVar& iv : block->iter_vars) {
          bindings_[iv.var.get()] = Substitute(iv.value, bindings_);
          in_reduction_ = in_reduction_ || iv.kind == IterKind::kReduce;
        }
        in_reduction_ = in_reduction_ || block->init != nullptr;
        Walk(block->init);
        Walk(block->body);
        bindings_ = std::move(saved);
        in_reduction_ = saved_reduce;
        return;
      }
      case StmtKind::kStore: {
        const StoreNode* store = s->As<StoreNode>();
        for (const PrimExpr& index : store->indices) Loads(index);
        Loads(store->value);
        Record(store->buffer.get(), store->indices, true);
        return;
      }
    }
    ok = false;
  }

  bool ok = true;
  std::vector<Access> accesses;

 private:
  void Loads(const PrimExpr& e) {
    for (const LoadNode* load : CollectLoads(e)) Record(load->buffer.get(), load->indices, false);
  }

  void Record(const BufferNode* buffer, const std::vector<PrimExpr>& indices, bool is_store) {
    if (buffer != input_ && buffer != output_) return;
    Access a{is_store, buffer == input_, {}, loops_, in_reduction_};
    for (const PrimExpr& index : indices) a.indices.push_back(Substitute(index, bindings_));
    accesses.push_back(std::move(a));
  }

  const BufferNode* input_;
  const BufferNode* output_;
  std::vector<PrimVar> loops_;
  PrimVarMap bindings_;
  bool in_reduction_ = false;
};

bool SameShape(const BufferNode& a, const BufferNode& b) {
  if (a.dtype != b.dtype || a.shape.size() != b.shape.size() || !a.strides.empty() || !b.strides.empty()) return false;
  for (size_t i = 0; i < a.shape.size(); ++i) {
    if (!StructuralEqual(a.shape[i], b.shape[i])) return false;
  }
  return true;
}

}  // namespace

bool CanWriteInPlace(const KernelFunctionNode& kernel, size_t in, size_t out) {
  if (in >= kernel.params.size() || out >= kernel.params.size() || in == out) return false;
  const Buffer& input = kernel.params[in].buffer;
  const Buffer& output = kernel.params[out].buffer;
  if (input == nullptr || output == nullptr || input == output || !SameShape(*input, *output)) return false;
  AccessCollector collector(input.get(), output.get());
  collector.Walk(kernel.body);
  if (!collector.ok || collector.accesses.empty()) return false;
  const std::vector<PrimVar>& nest = collector.accesses.front().loops;
  bool stored = false;
  for (const Access& a : collector.accesses) {
    if (a.in_reduction || a.loops.size() != nest.size()) return false;
    for (size_t i = 0; i < nest.size(); ++i) {
      if (a.loops[i] != nest[i]) return false;  // another loop nest
    }
    if (!IsSameElementIndex(a.indices, nest, input->shape)) return false;
    if (a.is_store && a.of_input) return false;     // the kernel writes its input
    if (!a.is_store && a.of_input && stored) return false;  // the old value read after the new one is written
    if (!a.is_store && !a.of_input && !stored) return false;  // the output read before it is written
    if (a.is_store) stored = true;
  }
  return stored;
}

std::vector<int64_t> InPlacePairs(const KernelFunctionNode& kernel) {
  // Which parameters the kernel stores to: the candidate outputs.
  struct Stores : StmtVisitor {
    void VisitStore(const StoreNode& node) override {
      stored.insert(node.buffer.get());
      StmtVisitor::VisitStore(node);
    }
    std::unordered_set<const BufferNode*> stored;
  } stores;
  stores.VisitStmt(kernel.body);
  std::vector<int64_t> pairs;
  for (size_t out = 0; out < kernel.params.size(); ++out) {
    const Buffer& o = kernel.params[out].buffer;
    if (o == nullptr || !stores.stored.count(o.get())) continue;
    for (size_t in = 0; in < kernel.params.size(); ++in) {
      const Buffer& i = kernel.params[in].buffer;
      if (i == nullptr || stores.stored.count(i.get()) || !SameShape(*i, *o)) continue;
      if (CanWriteInPlace(kernel, in, out)) {
        pairs.push_back(static_cast<int64_t>(in));
        pairs.push_back(static_cast<int64_t>(out));
      }
    }
  }
  return pairs;
}

}  // namespace rxt
