// Every pass by name (pass/pass_registry.h): a new pass adds one row here and one line in
// transform/passes.h.
#include <functional>

#include "rxt/pass/pass_registry.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

Pass BindParamsFromOptions();
Pass GradientFromOptions();

std::vector<PassEntry> PassTable() {
  return {
      {"WellFormed", "Checks the module is well formed; throws listing every problem.", WellFormed},
      {"Normalize", "Re-normalizes every function: struct info, A-normal form, merged and non-empty blocks.",
       Normalize},
      {"DeadCodeElimination", "Removes unused pure bindings and empty blocks.", DeadCodeElimination},
      {"CanonicalizeBindings", "Replaces variables bound to another variable (trivial aliases) by the original.",
       CanonicalizeBindings},
      {"BindParams", "Replaces named parameters by constant tensors (tensors from the BindParams.* options).",
       BindParamsFromOptions},
      {"ConvertToDataflow", "Groups runs of pure bindings into dataflow blocks.", ConvertToDataflow},
      {"LegalizeOps", "Lowers op calls to call_kernel of kernels generated from compute definitions.", LegalizeOps},
      {"FuseOps", "Groups chains of fusible kernel calls into primitive functions (one per future kernel).", FuseOps},
      {"FuseKernels", "Merges each primitive function made by FuseOps into one kernel.", FuseKernels},
      {"ParallelizeLoops", "Marks outer loops whose iterations write disjoint elements parallel.", ParallelizeLoops},
      {"LegalizeLibraryCalls",
       "Replaces the op calls a kernel library's patterns take (matmul, conv2d + bias add + ReLU...) by call_extern "
       "of its functions (option LegalizeLibraryCalls.libraries, e.g. \"dnnl\"; libraries come from plugins).",
       [] { return LegalizeLibraryCalls(); }},
      {"Gradient",
       "Adds <func>_adjoint: reverse-mode differentiation (options Gradient.func_name, Gradient.require_grads, "
       "Gradient.target_index).",
       GradientFromOptions},
      {"SimplifyTransposes", "Removes transposes differentiation leaves behind (permute_dims pairs, matmul operands).",
       SimplifyTransposes},
  };
}

/// BindParams by name: the function and the tensors come from the context's options.
Pass BindParamsFromOptions() {
  auto run = [](IRModule module, const PassContext& context) {
    const std::string prefix = "BindParams.param.";
    std::map<std::string, Tensor> params;
    for (const auto& [key, value] : context.options) {
      if (key.rfind(prefix, 0) != 0) continue;
      if (!value.is<Tensor>()) {
        Throw(ErrorCode::kInvalidArgument, "pass option ", key, " holds a value of kind ", value.KindName(),
              "; expected tensor");
      }
      params.emplace(key.substr(prefix.size()), value.get<Tensor>());
    }
    if (params.empty()) {
      Throw(ErrorCode::kInvalidArgument,
            "BindParams by name needs its tensors as pass options BindParams.param.<name> (and optionally "
            "BindParams.func_name); from C++, use BindParams(func_name, params)");
    }
    std::string func_name = context.GetOption<std::string>("BindParams.func_name", "main");
    // The inner pass runs as the body of this one: no second round of instruments.
    return BindParams(func_name, std::move(params))(std::move(module), PassContext());
  };
  return CreateModulePass(run, "BindParams");
}

/// Gradient by name: the function, parameters and target come from the context's options.
Pass GradientFromOptions() {
  auto run = [](IRModule module, const PassContext& context) {
    std::string func_name = context.GetOption<std::string>("Gradient.func_name", "main");
    std::optional<std::vector<int>> require_grads;
    if (const AttrValue* value = context.FindOption("Gradient.require_grads")) {
      std::optional<std::vector<int64_t>> list = value->AsIntList();
      if (!list) {
        Throw(ErrorCode::kInvalidArgument, "pass option Gradient.require_grads holds a value of kind ",
              value->KindName(), "; expected a list of ints");
      }
      require_grads.emplace();
      for (int64_t index : *list) {
        if (index < 0 || index > (1 << 30)) {
          Throw(ErrorCode::kInvalidArgument, "pass option Gradient.require_grads: index ", index, " is out of range");
        }
        require_grads->push_back(static_cast<int>(index));
      }
    }
    int target_index = static_cast<int>(context.GetOption<int64_t>("Gradient.target_index", 0));
    return Gradient(func_name, std::move(require_grads), target_index)(std::move(module), PassContext());
  };
  return CreateModulePass(run, "Gradient");
}

}  // namespace

void RegisterStandardPasses(PassRegistry& registry) {
  for (const PassEntry& entry : PassTable()) registry.Register(entry);
}

}  // namespace rxt
