/// BuildTrainerProgram (exec/build_trainer.h): the trainer module's argument layout read from
/// @train_step and the module attributes, Xavier fans from @backbone, and the executable.
#include "rxt/exec/build_trainer.h"

#include <set>

#include "rxt/ir/visitor.h"
#include "rxt/support/error.h"

namespace rxt {
namespace {

namespace names = trainer_module;

int64_t IntAttr(const IRModule& module, const char* name) {
  const AttrValue* value = module.attrs.Find(name);
  if (value == nullptr || !value->is<int64_t>() || value->get<int64_t>() < 0) {
    Throw(ErrorCode::kInvalidArgument, "trainer module: attribute ", name,
          value == nullptr ? " is missing" : " is not a non-negative int", " (is it SetupTrainer's result?)");
  }
  return value->get<int64_t>();
}

const AttrArray& ArrayAttr(const IRModule& module, const char* name) {
  const AttrValue* value = module.attrs.Find(name);
  if (value == nullptr || !value->is<AttrArray>()) {
    Throw(ErrorCode::kInvalidArgument, "trainer module: attribute ", name,
          value == nullptr ? " is missing" : " is not an array", " (is it SetupTrainer's result?)");
  }
  return value->get<AttrArray>();
}

TrainerTensorSpec SpecOf(const Var& var, const std::string& function) {
  TrainerTensorSpec spec;
  spec.name = var->name;
  const auto* t = var->struct_info->As<TensorSINode>();
  if (t == nullptr) {
    Throw(ErrorCode::kInvalidArgument, "trainer module: @", function, " parameter %", var->name,
          " is not a tensor (", ToString(var->struct_info), ")");
  }
  spec.dtype = t->dtype;
  spec.ndim = t->ndim;
  if (t->shape) {
    for (const PrimExpr& dim : *t->shape) {
      const auto* imm = dim->As<IntImmNode>();
      spec.shape.push_back(imm != nullptr ? imm->value : -1);
    }
  } else if (t->ndim >= 0) {
    spec.shape.assign(t->ndim, -1);
  }
  return spec;
}

/// Fans of parameters from their uses in @backbone: the first conv2d kernel or matmul weight
/// use decides (a parameter used as both is rare and the first use is as good as any).
class FanFinder : public ExprVisitor {
 public:
  explicit FanFinder(std::vector<std::pair<const VarNode*, TrainerTensorSpec*>> params) : params_(std::move(params)) {}

  void VisitCall(const CallNode& call) override {
    if (const auto* op = call.callee->As<OpNode>()) {
      const std::string& name = op->name();
      if (name == "nn.conv2d" && call.args.size() >= 2) Conv2d(call);
      if (name == "matmul" && call.args.size() == 2) Matmul(call);
    }
    ExprVisitor::VisitCall(call);
  }

 private:
  TrainerTensorSpec* Find(const Expr& arg) {
    for (auto& [var, spec] : params_) {
      if (arg.get() == static_cast<const ExprNode*>(var) && spec->IsStatic() && spec->fan_in + spec->fan_out == 0) {
        return spec;
      }
    }
    return nullptr;
  }

  void Conv2d(const CallNode& call) {
    TrainerTensorSpec* spec = Find(call.args[1]);
    if (spec == nullptr || spec->ndim != 4) return;
    const AttrValue* layout = call.attrs.Find("kernel_layout");
    std::string kernel_layout = layout != nullptr && layout->is<std::string>() ? layout->get<std::string>() : "OIHW";
    size_t o = kernel_layout.find('O'), i = kernel_layout.find('I');
    if (o == std::string::npos || i == std::string::npos || kernel_layout.size() != 4) return;
    int64_t receptive = 1;
    for (size_t d = 0; d < 4; ++d) {
      if (d != o && d != i) receptive *= spec->shape[d];
    }
    // Per group, as PyTorch: the kernel's I is in_channels / groups.
    spec->fan_in = spec->shape[i] * receptive;
    spec->fan_out = spec->shape[o] * receptive;
  }

  void Matmul(const CallNode& call) {
    // y = x w with w (in, out): our layout for dense layers (the seed's w0: (784, 128)).
    TrainerTensorSpec* spec = Find(call.args[1]);
    if (spec == nullptr || spec->ndim != 2) return;
    spec->fan_in = spec->shape[0];
    spec->fan_out = spec->shape[1];
  }

  std::vector<std::pair<const VarNode*, TrainerTensorSpec*>> params_;
};

void FindFans(const IRModule& module, int input_num, std::vector<TrainerTensorSpec>& params) {
  Function backbone = module.FindFunction(names::kBackbone);
  if (backbone == nullptr || backbone->params.size() < static_cast<size_t>(input_num) + params.size()) return;
  std::vector<std::pair<const VarNode*, TrainerTensorSpec*>> vars;
  for (size_t i = 0; i < params.size(); ++i) vars.emplace_back(backbone->params[input_num + i].get(), &params[i]);
  FanFinder(std::move(vars)).VisitFunction(*backbone);
}

/// Collects the module functions an entry point calls, transitively.
class CalleeCollector : public ExprVisitor {
 public:
  CalleeCollector(const IRModule& module, std::set<std::string>& reached) : module_(module), reached_(reached) {}
  void Reach(const std::string& name) {
    if (!reached_.insert(name).second) return;
    if (Function f = module_.FindFunction(name)) VisitFunction(*f);
  }
  void VisitGlobalVar(const GlobalVarNode& node) override { Reach(node.name); }

 private:
  const IRModule& module_;
  std::set<std::string>& reached_;
};

/// The module without the Relax functions the Trainer never calls (an entry point it lacks
/// is skipped) (@backbone,
/// @backbone_loss_adjoint, @optimizer once inlined): fewer kernels to compile.
IRModule KeepTrainerEntryPoints(IRModule module) {
  std::set<std::string> reached;
  CalleeCollector collector(module, reached);
  for (const char* entry :
       {names::kTrainStep, names::kPredict, names::kBackboneLoss, names::kAccumulateStep, names::kApplyStep}) {
    collector.Reach(entry);
  }
  module.RemoveIf(
      [&](const IRModule::Entry& entry) { return entry.function != nullptr && reached.count(entry.name) == 0; });
  return module;
}

}  // namespace

bool IsTrainerModule(const IRModule& module) { return module.FindFunction(names::kTrainStep) != nullptr; }

TrainerProgram BuildTrainerProgram(const IRModule& module, const BuildOptions& options) {
  Function step = module.FindFunction(names::kTrainStep);
  if (step == nullptr) {
    Throw(ErrorCode::kInvalidArgument, "trainer module: no function @", names::kTrainStep,
          " (a backbone module needs a loss and an optimizer: SetupTrainer)");
  }
  for (const char* function : {names::kPredict, names::kBackboneLoss}) {
    if (module.FindFunction(function) == nullptr) {
      Throw(ErrorCode::kInvalidArgument, "trainer module: no function @", function);
    }
  }
  int64_t input_num = IntAttr(module, names::kInputNum), target_num = IntAttr(module, names::kTargetNum);
  int64_t param_num = IntAttr(module, names::kParamNum), state_num = IntAttr(module, names::kStateNum);
  int64_t output_num = IntAttr(module, names::kOutputNum);
  const AttrArray& optim_state = ArrayAttr(module, names::kOptimState);
  const AttrArray& optim_names = ArrayAttr(module, names::kOptimStateNames);
  if (optim_state.size() != optim_names.size()) {
    Throw(ErrorCode::kInvalidArgument, "trainer module: ", optim_state.size(), " optimizer states but ",
          optim_names.size(), " names");
  }
  size_t expected = static_cast<size_t>(input_num + target_num + param_num + state_num) + optim_state.size();
  if (step->params.size() != expected) {
    Throw(ErrorCode::kInvalidArgument, "trainer module: @", names::kTrainStep, " takes ", step->params.size(),
          " parameters, but the attributes say ", input_num, " inputs + ", target_num, " targets + ", param_num,
          " params + ", state_num, " states + ", optim_state.size(), " optimizer states");
  }

  TrainerProgram program;
  size_t k = 0;
  auto take = [&](int64_t count, std::vector<TrainerTensorSpec>& specs) {
    for (int64_t i = 0; i < count; ++i) specs.push_back(SpecOf(step->params[k++], names::kTrainStep));
  };
  take(input_num, program.inputs);
  take(target_num, program.targets);
  take(param_num, program.params);
  take(state_num, program.states);
  for (size_t i = 0; i < optim_state.size(); ++i) {
    if (!optim_state[i].is<Tensor>() || !optim_names[i].is<std::string>()) {
      Throw(ErrorCode::kInvalidArgument, "trainer module: optimizer state ", i, " is not a named tensor");
    }
    program.initial_optim_state.push_back(InitialOptimState::Of(optim_state[i].get<Tensor>()));
    program.optim_state_names.push_back(optim_names[i].get<std::string>());
  }
  for (const TrainerTensorSpec& spec : program.params) {
    if (!IsFloat(spec.dtype)) {
      Throw(ErrorCode::kInvalidArgument, "trainer module: parameter '", spec.name, "' is ", spec.TypeText(),
            ", not a float tensor");
    }
  }
  program.output_num = static_cast<int>(output_num);
  FindFans(module, static_cast<int>(input_num), program.params);
  program.executable = Build(KeepTrainerEntryPoints(module), options);
  return program;
}

TrainerProgram BuildTrainerProgram(const IRModule& backbone, const TrainerSetup& setup, const BuildOptions& options) {
  TrainerSetup unlegalized = setup;
  unlegalized.legalize = false;  // the build legalizes (after library calls when it uses any)
  return BuildTrainerProgram(SetupTrainer(backbone, unlegalized), options);
}

}  // namespace rxt
