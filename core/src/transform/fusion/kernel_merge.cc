/// Merging a fused group's kernels into one (kernel_merge.h): copy, inline, add the epilogue.
#include "kernel_merge.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "fusion_rules.h"
#include "transform/analysis/kernel_stages.h"
#include "rxt/ir/mutator.h"
#include "rxt/ir/visitor.h"
#include "rxt/transform/analysis/op_pattern.h"
#include "transform/legalize/tensor_expr_bind.h"

namespace rxt {
namespace {

using VarSet = std::unordered_set<const PrimVarNode*>;

template <typename... Args>
[[noreturn]] void CannotMerge(const Args&... args) {
  Throw(ErrorCode::kUnimplemented, "FuseKernels: ", args...);
}

/// The kernel's symbolic dims in the group's terms, read from its parameters' struct info.
PrimVarMap MapDims(const KernelFunctionNode& kernel, const std::vector<StructInfo>& param_sinfo) {
  if (param_sinfo.size() != kernel.params.size()) CannotMerge("a member's struct info does not match its kernel");
  PrimVarMap dims;
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const Buffer& buffer = kernel.params[i].buffer;
    const auto* t = param_sinfo[i] ? param_sinfo[i]->As<TensorSINode>() : nullptr;
    if (t == nullptr || !t->shape || t->shape->size() != buffer->shape.size() || t->dtype != buffer->dtype) {
      CannotMerge("parameter ", buffer->name, " is passed ", param_sinfo[i] ? ToString(param_sinfo[i]) : "nothing");
    }
    for (size_t k = 0; k < buffer->shape.size(); ++k) {
      const auto* var = buffer->shape[k]->As<PrimVarNode>();
      if (var == nullptr) continue;
      auto [it, fresh] = dims.emplace(var, (*t->shape)[k]);
      if (!fresh && !ProvablyEqual(it->second, (*t->shape)[k])) {
        CannotMerge("the dim ", var->name, " of a member is passed two different values");
      }
    }
  }
  return dims;
}

/// A member's kernel copied with fresh loop variables, iterators and buffers, its symbolic
/// dims replaced by the group's. Every variable it defines is added to |defined|.
class KernelInstantiator : public StmtMutator {
 public:
  KernelInstantiator(PrimVarMap dims, VarSet& defined) : map_(std::move(dims)), defined_(defined) {}

  PrimVar VisitPrimVarDef(const PrimVar& var) override {
    PrimVar copy = MakePrimVar(var->name, var->dtype);
    map_[var.get()] = copy;
    defined_.insert(copy.get());
    return copy;
  }
  PrimExpr VisitPrimVar(const PrimVar& var) override {
    auto it = map_.find(var.get());
    if (it == map_.end()) CannotMerge("the kernel variable ", var->name, " is not bound by its parameters");
    return it->second;
  }
  Buffer VisitBuffer(const Buffer& buffer) override {
    if (auto it = buffer_remap_.find(buffer.get()); it != buffer_remap_.end()) return it->second;
    std::vector<PrimExpr> shape, strides;
    for (const PrimExpr& d : buffer->shape) shape.push_back(VisitPrimExpr(d));
    for (const PrimExpr& s : buffer->strides) strides.push_back(VisitPrimExpr(s));
    Buffer copy = MakeBuffer(buffer->name, buffer->dtype, std::move(shape), std::move(strides));
    buffer_remap_[buffer.get()] = copy;
    return copy;
  }

 private:
  PrimVarMap map_;
  VarSet& defined_;
};

/// A producer's element as a function of its spatial iterators.
struct InlineValue {
  PrimExpr value;
  std::vector<PrimVar> iters;
};

/// Rewrites a member's loads of intermediates: a load of an inlined producer's output
/// becomes the producer's value at the load's index; other buffers may be renamed (to the
/// group's input buffers, or to the anchor's output).
class LoadRewriter : public StmtMutator {
 public:
  std::unordered_map<const BufferNode*, Buffer> rename;
  std::unordered_map<const BufferNode*, const InlineValue*> inlined;

  Buffer VisitBuffer(const Buffer& buffer) override {
    auto it = rename.find(buffer.get());
    return it == rename.end() ? buffer : it->second;
  }
  PrimExpr VisitLoad(const PrimExpr& e, const LoadNode& node) override {
    auto it = inlined.find(node.buffer.get());
    if (it == inlined.end()) return StmtMutator::VisitLoad(e, node);
    const InlineValue& producer = *it->second;
    PrimVarMap at;
    for (size_t k = 0; k < producer.iters.size(); ++k) at[producer.iters[k].get()] = VisitPrimExpr(node.indices[k]);
    return Substitute(producer.value, at);
  }
};

Stmt ReplaceLastStage(const Stmt& body, Stmt stage) {
  if (const auto* alloc = body->As<AllocateNode>()) {
    return MakeAllocate(alloc->buffer, ReplaceLastStage(alloc->body, std::move(stage)));
  }
  if (const auto* seq = body->As<SeqStmtNode>()) {
    std::vector<Stmt> stmts = seq->stmts;
    stmts.back() = std::move(stage);
    return MakeSeq(std::move(stmts));
  }
  return stage;
}

/// The anchor's body with |epilogue| (the root's stage) applied to each element of |out| right
/// after its reduction: a block inside the anchor's spatial loops, after its reduce loops.
Stmt AddEpilogue(const Stmt& anchor_body, const Buffer& out, const KernelStage& epilogue, VarSet& defined) {
  std::optional<KernelStages> split = SplitStages(anchor_body);
  const KernelStage& reduction = split->stages.back();
  size_t spatial = IterVarsOf(*reduction.block, IterKind::kSpatial).size();
  std::vector<const ForNode*> loops;
  const Stmt* inner = &reduction.stmt;
  for (size_t k = 0; k < spatial; ++k) {
    loops.push_back((*inner)->As<ForNode>());
    inner = &loops.back()->body;
  }
  std::vector<PrimVar> root_iters = IterVarsOf(*epilogue.block, IterKind::kSpatial);
  if (root_iters.size() != spatial) CannotMerge("the epilogue's rank differs from the reduction's");
  std::vector<IterVar> iters;
  std::vector<PrimExpr> index;
  PrimVarMap at;
  for (size_t k = 0; k < spatial; ++k) {
    PrimVar v = MakePrimVar(root_iters[k]->name);
    defined.insert(v.get());
    iters.push_back({v, loops[k]->var, IterKind::kSpatial});
    index.push_back(v);
    at[root_iters[k].get()] = v;
  }
  PrimExpr value = Substitute(epilogue.store->value, at);
  std::vector<PrimVar> index_vars(iters.size());
  for (size_t k = 0; k < iters.size(); ++k) index_vars[k] = iters[k].var;
  for (const LoadNode* load : CollectLoads(value)) {
    if (load->buffer == out && !IsSameElementIndex(load->indices, index_vars, out->shape)) {
      CannotMerge("the epilogue reads the reduction's result at another element");
    }
  }
  Stmt block = MakeBlock(epilogue.block->name, std::move(iters), nullptr, MakeStore(out, std::move(index), value));
  Stmt nest = MakeSeq({*inner, block});
  for (size_t k = loops.size(); k-- > 0;) nest = MakeFor(loops[k]->var, loops[k]->extent, nest, loops[k]->loop_kind);
  return ReplaceLastStage(anchor_body, nest);
}

/// |body| after the |prelude| stages (which read group inputs only: producers off the anchor's
/// path), every local buffer allocated around the whole, outermost first.
Stmt WithPrelude(const std::vector<Buffer>& prelude_allocs, const std::vector<Stmt>& prelude, const Stmt& body) {
  if (prelude.empty()) return body;
  std::vector<Buffer> allocs = prelude_allocs;
  std::vector<Stmt> stmts = prelude;
  if (std::optional<KernelStages> split = SplitStages(body)) {
    allocs.insert(allocs.end(), split->allocs.begin(), split->allocs.end());
    for (const KernelStage& stage : split->stages) stmts.push_back(stage.stmt);
  } else {
    stmts.push_back(body);  // an anchor with its epilogue: its allocations stay inside
  }
  Stmt result = MakeSeq(std::move(stmts));
  for (size_t k = allocs.size(); k-- > 0;) result = MakeAllocate(allocs[k], result);
  return result;
}

/// Gives the parameter buffers the group's names.
class BufferRenamer : public StmtMutator {
 public:
  BufferRenamer(const std::vector<KernelParam>& params, const std::vector<std::string>& names) {
    RXT_CHECK(params.size() == names.size(), "one name per parameter");
    for (size_t i = 0; i < params.size(); ++i) {
      const Buffer& b = params[i].buffer;
      buffer_remap_[b.get()] = MakeBuffer(names[i], b->dtype, b->shape, b->strides);
    }
  }
};

bool SameShape(const Buffer& a, const Buffer& b) {
  if (a->dtype != b->dtype || a->shape.size() != b->shape.size()) return false;
  for (size_t k = 0; k < a->shape.size(); ++k) {
    if (!ProvablyEqual(a->shape[k], b->shape[k])) return false;
  }
  return true;
}

/// The buffers a statement loads from.
class LoadedBuffers : public StmtVisitor {
 public:
  void VisitLoad(const LoadNode& node) override {
    buffers.insert(node.buffer.get());
    StmtVisitor::VisitLoad(node);
  }
  std::unordered_set<const BufferNode*> buffers;
};

/// Throws unless |value| reads the buffers in |stored| only at the element |index| writes.
void CheckReadsBackAtElement(const PrimExpr& value, const std::vector<PrimVar>& index,
                             const std::vector<Buffer>& stored) {
  for (const LoadNode* load : CollectLoads(value)) {
    for (const Buffer& b : stored) {
      if (load->buffer == b && !IsSameElementIndex(load->indices, index, b->shape)) {
        CannotMerge("an extra output (", b->name, ") is read at another element than the one being written");
      }
    }
  }
}

/// The root's last stage (a canonical spatial nest) with a block for each extra output
/// stage before its own block, in its innermost loop: each extra output is stored at the
/// element of the iteration, and later blocks may load it back there.
Stmt AddExtraOutputs(const KernelStage& root, const std::vector<KernelStage>& extras, VarSet& defined) {
  size_t rank = IterVarsOf(*root.block, IterKind::kSpatial).size();
  std::vector<const ForNode*> loops;
  const Stmt* inner = &root.stmt;
  for (size_t k = 0; k < rank; ++k) {
    loops.push_back((*inner)->As<ForNode>());
    if (loops.back() == nullptr) CannotMerge("the last member's loops are not one per dim");
    inner = &loops.back()->body;
  }
  std::vector<Stmt> blocks;
  std::vector<Buffer> stored;
  for (const KernelStage& extra : extras) {
    std::vector<PrimVar> extra_iters = IterVarsOf(*extra.block, IterKind::kSpatial);
    if (extra.is_reduce || !IsCanonicalStage(extra) || extra_iters.size() != rank ||
        !SameShape(extra.store->buffer, root.store->buffer)) {
      CannotMerge("an extra output must be an elementwise stage of the last member's shape");
    }
    std::vector<IterVar> iters;
    std::vector<PrimVar> index_vars;
    std::vector<PrimExpr> index;
    PrimVarMap at;
    for (size_t k = 0; k < rank; ++k) {
      PrimVar v = MakePrimVar(extra_iters[k]->name);
      defined.insert(v.get());
      iters.push_back({v, loops[k]->var, IterKind::kSpatial});
      index_vars.push_back(v);
      index.push_back(v);
      at[extra_iters[k].get()] = v;
    }
    PrimExpr value = Substitute(extra.store->value, at);
    CheckReadsBackAtElement(value, index_vars, stored);
    blocks.push_back(MakeBlock(extra.block->name, std::move(iters), nullptr,
                               MakeStore(extra.store->buffer, std::move(index), value)));
    stored.push_back(extra.store->buffer);
  }
  CheckReadsBackAtElement(root.store->value, IterVarsOf(*root.block, IterKind::kSpatial), stored);
  blocks.push_back(*inner);
  Stmt nest = MakeSeq(std::move(blocks));
  for (size_t k = loops.size(); k-- > 0;) nest = MakeFor(loops[k]->var, loops[k]->extent, nest, loops[k]->loop_kind);
  return nest;
}

}  // namespace


KernelFunction MergeKernels(const std::vector<MergeMember>& members, const std::vector<StructInfo>& group_inputs,
                            const std::vector<std::string>& input_names, const std::vector<size_t>& output_members) {
  const size_t n = members.size();
  if (n < 2) CannotMerge("a group needs at least two kernels");
  std::vector<size_t> outputs = output_members.empty() ? std::vector<size_t>{n - 1} : output_members;
  std::vector<bool> is_output(n, false);
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (outputs[k] >= n || (k > 0 && outputs[k] <= outputs[k - 1])) CannotMerge("the outputs must be ascending members");
    is_output[outputs[k]] = true;
  }
  if (outputs.back() != n - 1) CannotMerge("the last member must be an output");
  VarSet defined;
  std::vector<KernelFunction> copies;
  std::vector<int> uses(n, 0);
  for (size_t m = 0; m < n; ++m) {
    const MergeMember& member = members[m];
    if (!HasFusibleStructure(*member.kernel)) CannotMerge("member ", m, " is not a stage-structured kernel of buffers");
    if (member.inputs.size() + 1 != member.kernel->params.size()) CannotMerge("member ", m, " must have one output");
    for (int src : member.inputs) {
      if (src >= static_cast<int>(group_inputs.size())) CannotMerge("member ", m, " reads group input ", src);
      if (src < 0 && -src - 1 >= static_cast<int>(m)) CannotMerge("member ", m, " reads a later member");
      if (src < 0) ++uses[-src - 1];
    }
    copies.push_back(KernelInstantiator(MapDims(*member.kernel, member.param_sinfo), defined).VisitKernel(member.kernel));
  }
  int anchor = -1;
  for (size_t m = 0; m + 1 < n; ++m) {
    if (is_output[m]) {
      if (!IsInlinableProducer(*copies[m])) CannotMerge("extra output ", m, " must end in a spatial stage");
      continue;
    }
    if (uses[m] < 1) CannotMerge("the output of member ", m, " is neither read in the group nor an output");
    if (IsInlinableProducer(*copies[m])) continue;  // inlined at each of its loads
    if (uses[m] != 1 || anchor >= 0 || !IsEpilogueAnchor(*copies[m])) {
      CannotMerge("member ", m, " can be neither inlined nor an anchor");
    }
    anchor = static_cast<int>(m);
  }
  if (uses[n - 1] != 0) CannotMerge("the last member's output is read inside the group");
  if (anchor >= 0 && outputs.size() > 1) CannotMerge("a group with a reduction anchor has one output");

  std::vector<Buffer> inputs(group_inputs.size());
  std::vector<InlineValue> values(n);
  LoadRewriter rewriter;
  // The stages before the inlined (or extra output's) last stage of producers, and their
  // local buffers.
  std::vector<Stmt> prelude;
  std::vector<Buffer> prelude_allocs;
  // The extra outputs' bodies (kept alive) and their last stages.
  std::vector<Stmt> extra_bodies;
  std::vector<KernelStage> extra_stages;
  std::vector<Buffer> extra_buffers;
  Buffer anchor_out;
  Stmt anchor_body, root_body;
  for (size_t m = 0; m < n; ++m) {
    const std::vector<KernelParam>& params = copies[m]->params;
    for (size_t i = 0; i < members[m].inputs.size(); ++i) {
      const Buffer& buffer = params[i].buffer;
      int src = members[m].inputs[i];
      if (src >= 0) {
        if (!inputs[src]) {
          inputs[src] = buffer;
        } else {
          rewriter.rename[buffer.get()] = inputs[src];
        }
      } else if (-src - 1 == anchor) {
        rewriter.rename[buffer.get()] = anchor_out;
      } else if (is_output[-src - 1]) {
        rewriter.rename[buffer.get()] = copies[-src - 1]->params.back().buffer;  // loaded back
      } else {
        rewriter.inlined[buffer.get()] = &values[-src - 1];
      }
    }
    Stmt body = rewriter.VisitStmt(copies[m]->body);
    if (static_cast<int>(m) == anchor) {
      anchor_body = body;
      anchor_out = params.back().buffer;
    } else if (m + 1 < n) {
      extra_bodies.push_back(body);
      std::optional<KernelStages> split = SplitStages(extra_bodies.back());
      const KernelStage& stage = split->stages.back();
      if (is_output[m]) {
        extra_stages.push_back(stage);
        extra_buffers.push_back(params.back().buffer);
      } else {
        values[m] = {stage.store->value, IterVarsOf(*stage.block, IterKind::kSpatial)};
      }
      prelude_allocs.insert(prelude_allocs.end(), split->allocs.begin(), split->allocs.end());
      for (size_t i = 0; i + 1 < split->stages.size(); ++i) prelude.push_back(split->stages[i].stmt);
    } else {
      root_body = body;
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]) CannotMerge("group input ", i, " is not read by any member");
  }
  // The prelude runs before the loop nest that stores the extra outputs.
  for (const Stmt& stage : prelude) {
    LoadedBuffers loaded;
    loaded.VisitStmt(stage);
    for (const Buffer& b : extra_buffers) {
      if (loaded.buffers.count(b.get())) CannotMerge("a stage before the loop nest reads the extra output ", b->name);
    }
  }

  Buffer output = copies[n - 1]->params.back().buffer;
  Stmt body = root_body;
  if (anchor >= 0) {
    std::optional<KernelStages> root = SplitStages(root_body);
    if (!root || root->stages.size() != 1 || !root->allocs.empty() || root->stages[0].is_reduce ||
        !IsCanonicalStage(root->stages[0])) {
      CannotMerge("the work after a reduction must end in one elementwise stage");
    }
    if (!SameShape(output, anchor_out)) CannotMerge("the epilogue's result differs in shape or dtype from the reduction's");
    body = AddEpilogue(anchor_body, anchor_out, root->stages[0], defined);
    output = anchor_out;
  } else if (!extra_stages.empty()) {
    std::optional<KernelStages> root = SplitStages(root_body);
    if (!root || root->stages.back().is_reduce || !IsCanonicalStage(root->stages.back())) {
      CannotMerge("the last member of a multi-output group must end in a spatial stage");
    }
    body = ReplaceLastStage(root_body, AddExtraOutputs(root->stages.back(), extra_stages, defined));
  }
  body = WithPrelude(prelude_allocs, prelude, body);
  std::vector<KernelParam> params;
  for (const Buffer& b : inputs) params.push_back({b, nullptr});
  std::vector<std::string> names = input_names;
  for (size_t o : outputs) {
    const Buffer& written = o + 1 == n ? output : copies[o]->params.back().buffer;
    params.push_back({written, nullptr});
    // Output buffers are named after their members' outputs; several are made unique among
    // the parameters.
    std::string name = copies[o]->params.back().buffer->name;
    for (int suffix = 1; outputs.size() > 1 && std::find(names.begin(), names.end(), name) != names.end(); ++suffix) {
      name = copies[o]->params.back().buffer->name + "_" + std::to_string(suffix);
    }
    names.push_back(name);
  }
  KernelFunction named = BufferRenamer(params, names).VisitKernel(MakeKernelFunction(params, body));
  KernelFunction merged = BindSymbolicDims(named, defined);
  return anchor >= 0 ? WithOpPattern(merged, GetOpPattern(*members[anchor].kernel)) : WithOpPattern(merged);
}

}  // namespace rxt
