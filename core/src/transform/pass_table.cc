// Every pass by name (pass/pass_registry.h): a new pass adds one row here and one line in
// transform/passes.h.
#include <algorithm>
#include <functional>

#include "rxt/pass/pass_registry.h"
#include "rxt/runtime/safetensors.h"
#include "rxt/support/message_text.h"
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
      {"DeadCodeElimination", "Removes unused pure bindings and empty blocks.", DeadCodeElimination,
       {{"remove_unused_kernels", "bool, false: also drop kernel functions nothing calls"}}},
      {"CanonicalizeBindings", "Replaces variables bound to another variable (trivial aliases) by the original.",
       CanonicalizeBindings},
      {"BindParams", "Replaces named parameters by constant tensors (tensors from the BindParams.* options).",
       BindParamsFromOptions,
       {{"func_name", "string, main: the function whose parameters are bound"},
        {"params", "string: a .safetensors file; each tensor binds the parameter of its name"}}},
      {"ConvertToDataflow", "Groups runs of pure bindings into dataflow blocks.", ConvertToDataflow,
       {{"min_size", "int, 2: shorter runs of pure bindings stay out of dataflow blocks"}}},
      {"LegalizeOps", "Lowers op calls to call_kernel of kernels generated from compute definitions.", LegalizeOps,
       {{"allow_missing", "bool, false: leave calls of ops without a legalization as they are"}}},
      {"FuseOps", "Groups chains of fusible kernel calls into primitive functions (one per future kernel).", FuseOps},
      {"FuseKernels", "Merges each primitive function made by FuseOps into one kernel.", FuseKernels},
      {"ParallelizeLoops", "Marks outer loops whose iterations write disjoint elements parallel.", ParallelizeLoops},
      {"LegalizeLibraryCalls",
       "Replaces the op calls a kernel library's patterns take (matmul, conv2d + bias add + ReLU...) by call_extern "
       "of its functions (option LegalizeLibraryCalls.libraries, e.g. \"dnnl\"; libraries come from plugins).",
       [] { return LegalizeLibraryCalls(); },
       {{"libraries", "string: comma-separated kernel libraries (\"dnnl\")"}}},
      {"Gradient",
       "Adds <func>_adjoint: reverse-mode differentiation (options Gradient.func_name, Gradient.require_grads, "
       "Gradient.target_index).",
       GradientFromOptions,
       {{"func_name", "string, main: the function to differentiate"},
        {"require_grads", "list of parameter names or indices: the parameters to differentiate, in order "
                          "(default: every float tensor parameter)"},
        {"target_index", "int, 0: the field of a tuple result that is the loss"}}},
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
    if (const AttrValue* file = context.FindOption("BindParams.params")) {
      if (!file->is<std::string>()) {
        Throw(ErrorCode::kInvalidArgument, "pass option BindParams.params holds a value of kind ", file->KindName(),
              "; expected the path of a .safetensors file");
      }
      for (auto& [name, tensor] : LoadSafetensors(file->get<std::string>()).tensors) params.emplace(name, tensor);
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

/// Gradient.require_grads: a list of parameter indices or names ("w1" or "%w1") of @func_name.
std::vector<int> RequiredIndices(const IRModule& module, const std::string& func_name, const AttrValue& value) {
  auto fail = [&](const std::string& problem) -> std::vector<int> {
    Throw(ErrorCode::kInvalidArgument, "pass option Gradient.require_grads: ", problem);
  };
  if (!value.is<AttrArray>()) return fail(StrCat("expected a list of parameter names or indices, got ", value.KindName()));
  Function f = module.FindFunction(func_name);
  std::vector<std::string> names;
  if (f != nullptr) {
    for (const Var& p : f->params) names.push_back(p->name);
  }
  std::vector<int> indices;
  for (const AttrValue& item : value.get<AttrArray>()) {
    if (item.is<int64_t>()) {
      int64_t index = item.get<int64_t>();
      if (index < 0 || index > (1 << 30)) fail(StrCat("index ", index, " is out of range"));
      indices.push_back(static_cast<int>(index));
    } else if (item.is<std::string>()) {
      std::string name = item.get<std::string>();
      if (!name.empty() && name[0] == '%') name = name.substr(1);
      auto it = std::find(names.begin(), names.end(), name);
      if (f == nullptr) fail(StrCat("the module has no function @", func_name));
      if (it == names.end()) {
        fail(StrCat("@", func_name, " has no parameter ", Quoted(name), "; its parameters: ", JoinNames(names)));
      }
      indices.push_back(static_cast<int>(it - names.begin()));
    } else {
      fail(StrCat("expected parameter names or indices, got ", item.KindName()));
    }
  }
  return indices;
}

/// Gradient by name: the function, parameters and target come from the context's options.
Pass GradientFromOptions() {
  auto run = [](IRModule module, const PassContext& context) {
    std::string func_name = context.GetOption<std::string>("Gradient.func_name", "main");
    std::optional<std::vector<int>> require_grads;
    if (const AttrValue* value = context.FindOption("Gradient.require_grads")) {
      require_grads = RequiredIndices(module, func_name, *value);
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
