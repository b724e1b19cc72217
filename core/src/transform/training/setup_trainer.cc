/// SetupTrainer: backbone module -> trainer module (transform/training/setup_trainer.h). Steps: check
/// the backbone (trainer_backbone.h) -> build the loss from its plugin and check loss_args ->
/// AppendLoss -> Gradient w.r.t. the trained parameters -> SimplifyTransposes -> the
/// optimizer's function and initial state -> @predict and @train_step (trainer_functions.h)
/// -> attributes -> CanonicalizeBindings, DeadCodeElimination -> LegalizeOps.
#include "rxt/transform/training/setup_trainer.h"

#include <numeric>

#include "rxt/ir/parser.h"
#include "rxt/transform/training/append_loss.h"
#include "rxt/transform/training/gradient.h"
#include "rxt/transform/passes.h"
#include "trainer_backbone.h"
#include "trainer_functions.h"

namespace rxt {
namespace {

using training::BackboneLayout;

/// Runs |step|, prefixing its errors with "SetupTrainer: " (once).
template <typename F>
auto WithContext(F&& step) -> decltype(step()) {
  try {
    return step();
  } catch (const Error& e) {
    std::string message = e.what();
    if (message.rfind("SetupTrainer: ", 0) == 0) throw;
    Throw(e.code(), "SetupTrainer: ", message);
  }
}

Function BuildLoss(const TrainerSetup& setup, const BackboneLayout& layout) {
  if (layout.outputs.size() != 1) {
    Throw(ErrorCode::kInvalidArgument, "SetupTrainer: @backbone returns ", layout.outputs.size(),
          " outputs before its ", layout.state_num, " updated states, but a loss takes one prediction (state_num = ",
          layout.state_num, ": are the updated states counted?)");
  }
  Function loss = WithContext([&] { return MakeLossFunction(setup.loss, layout.outputs[0], setup.plugins); });
  const auto* value = loss->ret_sinfo->As<TensorSINode>();
  if (value == nullptr || value->ndim != 0) {
    Throw(ErrorCode::kInvalidArgument, "SetupTrainer: loss '", setup.loss.name, "' returns ", ToString(loss->ret_sinfo),
          ", not a scalar (reduction \"none\" cannot be trained: use \"mean\" or \"sum\")");
  }
  return loss;
}

bool Compatible(const StructInfo& a, const StructInfo& b) {
  return IsBaseOf(a, b, /*assume_unknown_equal=*/true) || IsBaseOf(b, a, /*assume_unknown_equal=*/true);
}

/// The seed's loss_args, when given: the backbone's output, then the loss's targets.
void CheckLossArgs(const TrainerSetup& setup, const Function& loss, const BackboneLayout& layout) {
  const std::vector<StructInfo>& args = setup.loss_args;
  if (args.empty()) return;
  if (args.size() != loss->params.size()) {
    Throw(ErrorCode::kInvalidArgument, "SetupTrainer: loss_args has ", args.size(), " struct infos but loss '",
          setup.loss.name, "' takes ", loss->params.size(), " inputs (the prediction, then ", loss->params.size() - 1,
          " target", loss->params.size() == 2 ? "" : "s", ")");
  }
  if (!Compatible(args[0], layout.outputs[0])) {
    Throw(ErrorCode::kInvalidArgument, "SetupTrainer: loss_args[0] (", ToString(args[0]),
          ") does not match the output of @backbone (", ToString(layout.outputs[0]), ")");
  }
  for (size_t i = 1; i < args.size(); ++i) {
    if (!Compatible(args[i], loss->params[i]->struct_info)) {
      Throw(ErrorCode::kInvalidArgument, "SetupTrainer: loss_args[", i, "] is ", ToString(args[i]), " but loss '",
            setup.loss.name, "' takes its target %", loss->params[i]->name, " as ",
            ToString(loss->params[i]->struct_info));
    }
  }
}

/// How gradients of several batches combine: the setup's gradient_reduction, else the loss's
/// reduction option, else "mean".
training::GradientCombination CombinationOf(const TrainerSetup& setup) {
  training::GradientCombination combination;
  combination.data_parallel = setup.data_parallel;
  combination.overlap = setup.overlap;
  combination.bucket_bytes = setup.bucket_bytes != 0 ? setup.bucket_bytes
                             : setup.overlap      ? kOverlappedBucketBytes
                                                  : kBucketBytes;
  std::string reduction = setup.gradient_reduction;
  if (reduction.empty()) {
    Attrs options = WithContext([&] { return ParseAttrList(setup.loss.options, "the loss options"); });
    const AttrValue* value = options.Find("reduction");
    reduction = value != nullptr && value->is<std::string>() ? value->get<std::string>() : "mean";
    if (reduction == "none") reduction = "mean";  // refused later: a loss must be a scalar
  }
  if (reduction != "mean" && reduction != "sum") {
    Throw(ErrorCode::kInvalidArgument, "SetupTrainer: gradient_reduction \"", reduction,
          "\" is neither \"mean\" nor \"sum\"");
  }
  if (setup.bucket_bytes < 0) {
    Throw(ErrorCode::kInvalidArgument, "SetupTrainer: bucket_bytes ", setup.bucket_bytes, " is negative");
  }
  combination.reduction = reduction;
  return combination;
}

void SetAttributes(IRModule& module, const BackboneLayout& layout, const Function& loss,
                   const OptimizerInstance& optimizer, const TrainerSetup& setup,
                   const training::GradientCombination& combination) {
  module.attrs.Set(trainer_module::kInputNum, int64_t{layout.input_num});
  module.attrs.Set(trainer_module::kParamNum, int64_t{layout.param_num});
  module.attrs.Set(trainer_module::kStateNum, int64_t{layout.state_num});
  module.attrs.Set(trainer_module::kTargetNum, static_cast<int64_t>(loss->params.size() - 1));
  module.attrs.Set(trainer_module::kOutputNum, static_cast<int64_t>(layout.outputs.size()));
  AttrArray state, names;
  for (size_t i = 0; i < optimizer.state.size(); ++i) {
    state.emplace_back(optimizer.state[i]);
    names.emplace_back(optimizer.state_names[i]);
  }
  module.attrs.Set(trainer_module::kOptimState, std::move(state));
  module.attrs.Set(trainer_module::kOptimStateNames, std::move(names));
  if (setup.data_parallel || setup.accumulation) module.attrs.Set(trainer_module::kGradientReduction, combination.reduction);
  if (setup.data_parallel) module.attrs.Set(trainer_module::kDataParallel, combination.bucket_bytes);
}

}  // namespace

IRModule SetupTrainer(IRModule module, const TrainerSetup& setup) {
  namespace names = trainer_module;
  BackboneLayout layout = training::CheckBackbone(module);
  Function loss = BuildLoss(setup, layout);
  CheckLossArgs(setup, loss, layout);
  training::GradientCombination combination = CombinationOf(setup);
  module = WithContext([&] { return AppendLoss(module, names::kBackbone, loss, 1, names::kBackboneLoss); });

  std::vector<int> trained(layout.param_num);
  std::iota(trained.begin(), trained.end(), layout.input_num);
  module = WithContext([&] { return Gradient(module, names::kBackboneLoss, trained, 0, setup.plugins); });
  module = SimplifyTransposes(module);

  OptimizerInstance optimizer = WithContext([&] { return MakeOptimizer(setup.optimizer, layout.params, setup.plugins); });
  module.Add(names::kOptimizer, optimizer.function);
  module.Add(names::kPredict, training::BuildPredict(layout, module));
  module.Add(names::kTrainStep, training::BuildTrainStep(layout, module, optimizer, combination));
  if (setup.accumulation) {
    module.Add(names::kAccumulateStep, training::BuildAccumulateStep(layout, module, optimizer));
    module.Add(names::kApplyStep, training::BuildApplyStep(layout, module, optimizer, combination));
  }
  SetAttributes(module, layout, loss, optimizer, setup, combination);

  module = CanonicalizeBindings()(module);
  module = DeadCodeElimination()(module);
  if (setup.legalize) module = LegalizeOps()(module);
  return module;
}

Pass SetupTrainer(TrainerSetup setup) {
  return CreateModulePass([setup](IRModule module) { return SetupTrainer(std::move(module), setup); }, "SetupTrainer");
}

}  // namespace rxt
