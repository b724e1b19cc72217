#include "trainer_functions.h"

#include <cctype>

#include "rxt/ir/mutator.h"
#include "rxt/ir/op.h"
#include "transform/rewrite/function_inliner.h"
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

Function BuildTrainStep(const BackboneLayout& layout, const IRModule& module, const OptimizerInstance& optimizer) {
  Function adjoint = module.GetFunction(trainer_module::kAdjoint);
  const int backbone_params = layout.input_num + layout.param_num + layout.state_num;
  auto fresh = [&](int begin, int end) {
    std::vector<Var> vars;
    for (int i = begin; i < end; ++i) vars.push_back(FreshParam(adjoint->params[i]));
    return vars;
  };
  std::vector<Var> inputs = fresh(0, layout.input_num);
  std::vector<Var> params = fresh(layout.input_num, layout.input_num + layout.param_num);
  std::vector<Var> states = fresh(layout.input_num + layout.param_num, backbone_params);
  std::vector<Var> targets = fresh(backbone_params, static_cast<int>(adjoint->params.size()));
  std::vector<Var> optim_states;
  const auto& state_fields = optimizer.function->params[2]->struct_info->As<TupleSINode>()->fields;
  for (size_t i = 0; i < state_fields.size(); ++i) {
    optim_states.push_back(MakeVar(StateParamName(optimizer.state_names[i]), state_fields[i]));
  }

  // Forward and backward: (loss | (loss, updated_states...), (gradients...)).
  std::vector<Expr> adjoint_args = AsExprs(inputs);
  for (const auto* group : {&params, &states, &targets}) {
    adjoint_args.insert(adjoint_args.end(), group->begin(), group->end());
  }
  InlinedBody backward = InlineBody(adjoint, adjoint_args, &module);
  std::vector<BindingBlock> blocks = backward.blocks;
  Expr original = TupleField(blocks, backward.result, 0, "original");
  Expr gradients = TupleField(blocks, backward.result, 1, "gradients");
  Expr loss = original;
  std::vector<Expr> new_states;
  if (layout.state_num > 0) {
    std::vector<Expr> fields = Fields(blocks, original, "result");
    loss = fields[0];
    new_states.assign(fields.begin() + 1, fields.end());
  }

  // The optimizer's update, in a dataflow block.
  if (blocks.empty() || !blocks.back().is_dataflow) blocks.push_back(BindingBlock{{}, /*is_dataflow=*/true});
  std::vector<Expr> optimizer_args = {BindLocal(blocks, MakeTupleOf(AsExprs(params)), "params"),
                                      AsLeaf(blocks, gradients, "gradients"),
                                      BindLocal(blocks, MakeTupleOf(AsExprs(optim_states)), "optim_states")};
  InlinedBody update = InlineBody(optimizer.function, optimizer_args, &module);
  AppendBlocks(blocks, update.blocks);
  std::vector<Expr> new_params = Fields(blocks, TupleField(blocks, update.result, 0, "new_params"), "new_param");
  std::vector<Expr> new_optim = Fields(blocks, TupleField(blocks, update.result, 1, "new_optim"), "new_optim");

  std::vector<Expr> fields = {loss};
  for (const auto* group : {&new_params, &new_states, &new_optim}) fields.insert(fields.end(), group->begin(), group->end());
  Expr result = BindResult(blocks, MakeTupleOf(std::move(fields)), "result");

  std::vector<Var> signature = inputs;
  for (const auto* group : {&targets, &params, &states, &optim_states}) {
    signature.insert(signature.end(), group->begin(), group->end());
  }
  return MakeInlinedFunction(std::move(signature), std::move(blocks), result,
                             adjoint->is_pure && optimizer.function->is_pure, &module);
}

}  // namespace rxt::training
