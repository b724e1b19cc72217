/// FuseKernels: turns every function FuseOps made for a group (attribute `primitive = true`)
/// into one kernel (TVM's FuseTIR). The function's body is a dataflow block of call_kernel
/// bindings; kernel_merge.h merges their kernels: producers are inlined into their consumers'
/// loads, elementwise work after a reduction runs in the reduction's loop nest, and a
/// function returning a Tuple becomes a kernel with one output buffer per item (a call_kernel
/// with several out_sinfo). Each call of
/// the function becomes a call_kernel of the merged kernel, which takes the function's name
/// (structurally equal merged kernels are shared); the function goes away, and so do the
/// kernels only it called. A function that cannot be merged stays as it is (still correct,
/// just not fused).
#include <unordered_map>
#include <unordered_set>

#include "fusion_rules.h"
#include "kernel_merge.h"
#include "rxt/ir/equality.h"
#include "rxt/ir/mutator.h"
#include "rxt/ir/visitor.h"
#include "rxt/ir/op.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

bool IsPrimitive(const FunctionNode& function) {
  const AttrValue* value = function.attrs.Find(kPrimitiveAttr);
  return value != nullptr && value->is<bool>() && value->get<bool>();
}

/// The kernel called by |value| (a call_kernel), or null.
const CallNode* AsCallKernel(const Expr& value, std::string* kernel) {
  const auto* call = value->As<CallNode>();
  const OpDef* op = call ? AsOp(call->callee) : nullptr;
  if (op == nullptr || op->name() != "call_kernel" || call->args.size() != 2) return nullptr;
  const auto* gv = call->args[0]->As<GlobalVarNode>();
  if (gv == nullptr || call->args[1]->kind != ExprKind::kTuple) return nullptr;
  *kernel = gv->name;
  return call;
}

/// The members of a primitive function, in the form MergeKernels takes, and which of them it
/// returns (|outputs|); throws kUnimplemented when its body is not one dataflow block of
/// call_kernel bindings.
std::vector<MergeMember> ReadMembers(const FunctionNode& function, const IRModule& module,
                                     std::vector<std::string>* kernel_names, std::vector<size_t>* outputs) {
  const SeqExprNode& body = *function.body;
  if (body.blocks.size() != 1 || !body.blocks[0].is_dataflow) {
    Throw(ErrorCode::kUnimplemented, "FuseKernels: the body must be one dataflow block");
  }
  std::unordered_map<const ExprNode*, int> source;  // parameter i: i; member m: -(m + 1)
  for (size_t i = 0; i < function.params.size(); ++i) source[function.params[i].get()] = static_cast<int>(i);
  std::vector<MergeMember> members;
  const std::vector<Binding>& bindings = body.blocks[0].bindings;
  for (const Binding& binding : bindings) {
    std::string name;
    const CallNode* call = binding.is_match_cast() ? nullptr : AsCallKernel(binding.value, &name);
    KernelFunction kernel = call ? module.FindKernel(name) : nullptr;
    if (kernel == nullptr || call->sinfo_args.size() != 1) {
      Throw(ErrorCode::kUnimplemented, "FuseKernels: every binding must call one kernel with one output");
    }
    MergeMember member{kernel, {}, {}};
    for (const Expr& arg : call->args[1]->As<TupleNode>()->fields) {
      auto it = source.find(arg.get());
      if (it == source.end()) {
        Throw(ErrorCode::kUnimplemented, "FuseKernels: an argument is neither a parameter nor a member");
      }
      member.inputs.push_back(it->second);
      member.param_sinfo.push_back(arg->struct_info);
    }
    member.param_sinfo.push_back(call->sinfo_args[0]);
    source[binding.var.get()] = -static_cast<int>(members.size()) - 1;
    members.push_back(std::move(member));
    kernel_names->push_back(name);
  }
  // The function returns its last binding, or a Tuple of bindings ending with the last.
  std::vector<Expr> results = {body.body};
  if (const auto* tuple = body.body->As<TupleNode>()) results = tuple->fields;
  for (const Expr& result : results) {
    auto it = source.find(result.get());
    if (it == source.end() || it->second >= 0) {
      Throw(ErrorCode::kUnimplemented, "FuseKernels: the function must return bindings of its block");
    }
    outputs->push_back(static_cast<size_t>(-it->second - 1));
  }
  if (members.empty() || outputs->back() + 1 != members.size()) {
    Throw(ErrorCode::kUnimplemented, "FuseKernels: the function must return its last binding (last)");
  }
  return members;
}

/// Replaces calls of merged functions by call_kernel of their kernels.
class CallRewriter : public ExprMutator {
 public:
  CallRewriter(const IRModule* module, const std::unordered_map<std::string, std::string>& kernel_of)
      : ExprMutator(module), kernel_of_(kernel_of) {}

  Expr VisitCall(const Expr& e, const CallNode& node) override {
    Expr visited = ExprMutator::VisitCall(e, node);
    const auto* gv = node.callee->As<GlobalVarNode>();
    auto it = gv ? kernel_of_.find(gv->name) : kernel_of_.end();
    if (it == kernel_of_.end()) return visited;
    // Several outputs: one out_sinfo each (the call's result is then their Tuple).
    std::vector<StructInfo> outputs = {e->struct_info};
    if (const auto* tuple = e->struct_info->As<TupleSINode>()) outputs = tuple->fields;
    return MakeOpCall("call_kernel", {MakeGlobalVar(it->second), MakeTuple(visited->As<CallNode>()->args)}, {},
                      std::move(outputs));
  }

 private:
  const std::unordered_map<std::string, std::string>& kernel_of_;
};

/// The kernels named anywhere in the module's functions.
class KernelRefCollector : public ExprVisitor {
 public:
  void VisitGlobalVar(const GlobalVarNode& node) override { names.insert(node.name); }
  std::unordered_set<std::string> names;
};

IRModule FuseKernelsInModule(IRModule module) {
  std::unordered_map<std::string, std::string> kernel_of;  // merged function -> its kernel
  std::unordered_set<std::string> member_kernels;
  std::vector<std::pair<std::string, KernelFunction>> merged;
  for (const IRModule::Entry& entry : module.entries()) {
    if (!entry.function || !IsPrimitive(*entry.function)) continue;
    try {
      std::vector<std::string> names;
      std::vector<size_t> outputs;
      std::vector<MergeMember> members = ReadMembers(*entry.function, module, &names, &outputs);
      std::vector<StructInfo> inputs;
      std::vector<std::string> input_names;
      for (const Var& param : entry.function->params) {
        inputs.push_back(param->struct_info);
        input_names.push_back(param->name);
      }
      merged.emplace_back(entry.name, MergeKernels(members, inputs, input_names, outputs));
      member_kernels.insert(names.begin(), names.end());
    } catch (const Error& error) {
      if (error.code() != ErrorCode::kUnimplemented) throw;
    }
  }
  if (merged.empty()) return module;

  std::unordered_multimap<size_t, std::string> kernels_by_hash;
  for (const IRModule::Entry& entry : module.entries()) {
    if (entry.kernel) kernels_by_hash.emplace(StructuralHash(entry.kernel), entry.name);
  }
  std::unordered_set<std::string> merged_functions;
  for (const auto& [function, kernel] : merged) merged_functions.insert(function);
  module.RemoveIf([&](const IRModule::Entry& entry) { return merged_functions.count(entry.name) > 0; });
  for (auto& [function, kernel] : merged) {
    size_t hash = StructuralHash(kernel);
    std::string name;
    auto [begin, end] = kernels_by_hash.equal_range(hash);
    for (auto it = begin; it != end && name.empty(); ++it) {
      if (StructuralEqual(module.FindKernel(it->second), kernel)) name = it->second;
    }
    if (name.empty()) {
      name = module.UniqueName(function);
      module.AddKernel(name, kernel);
      kernels_by_hash.emplace(hash, name);
    }
    kernel_of[function] = name;
  }

  const IRModule input = module;
  for (const IRModule::Entry& entry : input.entries()) {
    if (!entry.function) continue;
    Function rewritten = CallRewriter(&input, kernel_of).VisitFunction(entry.function);
    if (rewritten != entry.function) module.Add(entry.name, rewritten);
  }
  KernelRefCollector refs;
  for (const IRModule::Entry& entry : module.entries()) {
    if (entry.function) refs.VisitFunction(*entry.function);
  }
  module.RemoveIf([&](const IRModule::Entry& entry) {
    return member_kernels.count(entry.name) > 0 && !refs.names.count(entry.name);
  });
  return module;
}

}  // namespace

Pass FuseKernels() { return CreateModulePass(FuseKernelsInModule, "FuseKernels", 1, {}); }

}  // namespace rxt
