/// AppendLoss: backbone_loss = the backbone's body, then the loss's body reading the
/// backbone's outputs (transform/training/append_loss.h). Both bodies are copied with fresh variables
/// (function_inliner.h); adjacent dataflow blocks merge, so one dataflow block each gives one.
#include "rxt/transform/training/append_loss.h"

#include "transform/rewrite/function_inliner.h"
#include "rxt/ir/builder.h"
#include "rxt/ir/printer.h"

namespace rxt {
namespace {

using training::AppendBlocks;
using training::BindResult;
using training::FreshParam;
using training::InlineBody;
using training::InlinedBody;

/// The backbone's results: the fields of a tuple result, else the result alone.
std::vector<StructInfo> ResultInfos(const Function& f) {
  const StructInfo& result = GetStructInfo(f->body->body);
  if (const auto* tuple = result->As<TupleSINode>()) return tuple->fields;
  return {result};
}

void CheckLoss(const std::string& func_name, const Function& backbone, const Function& loss, int num_outputs) {
  auto fail = [](const auto&... args) { Throw(ErrorCode::kInvalidArgument, "AppendLoss: ", args...); };
  std::vector<StructInfo> results = ResultInfos(backbone);
  if (num_outputs < 1 || num_outputs > static_cast<int>(results.size())) {
    fail("num_backbone_outputs must be in [1, ", results.size(), "] (@", func_name, " returns ",
         ToString(GetStructInfo(backbone->body->body)), "), got ", num_outputs);
  }
  if (static_cast<int>(loss->params.size()) < num_outputs) {
    fail("the loss takes ", loss->params.size(), " parameters, fewer than the ", num_outputs,
         " backbone outputs it must receive");
  }
  for (int i = 0; i < num_outputs; ++i) {
    const Var& input = loss->params[i];
    if (!IsBaseOf(input->struct_info, results[i], /*assume_unknown_equal=*/true)) {
      fail("the loss's input ", i, " (%", input->name, ": ", ToString(input->struct_info), ") does not match output ", i,
           " of @", func_name, " (", ToString(results[i]), ")");
    }
  }
  const StructInfo& value = GetStructInfo(loss->body->body);
  const auto* tensor = value->As<TensorSINode>();
  if (tensor == nullptr || tensor->ndim != 0 || !IsFloat(tensor->dtype)) {
    fail("the loss must return a 0-d float tensor, got ", ToString(value),
         tensor != nullptr && tensor->ndim > 0 ? " (a loss with reduction \"none\"?)" : "");
  }
}

}  // namespace

IRModule AppendLoss(IRModule module, const std::string& func_name, const Function& loss, int num_backbone_outputs,
                    const std::string& new_func_name) {
  Function backbone = module.FindFunction(func_name);
  if (backbone == nullptr) Throw(ErrorCode::kNotFound, "AppendLoss: the module has no function @", func_name);
  RXT_CHECK(loss != nullptr, "AppendLoss needs a loss function");
  CheckLoss(func_name, backbone, loss, num_backbone_outputs);

  std::vector<Var> params;
  for (const Var& p : backbone->params) params.push_back(FreshParam(p));
  // The loss's own symbolic dims (its batch n) become the backbone's.
  std::vector<StructInfo> results_sinfo = ResultInfos(backbone);
  PrimVarMap symbols;
  for (int i = 0; i < num_backbone_outputs; ++i) training::MatchSymbols(loss->params[i]->struct_info, results_sinfo[i], symbols);
  std::vector<Var> targets;
  for (size_t i = num_backbone_outputs; i < loss->params.size(); ++i) {
    const Var& target = loss->params[i];
    targets.push_back(MakeVar(target->name, Substitute(target->struct_info, symbols), target->span));
  }

  InlinedBody forward = InlineBody(backbone, std::vector<Expr>(params.begin(), params.end()), &module);
  std::vector<BindingBlock> blocks = forward.blocks;
  std::vector<Expr> results = training::Fields(blocks, forward.result, "output");
  std::vector<Expr> loss_args(results.begin(), results.begin() + num_backbone_outputs);
  loss_args.insert(loss_args.end(), targets.begin(), targets.end());
  InlinedBody loss_body = InlineBody(loss, loss_args, &module, symbols);
  AppendBlocks(blocks, loss_body.blocks);

  Expr loss_value = BindResult(blocks, loss_body.result, "loss");
  Expr result = loss_value;
  if (results.size() > static_cast<size_t>(num_backbone_outputs)) {
    std::vector<Expr> fields = {loss_value};
    for (size_t i = num_backbone_outputs; i < results.size(); ++i) {
      fields.push_back(BindResult(blocks, results[i], "updated_state"));
    }
    result = training::MakeTupleOf(std::move(fields));
  }

  params.insert(params.end(), targets.begin(), targets.end());
  module.Add(new_func_name.empty() ? func_name + "_loss" : new_func_name,
             training::MakeInlinedFunction(std::move(params), std::move(blocks), result,
                                           backbone->is_pure && loss->is_pure, &module));
  return module;
}

Pass AppendLoss(std::string func_name, Function loss, int num_backbone_outputs, std::string new_func_name) {
  return CreateModulePass(
      [=](IRModule module) { return AppendLoss(std::move(module), func_name, loss, num_backbone_outputs, new_func_name); },
      "AppendLoss");
}

}  // namespace rxt
