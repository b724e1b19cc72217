/// Op pattern kinds of kernels (transform/analysis/op_pattern.h), derived from their loop nests.
#include "rxt/transform/analysis/op_pattern.h"

#include <algorithm>
#include <unordered_set>

#include "kernel_stages.h"

namespace rxt {
namespace {

struct KindName {
  OpPatternKind kind;
  const char* name;
};
constexpr KindName kKindNames[] = {
    {OpPatternKind::kElementwise, "elementwise"},   {OpPatternKind::kBroadcast, "broadcast"},
    {OpPatternKind::kInjective, "injective"},       {OpPatternKind::kCommReduce, "comm_reduce"},
    {OpPatternKind::kOutEWiseFusable, "out_ewise_fusable"}, {OpPatternKind::kOpaque, "opaque"},
};

/// How a load reads its buffer relative to the element being stored at |out| (the block's
/// spatial iterators): at exactly that index, at an in-order selection of its iterators and
/// constants (a broadcast), or anyhow else.
OpPatternKind LoadKind(const LoadNode& load, const std::vector<PrimVar>& out) {
  if (IsIdentityIndex(load.indices, out)) return OpPatternKind::kElementwise;
  size_t next = 0;  // iterators must appear in order, each at most once
  for (const PrimExpr& index : load.indices) {
    if (index->kind == PrimKind::kIntImm) continue;
    auto it = std::find(out.begin() + static_cast<std::ptrdiff_t>(next), out.end(), index);
    if (it == out.end()) return OpPatternKind::kInjective;
    next = static_cast<size_t>(it - out.begin()) + 1;
  }
  return OpPatternKind::kBroadcast;
}

PrimExpr StripCasts(PrimExpr e) {
  while (const auto* cast = e->As<CastNode>()) e = cast->value;
  return e;
}

/// acc + a * b with a and b loads (perhaps converted): a multiply-accumulate.
bool IsMultiplyAccumulate(const StoreNode& store) {
  const auto* add = store.value->As<BinaryNode>();
  if (add == nullptr || add->op != BinaryOp::kAdd) return false;
  for (const PrimExpr* product : {&add->a, &add->b}) {
    const PrimExpr& acc = product == &add->a ? add->b : add->a;
    const auto* acc_load = acc->As<LoadNode>();
    const auto* mul = (*product)->As<BinaryNode>();
    if (acc_load == nullptr || acc_load->buffer != store.buffer || mul == nullptr || mul->op != BinaryOp::kMul) continue;
    if (StripCasts(mul->a)->kind == PrimKind::kLoad && StripCasts(mul->b)->kind == PrimKind::kLoad) return true;
  }
  return false;
}

OpPatternKind StageKind(const KernelStage& stage) {
  if (!IsCanonicalStage(stage)) return OpPatternKind::kOpaque;
  if (stage.is_reduce) {
    return IsMultiplyAccumulate(*stage.store) ? OpPatternKind::kOutEWiseFusable : OpPatternKind::kCommReduce;
  }
  std::vector<PrimVar> out = IterVarsOf(*stage.block, IterKind::kSpatial);
  OpPatternKind kind = OpPatternKind::kElementwise;
  for (const LoadNode* load : CollectLoads(stage.store->value)) {
    if (load->buffer == stage.store->buffer) return OpPatternKind::kOpaque;  // reads what it writes
    kind = std::max(kind, LoadKind(*load, out));
  }
  return kind;
}

}  // namespace

const char* OpPatternName(OpPatternKind kind) {
  for (const KindName& k : kKindNames) {
    if (k.kind == kind) return k.name;
  }
  return "opaque";
}

OpPatternKind OpPatternFromName(const std::string& name) {
  for (const KindName& k : kKindNames) {
    if (name == k.name) return k.kind;
  }
  return OpPatternKind::kOpaque;
}

OpPatternKind AnalyzeOpPattern(const KernelFunctionNode& kernel) {
  if (!kernel.body) return OpPatternKind::kOpaque;
  std::optional<KernelStages> split = SplitStages(kernel.body);
  if (!split) return OpPatternKind::kOpaque;
  const std::vector<KernelStage>& stages = split->stages;
  if (stages.size() == 1) return StageKind(stages[0]);
  std::unordered_set<const BufferNode*> locals;
  for (const Buffer& b : split->allocs) locals.insert(b.get());
  for (size_t i = 0; i < stages.size(); ++i) {
    OpPatternKind kind = StageKind(stages[i]);
    if (kind == OpPatternKind::kOpaque) return kind;
    if (!stages[i].is_reduce) continue;
    // One reduction after spatial stages into local buffers (e.g. padding), last — or, for a
    // sum, followed by spatial stages only (rounding a wide accumulator, dividing by a count).
    for (size_t j = 0; j < i; ++j) {
      if (!locals.count(stages[j].store->buffer.get())) return OpPatternKind::kOpaque;
    }
    if (i + 1 == stages.size()) return kind;
    if (kind != OpPatternKind::kCommReduce || !locals.count(stages[i].store->buffer.get())) {
      return OpPatternKind::kOpaque;
    }
    for (size_t j = i + 1; j < stages.size(); ++j) {
      if (stages[j].is_reduce || StageKind(stages[j]) == OpPatternKind::kOpaque) return OpPatternKind::kOpaque;
    }
    return kind;
  }
  return OpPatternKind::kInjective;
}

OpPatternKind GetOpPattern(const KernelFunctionNode& kernel) {
  const AttrValue* value = kernel.attrs.Find(kOpPatternAttr);
  if (value == nullptr || !value->is<std::string>()) return OpPatternKind::kOpaque;
  return OpPatternFromName(value->get<std::string>());
}

KernelFunction WithOpPattern(const KernelFunction& kernel) { return WithOpPattern(kernel, AnalyzeOpPattern(*kernel)); }

KernelFunction WithOpPattern(const KernelFunction& kernel, OpPatternKind kind) {
  Attrs attrs = kernel->attrs;
  attrs.Set(kOpPatternAttr, OpPatternName(kind));
  return MakeKernelFunction(kernel->params, kernel->body, std::move(attrs));
}

}  // namespace rxt
