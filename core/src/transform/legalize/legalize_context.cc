/// LegalizeContext: where legalizations put their kernels. Structurally equal kernels are
/// shared: twenty `add`s of one shape make one kernel.
#include "rxt/ir/equality.h"
#include "rxt/transform/legalize/legalize.h"

namespace rxt {

LegalizeContext::LegalizeContext(IRModule& module, BlockBuilder& builder) : module_(module), builder_(builder) {
  for (const IRModule::Entry& entry : module.entries()) {
    if (entry.kernel) kernels_by_hash_.emplace(StructuralHash(entry.kernel), entry.name);
  }
}

std::string LegalizeContext::AddKernel(const std::string& name_hint, KernelFunction kernel) {
  size_t hash = StructuralHash(kernel);
  auto [begin, end] = kernels_by_hash_.equal_range(hash);
  for (auto it = begin; it != end; ++it) {
    KernelFunction existing = module_.FindKernel(it->second);
    if (existing && StructuralEqual(existing, kernel)) return it->second;
  }
  std::string name = module_.UniqueName(name_hint);
  module_.AddKernel(name, std::move(kernel));
  kernels_by_hash_.emplace(hash, name);
  return name;
}

Expr LegalizeContext::CallKernel(const std::string& name_hint, KernelFunction kernel, std::vector<Expr> args,
                                 std::vector<StructInfo> outputs) {
  std::string name = AddKernel(name_hint, std::move(kernel));
  return MakeOpCall("call_kernel", {MakeGlobalVar(name), MakeTuple(std::move(args))}, {}, std::move(outputs));
}

const ConstantNode* LegalizeContext::KnownConstant(const Expr& arg) const {
  if (const auto* constant = arg->As<ConstantNode>()) return constant;
  if (const auto* var = arg->As<VarNode>()) {
    auto it = constants_.find(var);
    if (it != constants_.end()) return it->second;
  }
  return nullptr;
}

void LegalizeContext::RecordConstant(const Var& var, const ConstantNode* constant) { constants_[var.get()] = constant; }

}  // namespace rxt
