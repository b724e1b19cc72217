// Every pass by name (pass/pass_registry.h): a new pass adds one row here and one line in
// transform/passes.h.
#include <algorithm>
#include <functional>

#include "rxt/pass/pass_registry.h"
#include "rxt/runtime/safetensors.h"
#include "rxt/support/message_text.h"
#include "rxt/transform/passes.h"
#include "rxt/transform/training/append_loss.h"
#include "rxt/transform/training/setup_trainer.h"

namespace rxt {
namespace {

Pass BindParamsFromOptions();
Pass BindSymbolicVarsFromOptions();
Pass GradientFromOptions();
Pass AppendLossFromOptions();
Pass SetupTrainerFromOptions();

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
      {"BindSymbolicVars", "Fixes symbolic dims of a function to numbers (options BindSymbolicVars.names, .values).",
       BindSymbolicVarsFromOptions,
       {{"func_name", "string, main: the function whose dims are bound"},
        {"names", "list of names, required: the symbolic dims, e.g. [batch]"},
        {"values", "list of ints, required: their values, in the same order, e.g. [64]"}}},
      {"ConvertToDataflow", "Groups runs of pure bindings into dataflow blocks.", ConvertToDataflow,
       {{"min_size", "int, 2: shorter runs of pure bindings stay out of dataflow blocks"}}},
      {"LowerGradientOf",
       "Replaces each gradient_of(y, wrt) by the inlined backward pass of the bindings computing y from wrt.",
       [] { return LowerGradientOf(); }},
      {"LegalizeOps", "Lowers op calls to call_kernel of kernels generated from compute definitions.", LegalizeOps,
       {{"allow_missing", "bool, false: leave calls of ops without a legalization as they are"}}},
      {"FuseOps", "Groups chains of fusible kernel calls into primitive functions (one per future kernel).", FuseOps},
      {"FuseKernels", "Merges each primitive function made by FuseOps into one kernel.", FuseKernels},
      {"ParallelizeLoops", "Marks outer loops whose iterations write disjoint elements parallel.", ParallelizeLoops},
      {"ReorderForMemory",
       "Moves calls whose results only reach the function's result (parameter updates) to just after what they "
       "read, when that frees a tensor sooner (a training step's gradients share memory).",
       ReorderForMemory},
      {"ScheduleCollectives",
       "Moves each ccl.allreduce_start to just after what it reads (in order), so that the communication of "
       "a training step's gradients overlaps with the rest of its backward pass.",
       ScheduleCollectives},
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
      {"FoldBatchNorm",
       "Folds inference batch normalizations of convolutions with constant weights (BindParams) into the "
       "convolution's weights and a bias add.",
       FoldBatchNorm},
      {"TrimConvTaps",
       "Cuts the kernel taps of convolutions with constant weights that read only padding, shrinking the padding "
       "to match.",
       TrimConvTaps},
      {"SimplifyTransposes", "Removes transposes differentiation leaves behind (permute_dims pairs, matmul operands).",
       SimplifyTransposes},
      {"AppendLoss", "Adds <func>_loss: the backbone function followed by a loss of a loaded plugin.",
       AppendLossFromOptions,
       {{"func_name", "string, backbone: the backbone function"},
        {"loss", "string, required: the loss by name (rxt plugins lists them), e.g. cross_entropy"},
        {"loss_options", "string: the loss's options in attribute syntax, e.g. \"reduction=\\\"sum\\\"\""},
        {"num_backbone_outputs", "int, 1: results of the backbone that the loss takes (the rest are states)"},
        {"new_func_name", "string: the new function's name (default <func_name>_loss)"}}},
      {"SetupTrainer", "Turns a backbone module (@backbone, param_num, state_num) into a trainer module.",
       SetupTrainerFromOptions,
       {{"loss", "string, required: the loss by name, e.g. cross_entropy"},
        {"loss_options", "string: the loss's options in attribute syntax"},
        {"optimizer", "string, required: the optimizer by name, e.g. sgd"},
        {"optimizer_options", "string: the optimizer's options, e.g. \"lr=0.01, weight_decay=0.01\""},
        {"legalize", "bool, true: run LegalizeOps at the end"},
        {"data_parallel", "bool, false: combine gradients over the ranks (ccl.allreduce) before the optimizer"},
        {"bucket_bytes", "int, 0: the most bytes of gradients in one allreduce (0: 1 MiB with overlap, 25 MiB "
                         "without)"},
        {"overlap", "bool, false: start each bucket's allreduce as the backward pass completes it"},
        {"gradient_reduction", "string: \"mean\" or \"sum\" (default: the loss's reduction)"},
        {"accumulation", "bool, false: add @accumulate_step and @apply_step (gradient accumulation)"}}},
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

/// BindSymbolicVars by name: BindSymbolicVars(func_name=backbone, names=[batch], values=[64]).
Pass BindSymbolicVarsFromOptions() {
  auto run = [](IRModule module, const PassContext& context) {
    const AttrValue* names = context.FindOption("BindSymbolicVars.names");
    const AttrValue* values = context.FindOption("BindSymbolicVars.values");
    std::optional<std::vector<int64_t>> numbers = values != nullptr ? values->AsIntList() : std::nullopt;
    if (names == nullptr || !names->is<AttrArray>() || !numbers || names->get<AttrArray>().size() != numbers->size()) {
      Throw(ErrorCode::kInvalidArgument,
            "BindSymbolicVars by name needs options names (a list of dim names) and values (as many ints): "
            "BindSymbolicVars(func_name=backbone, names=[batch], values=[64])");
    }
    std::map<std::string, int64_t> bound;
    for (size_t i = 0; i < numbers->size(); ++i) {
      const AttrValue& name = names->get<AttrArray>()[i];
      if (!name.is<std::string>()) Throw(ErrorCode::kInvalidArgument, "BindSymbolicVars.names: expected names, got ", name.KindName());
      bound[name.get<std::string>()] = (*numbers)[i];
    }
    std::string func_name = context.GetOption<std::string>("BindSymbolicVars.func_name", "main");
    return BindSymbolicVars(func_name, std::move(bound))(std::move(module), PassContext());
  };
  return CreateModulePass(run, "BindSymbolicVars");
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

/// A required string option of |pass|.
std::string RequiredString(const PassContext& context, const std::string& pass, const std::string& option,
                           const std::string& example) {
  std::string value = context.GetOption<std::string>(pass + "." + option, "");
  if (value.empty()) {
    Throw(ErrorCode::kInvalidArgument, pass, " by name needs the option ", option, " (e.g. ", pass, "(", option, "=",
          example, "))");
  }
  return value;
}

/// AppendLoss by name: the loss comes from the process's plugins by name, for the struct info of
/// the backbone's first output.
Pass AppendLossFromOptions() {
  auto run = [](IRModule module, const PassContext& context) {
    std::string func_name = context.GetOption<std::string>("AppendLoss.func_name", "backbone");
    std::string loss = RequiredString(context, "AppendLoss", "loss", "cross_entropy");
    int64_t outputs = context.GetOption<int64_t>("AppendLoss.num_backbone_outputs", 1);
    if (outputs < 1 || outputs > (1 << 20)) {
      Throw(ErrorCode::kInvalidArgument, "pass option AppendLoss.num_backbone_outputs is ", outputs, "; expected 1 or more");
    }
    Function backbone = module.GetFunction(func_name);
    StructInfo prediction = backbone->ret_sinfo;
    if (const auto* tuple = prediction->As<TupleSINode>(); tuple != nullptr && !tuple->fields.empty()) {
      prediction = tuple->fields[0];
    }
    Function loss_function = DefaultTrainingProvider().BuildLoss(
        loss, context.GetOption<std::string>("AppendLoss.loss_options", ""), prediction);
    return AppendLoss(std::move(module), func_name, loss_function, static_cast<int>(outputs),
                      context.GetOption<std::string>("AppendLoss.new_func_name", ""));
  };
  return CreateModulePass(run, "AppendLoss");
}

/// SetupTrainer by name: loss and optimizer by name, from the process's plugins.
Pass SetupTrainerFromOptions() {
  auto run = [](IRModule module, const PassContext& context) {
    TrainerSetup setup;
    setup.loss = {RequiredString(context, "SetupTrainer", "loss", "cross_entropy"),
                  context.GetOption<std::string>("SetupTrainer.loss_options", "")};
    setup.optimizer = {RequiredString(context, "SetupTrainer", "optimizer", "sgd"),
                       context.GetOption<std::string>("SetupTrainer.optimizer_options", "")};
    setup.legalize = context.GetOption<bool>("SetupTrainer.legalize", true);
    setup.data_parallel = context.GetOption<bool>("SetupTrainer.data_parallel", false);
    setup.bucket_bytes = context.GetOption<int64_t>("SetupTrainer.bucket_bytes", setup.bucket_bytes);
    setup.overlap = context.GetOption<bool>("SetupTrainer.overlap", setup.overlap);
    setup.gradient_reduction = context.GetOption<std::string>("SetupTrainer.gradient_reduction", "");
    setup.accumulation = context.GetOption<bool>("SetupTrainer.accumulation", false);
    return SetupTrainer(std::move(module), setup);
  };
  return CreateModulePass(run, "SetupTrainer");
}

}  // namespace

void RegisterStandardPasses(PassRegistry& registry) {
  for (const PassEntry& entry : PassTable()) registry.Register(entry);
}

}  // namespace rxt
