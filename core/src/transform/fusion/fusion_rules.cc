/// Structural checks on kernels for the fusion passes (fusion_rules.h).
#include "fusion_rules.h"

#include <algorithm>
#include <cctype>

#include "transform/analysis/kernel_stages.h"

namespace rxt {
namespace {

/// The single stage of |kernel|, when it has exactly one and it writes the last parameter.
const KernelStage* OnlyStage(const KernelFunctionNode& kernel, std::optional<KernelStages>& split) {
  split = SplitStages(kernel.body);
  if (!split || split->stages.size() != 1 || !split->allocs.empty()) return nullptr;
  const KernelStage& stage = split->stages[0];
  if (!IsCanonicalStage(stage) || stage.store->buffer != kernel.params.back().buffer) return nullptr;
  return &stage;
}

}  // namespace

bool HasFusibleStructure(const KernelFunctionNode& kernel) {
  if (kernel.params.empty() || !kernel.body) return false;
  for (const KernelParam& param : kernel.params) {
    if (!param.buffer || !param.buffer->strides.empty()) return false;
  }
  return SplitStages(kernel.body).has_value();
}

bool IsInlinableProducer(const KernelFunctionNode& kernel) {
  if (!HasFusibleStructure(kernel)) return false;
  std::optional<KernelStages> split = SplitStages(kernel.body);
  const KernelStage& last = split->stages.back();
  if (last.is_reduce || !IsCanonicalStage(last) || last.store->buffer != kernel.params.back().buffer) return false;
  for (size_t i = 0; i + 1 < split->stages.size(); ++i) {
    const Buffer& written = split->stages[i].store->buffer;
    if (std::find(split->allocs.begin(), split->allocs.end(), written) == split->allocs.end()) return false;
  }
  for (const LoadNode* load : CollectLoads(last.store->value)) {
    if (load->buffer == last.store->buffer) return false;
  }
  return true;
}

bool IsEpilogueAnchor(const KernelFunctionNode& kernel) {
  if (!HasFusibleStructure(kernel)) return false;
  std::optional<KernelStages> split = SplitStages(kernel.body);
  const KernelStage& last = split->stages.back();
  if (!last.is_reduce || !IsCanonicalStage(last) || last.store->buffer != kernel.params.back().buffer) return false;
  for (size_t i = 0; i + 1 < split->stages.size(); ++i) {
    const KernelStage& stage = split->stages[i];
    if (stage.is_reduce) return false;
    bool local = false;
    for (const Buffer& b : split->allocs) local |= b == stage.store->buffer;
    if (!local) return false;
  }
  return true;
}

bool ReadsParamElementwise(const KernelFunctionNode& kernel, size_t param) {
  if (!HasFusibleStructure(kernel) || param + 1 >= kernel.params.size()) return false;
  std::optional<KernelStages> split;
  const KernelStage* stage = OnlyStage(kernel, split);
  if (stage == nullptr || stage->is_reduce) return false;
  std::vector<PrimVar> out = IterVarsOf(*stage->block, IterKind::kSpatial);
  for (const LoadNode* load : CollectLoads(stage->store->value)) {
    if (load->buffer == kernel.params[param].buffer &&
        !IsSameElementIndex(load->indices, out, stage->store->buffer->shape)) {
      return false;
    }
  }
  return true;
}

std::string BaseKernelName(const std::string& name) {
  size_t underscore = name.rfind('_');
  if (underscore == std::string::npos || underscore == 0 || underscore + 1 == name.size()) return name;
  for (size_t i = underscore + 1; i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return name;
  }
  return name.substr(0, underscore);
}

}  // namespace rxt
