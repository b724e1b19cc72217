#include "trainer_functions.h"

#include <cctype>

#include "rxt/ir/mutator.h"
#include "rxt/ir/op.h"
#include "rxt/ir/builder.h"
#include "transform/rewrite/function_inliner.h"
#include "data_parallel.h"
#include "rxt/transform/training/setup_trainer.h"

namespace rxt::training {
namespace {

/// "exp_avg.3" -> "optim_exp_avg_3": a parameter name for an optimizer state.
std::string StateParamName(const std::string& state) {
  std::string name = "optim_";
  for (char c : state) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

std::vector<Expr> AsExprs(const std::vector<Var>& vars) { return std::vector<Expr>(vars.begin(), vars.end()); }

/// |value| as a variable (an inlined function's argument must be a leaf).
Expr AsLeaf(std::vector<BindingBlock>& blocks, const Expr& value, const std::string& name) {
  return value->kind == ExprKind::kVar ? value : Expr(BindLocal(blocks, value, name));
}

/// The backbone at inference, as PyTorch's eval(): nn.batch_norm normalizes with its moving
/// statistics (and returns them unchanged), nn.dropout without its seed is the identity.
class InferenceMode : public ExprMutator {
 public:
  explicit InferenceMode(const IRModule& module) : ExprMutator(&module) {}

  Expr VisitCall(const Expr& e, const CallNode& node) override {
    Expr visited = ExprMutator::VisitCall(e, node);
    const auto* call = visited->As<CallNode>();
    const OpDef* op = call != nullptr ? AsOp(call->callee) : nullptr;
    if (op == nullptr) return visited;
    if (op->name() == "nn.batch_norm") {
      const AttrValue* training = call->attrs.Find("training");
      if (training == nullptr || !training->is<bool>() || !training->get<bool>()) return visited;
      Attrs attrs = call->attrs;
      attrs.Set("training", false);
      return MakeOpCall(op->name(), call->args, attrs, call->sinfo_args, call->span);
    }
    if (op->name() == "nn.dropout" && call->args.size() == 2) {
      return MakeOpCall(op->name(), {call->args[0]}, call->attrs, call->sinfo_args, call->span);
    }
    return visited;
  }
};

}  // namespace

Function BuildPredict(const BackboneLayout& layout, const IRModule& module) {
  std::vector<Var> params;
  for (const Var& p : layout.backbone->params) params.push_back(FreshParam(p));
  InlinedBody body = InlineBody(layout.backbone, AsExprs(params), &module);
  std::vector<BindingBlock> blocks = body.blocks;
  std::vector<Expr> results = Fields(blocks, body.result, "output");
  results.resize(layout.outputs.size());
  Expr prediction = results.size() == 1 ? results[0] : MakeTupleOf(results);
  prediction = BindResult(blocks, prediction, "prediction");
  Function predict = MakeInlinedFunction(std::move(params), std::move(blocks), prediction, layout.backbone->is_pure, &module);
  return InferenceMode(module).VisitFunction(predict);
}

namespace {

/// The trainer functions' arguments, fresh variables of @backbone_loss_adjoint's and the
/// optimizer's: inputs, params, states, targets as the adjoint takes them.
struct StepArgs {
  std::vector<Var> inputs, params, states, targets, optim_states;
};

StepArgs FreshStepArgs(const BackboneLayout& layout, const Function& adjoint, const OptimizerInstance& optimizer) {
  const int backbone_params = layout.input_num + layout.param_num + layout.state_num;
  auto fresh = [&](int begin, int end) {
    std::vector<Var> vars;
    for (int i = begin; i < end; ++i) vars.push_back(FreshParam(adjoint->params[i]));
    return vars;
  };
  StepArgs args;
  args.inputs = fresh(0, layout.input_num);
  args.params = fresh(layout.input_num, layout.input_num + layout.param_num);
  args.states = fresh(layout.input_num + layout.param_num, backbone_params);
  args.targets = fresh(backbone_params, static_cast<int>(adjoint->params.size()));
  const auto& state_fields = optimizer.function->params[2]->struct_info->As<TupleSINode>()->fields;
  for (size_t i = 0; i < state_fields.size(); ++i) {
    args.optim_states.push_back(MakeVar(StateParamName(optimizer.state_names[i]), state_fields[i]));
  }
  return args;
}

/// Forward and backward (@backbone_loss_adjoint inlined): the loss, the updated states and the
/// gradients (a tuple, one per parameter).
struct Backward {
  Expr loss, gradients;
  std::vector<Expr> new_states;
};

Backward InlineBackward(std::vector<BindingBlock>& blocks, const BackboneLayout& layout, const IRModule& module,
                        const StepArgs& args) {
  Function adjoint = module.GetFunction(trainer_module::kAdjoint);
  std::vector<Expr> adjoint_args = AsExprs(args.inputs);
  for (const auto* group : {&args.params, &args.states, &args.targets}) {
    adjoint_args.insert(adjoint_args.end(), group->begin(), group->end());
  }
  InlinedBody backward = InlineBody(adjoint, adjoint_args, &module);
  blocks = backward.blocks;
  Backward out;
  Expr original = TupleField(blocks, backward.result, 0, "original");
  out.gradients = TupleField(blocks, backward.result, 1, "gradients");
  out.loss = original;
  if (layout.state_num > 0) {
    std::vector<Expr> fields = Fields(blocks, original, "result");
    out.loss = fields[0];
    out.new_states.assign(fields.begin() + 1, fields.end());
  }
  if (blocks.empty() || !blocks.back().is_dataflow) blocks.push_back(BindingBlock{{}, /*is_dataflow=*/true});
  out.gradients = AsLeaf(blocks, out.gradients, "gradients");
  return out;
}

/// The fields of a tuple of gradients, as leaves.
std::vector<Expr> GradientFields(std::vector<BindingBlock>& blocks, const Expr& gradients, int param_num) {
  std::vector<Expr> fields;
  for (int i = 0; i < param_num; ++i) fields.push_back(AsLeaf(blocks, TupleField(blocks, gradients, i, "gradient"), "gradient"));
  return fields;
}

/// The optimizer's update (@optimizer inlined) of |params| by |gradients|: (params', optim').
std::pair<std::vector<Expr>, std::vector<Expr>> InlineUpdate(std::vector<BindingBlock>& blocks, const IRModule& module,
                                                             const OptimizerInstance& optimizer,
                                                             const std::vector<Var>& params, const Expr& gradients,
                                                             const std::vector<Var>& optim_states) {
  if (blocks.empty() || !blocks.back().is_dataflow) blocks.push_back(BindingBlock{{}, /*is_dataflow=*/true});
  std::vector<Expr> optimizer_args = {BindLocal(blocks, MakeTupleOf(AsExprs(params)), "params"), gradients,
                                      BindLocal(blocks, MakeTupleOf(AsExprs(optim_states)), "optim_states")};
  InlinedBody update = InlineBody(optimizer.function, optimizer_args, &module);
  AppendBlocks(blocks, update.blocks);
  std::vector<Expr> new_params = Fields(blocks, TupleField(blocks, update.result, 0, "new_params"), "new_param");
  std::vector<Expr> new_optim = Fields(blocks, TupleField(blocks, update.result, 1, "new_optim"), "new_optim");
  return {new_params, new_optim};
}

bool Reducible(const Expr& value) {
  const auto* t = GetStructInfo(value)->As<TensorSINode>();
  return t != nullptr && (t->dtype == DType::kFloat32 || t->dtype == DType::kFloat64 || t->dtype == DType::kInt32 ||
                          t->dtype == DType::kInt64);
}

/// With data parallelism, the gradients and the loss combined over the ranks (|plan|'s op) and
/// the updated states averaged (BatchNorm's running statistics: the mean of the ranks'); else
/// as they are.
void ReduceOverRanks(std::vector<BindingBlock>& blocks, const GradientCombination& plan, const IRModule& module,
                     Expr& loss, std::vector<Expr>& gradients, std::vector<Expr>& states) {
  std::vector<ReducedValue> values;
  for (const Expr& g : gradients) values.push_back({g, plan.reduction});
  values.push_back({loss, plan.reduction});
  std::vector<size_t> reduced_states;
  for (size_t i = 0; i < states.size(); ++i) {
    if (!Reducible(states[i])) continue;  // a state no communicator reduces stays the rank's own
    values.push_back({states[i], "mean"});
    reduced_states.push_back(i);
  }
  std::vector<Expr> reduced = AllReduceInBuckets(blocks, values, plan.bucket_bytes, plan.overlap, module);
  size_t k = 0;
  for (Expr& g : gradients) g = reduced[k++];
  loss = reduced[k++];
  for (size_t i : reduced_states) states[i] = reduced[k++];
}

Expr Call(std::vector<BindingBlock>& blocks, const std::string& op, std::vector<Expr> args, const std::string& name,
          const IRModule& module) {
  Expr call = MakeOpCall(op, std::move(args));
  InferStructInfo(call, &module);
  return BindLocal(blocks, call, name);
}

Function Finish(std::vector<Var> signature, std::vector<BindingBlock> blocks, std::vector<Expr> fields, bool is_pure,
                const IRModule& module) {
  Expr result = BindResult(blocks, MakeTupleOf(std::move(fields)), "result");
  return MakeInlinedFunction(std::move(signature), std::move(blocks), result, is_pure, &module);
}

template <typename... Groups>
std::vector<Expr> Concat(const Groups&... groups) {
  std::vector<Expr> all;
  (all.insert(all.end(), groups.begin(), groups.end()), ...);
  return all;
}

}  // namespace

Function BuildTrainStep(const BackboneLayout& layout, const IRModule& module, const OptimizerInstance& optimizer,
                        const GradientCombination& plan) {
  Function adjoint = module.GetFunction(trainer_module::kAdjoint);
  StepArgs args = FreshStepArgs(layout, adjoint, optimizer);
  std::vector<BindingBlock> blocks;
  Backward backward = InlineBackward(blocks, layout, module, args);
  if (plan.data_parallel) {
    std::vector<Expr> gradients = GradientFields(blocks, backward.gradients, layout.param_num);
    ReduceOverRanks(blocks, plan, module, backward.loss, gradients, backward.new_states);
    backward.gradients = BindLocal(blocks, MakeTupleOf(gradients), "gradients_reduced");
  }
  auto [new_params, new_optim] = InlineUpdate(blocks, module, optimizer, args.params, backward.gradients,
                                              args.optim_states);

  std::vector<Var> signature = args.inputs;
  for (const auto* group : {&args.targets, &args.params, &args.states, &args.optim_states}) {
    signature.insert(signature.end(), group->begin(), group->end());
  }
  return Finish(std::move(signature), std::move(blocks),
                Concat(std::vector<Expr>{backward.loss}, new_params, backward.new_states, new_optim),
                adjoint->is_pure && optimizer.function->is_pure, module);
}

namespace {

/// The accumulators: the loss's sum and one gradient sum per parameter (named after it).
struct Accumulators {
  Var loss_sum;
  std::vector<Var> grad_sums;
};

Accumulators FreshAccumulators(const Function& adjoint, const StepArgs& args) {
  Accumulators acc;
  const auto* ret = adjoint->ret_sinfo->As<TupleSINode>();
  StructInfo original = ret->fields[0];
  if (const auto* tuple = original->As<TupleSINode>()) original = tuple->fields[0];
  acc.loss_sum = MakeVar("loss_sum", original);
  for (const Var& p : args.params) acc.grad_sums.push_back(MakeVar("grad_sum_" + p->name, p->struct_info));
  return acc;
}

}  // namespace

Function BuildAccumulateStep(const BackboneLayout& layout, const IRModule& module,
                             const OptimizerInstance& optimizer) {
  Function adjoint = module.GetFunction(trainer_module::kAdjoint);
  StepArgs args = FreshStepArgs(layout, adjoint, optimizer);
  Accumulators acc = FreshAccumulators(adjoint, args);
  std::vector<BindingBlock> blocks;
  Backward backward = InlineBackward(blocks, layout, module, args);
  Expr loss_sum = Call(blocks, "add", {acc.loss_sum, backward.loss}, "loss_sum", module);
  std::vector<Expr> gradients = GradientFields(blocks, backward.gradients, layout.param_num);
  std::vector<Expr> grad_sums;
  for (int i = 0; i < layout.param_num; ++i) {
    grad_sums.push_back(Call(blocks, "add", {acc.grad_sums[i], gradients[i]}, "grad_sum", module));
  }
  std::vector<Var> signature = args.inputs;
  for (const auto* group : {&args.targets, &args.params, &args.states}) {
    signature.insert(signature.end(), group->begin(), group->end());
  }
  signature.push_back(acc.loss_sum);
  signature.insert(signature.end(), acc.grad_sums.begin(), acc.grad_sums.end());
  return Finish(std::move(signature), std::move(blocks),
                Concat(std::vector<Expr>{backward.loss}, backward.new_states, std::vector<Expr>{loss_sum}, grad_sums),
                adjoint->is_pure, module);
}

Function BuildApplyStep(const BackboneLayout& layout, const IRModule& module, const OptimizerInstance& optimizer,
                        const GradientCombination& plan) {
  Function adjoint = module.GetFunction(trainer_module::kAdjoint);
  StepArgs args = FreshStepArgs(layout, adjoint, optimizer);
  Accumulators acc = FreshAccumulators(adjoint, args);
  Var count = MakeVar("micro_batches", GetStructInfo(acc.loss_sum));
  std::vector<BindingBlock> blocks{BindingBlock{{}, /*is_dataflow=*/true}};
  Expr loss = acc.loss_sum;
  std::vector<Expr> gradients = AsExprs(acc.grad_sums);
  std::vector<Expr> states = AsExprs(args.states);
  if (plan.data_parallel) ReduceOverRanks(blocks, plan, module, loss, gradients, states);
  if (plan.reduction == "mean") {
    // The mean over the micro-batches (each a mean over its samples), as one larger batch.
    loss = Call(blocks, "divide", {loss, count}, "loss", module);
    for (Expr& g : gradients) {
      DType dtype = GetStructInfo(g)->As<TensorSINode>()->dtype;
      Expr divisor = count;
      if (dtype != GetStructInfo(count)->As<TensorSINode>()->dtype) {
        Attrs to;
        to.Set("dtype", dtype);
        Expr cast = MakeOpCall("astype", {count}, to);
        InferStructInfo(cast, &module);
        divisor = BindLocal(blocks, cast, "micro_batches_cast");
      }
      g = Call(blocks, "divide", {g, divisor}, "gradient", module);
    }
  }
  Expr gradient_tuple = BindLocal(blocks, MakeTupleOf(gradients), "gradients");
  auto [new_params, new_optim] = InlineUpdate(blocks, module, optimizer, args.params, gradient_tuple, args.optim_states);
  std::vector<Var> signature{acc.loss_sum};
  signature.insert(signature.end(), acc.grad_sums.begin(), acc.grad_sums.end());
  signature.push_back(count);
  for (const auto* group : {&args.params, &args.states, &args.optim_states}) {
    signature.insert(signature.end(), group->begin(), group->end());
  }
  return Finish(std::move(signature), std::move(blocks), Concat(std::vector<Expr>{loss}, new_params, states, new_optim),
                optimizer.function->is_pure, module);
}

}  // namespace rxt::training
