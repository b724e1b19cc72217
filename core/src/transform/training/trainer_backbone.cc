#include "trainer_backbone.h"

#include "rxt/transform/training/setup_trainer.h"

namespace rxt::training {
namespace {

template <typename... Args>
[[noreturn]] void Invalid(const Args&... args) {
  Throw(ErrorCode::kInvalidArgument, "SetupTrainer: ", args...);
}

/// Module attribute |name|: a non-negative integer.
int CountAttribute(const IRModule& module, const char* name, const char* meaning) {
  const AttrValue* value = module.attrs.Find(name);
  if (value == nullptr) {
    Invalid("the backbone module needs the integer attribute ", name, " (", meaning,
            "), e.g. `attributes {param_num = 6, state_num = 0}`");
  }
  if (!value->is<int64_t>()) Invalid("attribute ", name, " must be an integer, got a ", value->KindName());
  int64_t count = value->get<int64_t>();
  if (count < 0 || count > (int64_t{1} << 20)) Invalid("attribute ", name, " must be a count, got ", count);
  return static_cast<int>(count);
}

std::string DescribeParam(const Function& f, int index) {
  const Var& p = f->params[index];
  return StrCat("parameter ", index, " of @backbone (%", p->name, ": ", ToString(p->struct_info), ")");
}

}  // namespace

BackboneLayout CheckBackbone(const IRModule& module, bool trainable) {
  BackboneLayout layout;
  layout.backbone = module.FindFunction(trainer_module::kBackbone);
  if (layout.backbone == nullptr) {
    std::string names;
    for (const IRModule::Entry& e : module.entries()) {
      if (e.function != nullptr) names += (names.empty() ? "" : ", ") + ("@" + e.name);
    }
    Throw(ErrorCode::kNotFound, "SetupTrainer: the module has no function @backbone (the model to train",
          names.empty() ? std::string(", and no function at all)") : "; it has " + names + ")");
  }
  const Function& f = layout.backbone;
  layout.param_num = CountAttribute(module, trainer_module::kParamNum, "how many parameters after the inputs are trained");
  layout.state_num = CountAttribute(module, trainer_module::kStateNum, "how many parameters after those are model states");
  int total = static_cast<int>(f->params.size());
  if (trainable && layout.param_num < 1) Invalid("param_num must be at least 1: there is nothing to train");
  if (total < layout.param_num + layout.state_num) {
    Invalid("@backbone has ", total, " parameters, fewer than param_num + state_num = ", layout.param_num, " + ",
            layout.state_num);
  }
  layout.input_num = total - layout.param_num - layout.state_num;

  for (int i = layout.input_num; i < layout.input_num + layout.param_num; ++i) {
    const auto* t = f->params[i]->struct_info->As<TensorSINode>();
    if (t == nullptr || !IsFloat(t->dtype)) {
      Invalid(DescribeParam(f, i), " is trained (param_num = ", layout.param_num, ") but is not a float tensor");
    }
    if (!t->IsStatic()) {
      Invalid(DescribeParam(f, i), " is trained but its shape is not static (the optimizer's state needs it)");
    }
    layout.params.push_back(f->params[i]->struct_info);
  }

  // Results: (outputs..., updated states...) with one updated state per state, same struct info.
  const StructInfo& result = GetStructInfo(f->body->body);
  const auto* tuple = result->As<TupleSINode>();
  std::vector<StructInfo> results = tuple != nullptr ? tuple->fields : std::vector<StructInfo>{result};
  if (layout.state_num > 0 && (tuple == nullptr || static_cast<int>(results.size()) < layout.state_num + 1)) {
    Invalid("@backbone must return its outputs followed by its ", layout.state_num,
            " updated states (state_num = ", layout.state_num, "), but returns ", ToString(result));
  }
  int output_num = static_cast<int>(results.size()) - layout.state_num;
  for (int k = 0; k < layout.state_num; ++k) {
    int param = layout.input_num + layout.param_num + k;
    const StructInfo& returned = results[output_num + k];
    if (!IsBaseOf(f->params[param]->struct_info, returned, /*assume_unknown_equal=*/true)) {
      Invalid("@backbone returns state ", k, " as ", ToString(returned), ", which does not match ",
              DescribeParam(f, param), " (the updated states come last in the result, in parameter order)");
    }
  }
  layout.outputs.assign(results.begin(), results.begin() + output_num);
  for (int k = 0; k < output_num; ++k) {
    if (layout.outputs[k]->As<TensorSINode>() == nullptr) {
      Invalid("output ", k, " of @backbone must be a tensor (a prediction), got ", ToString(layout.outputs[k]));
    }
  }
  return layout;
}

}  // namespace rxt::training
