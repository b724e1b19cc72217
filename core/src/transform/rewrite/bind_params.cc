/// BindParams(func_name, params): as in the seed, `BindParams("main", nd_params)` turns
/// trained weights into constants. Each named parameter of the function is replaced by a
/// Constant holding its tensor and removed from the signature. A bare symbolic dim of a
/// bound parameter's shape (n in Tensor((n, m), float32)) is fixed by the tensor's shape and
/// substituted everywhere in the function, so struct info downstream becomes static.
/// Errors (kInvalidArgument): an unknown parameter name, a name two parameters share, a
/// tensor whose dtype or shape does not fit the parameter, two tensors giving one symbolic
/// dim different values. A missing function is kNotFound.
#include "rxt/ir/mutator.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

/// What binding the tensors implies: which parameter becomes which constant, and the value
/// of each symbolic dim the tensors' shapes determine.
struct Binder {
  std::unordered_map<const VarNode*, Expr> constants;
  PrimVarMap symbols;
};

std::string ParamNames(const FunctionNode& function) {
  std::string names;
  for (const Var& p : function.params) names += StrCat(names.empty() ? "" : ", ", p->name);
  return names;
}

void CheckFits(const std::string& where, const Var& param, const Tensor& tensor, PrimVarMap* symbols) {
  const StructInfo& sinfo = param->struct_info;
  if (sinfo && sinfo->kind == StructInfoKind::kObject) return;
  auto* expected = sinfo ? sinfo->As<TensorSINode>() : nullptr;
  auto describe = [&] {
    return StrCat(where, "parameter ", param->name, " is ", sinfo ? ToString(sinfo) : "untyped", " but the tensor is ",
                  ToString(TensorSI(tensor.shape(), tensor.dtype())));
  };
  if (expected == nullptr || (expected->dtype != DType::kUnknown && expected->dtype != tensor.dtype()) ||
      (expected->ndim >= 0 && expected->ndim != tensor.ndim())) {
    Throw(ErrorCode::kInvalidArgument, describe());
  }
  if (!expected->shape) return;
  for (int i = 0; i < tensor.ndim(); ++i) {
    const PrimExpr& dim = (*expected->shape)[i];
    PrimExpr actual = IntImm(tensor.shape()[i]);
    if (dim->kind == PrimKind::kVar) {
      auto [it, inserted] = symbols->emplace(static_cast<const PrimVarNode*>(dim.get()), actual);
      int64_t bound = 0;
      if (!inserted && GetConstInt(it->second, &bound) && bound != tensor.shape()[i]) {
        Throw(ErrorCode::kInvalidArgument, where, "symbolic dim ", dim->As<PrimVarNode>()->name, " is ", bound,
              " by an earlier tensor but ", tensor.shape()[i], " by the tensor of ", param->name);
      }
    }
  }
  // Compound dims (n * 2) are checked once every symbol is known.
  for (int i = 0; i < tensor.ndim(); ++i) {
    int64_t value = 0;
    if (GetConstInt(Substitute((*expected->shape)[i], *symbols), &value) && value != tensor.shape()[i]) {
      Throw(ErrorCode::kInvalidArgument, describe());
    }
  }
}

class ParamBinder : public ExprMutator {
 public:
  ParamBinder(const IRModule& module, Binder binder) : ExprMutator(&module), binder_(std::move(binder)) {
    for (const auto& [param, constant] : binder_.constants) var_remap_[param] = constant;
  }

  Function Run(const Function& function) {
    Function rewritten = VisitFunction(function);
    std::vector<Var> kept;
    for (size_t i = 0; i < function->params.size(); ++i) {
      if (!binder_.constants.count(function->params[i].get())) kept.push_back(rewritten->params[i]);
    }
    return MakeFunction(std::move(kept), rewritten->body, rewritten->ret_sinfo, rewritten->attrs, rewritten->is_pure,
                        rewritten->span);
  }

  Var VisitVarDef(const Var& var) override {
    if (binder_.constants.count(var.get())) return var;  // dropped from the signature
    return ExprMutator::VisitVarDef(var);
  }

  PrimExpr VisitPrimExpr(const PrimExpr& e) override { return Substitute(e, binder_.symbols); }

 private:
  Binder binder_;
};

IRModule BindParamsInModule(IRModule module, const std::string& func_name,
                            const std::map<std::string, Tensor>& params) {
  Function function = module.GetFunction(func_name);
  std::string where = StrCat("BindParams(@", func_name, "): ");
  Binder binder;
  for (const auto& [name, tensor] : params) {
    if (!tensor.defined()) Throw(ErrorCode::kInvalidArgument, where, "the tensor for ", name, " is undefined");
    Var param;
    for (const Var& p : function->params) {
      if (p->name != name) continue;
      if (param) Throw(ErrorCode::kInvalidArgument, where, "two parameters are named ", name);
      param = p;
    }
    if (!param) {
      Throw(ErrorCode::kInvalidArgument, where, "no parameter named ", name, "; parameters: ", ParamNames(*function));
    }
    CheckFits(where, param, tensor, &binder.symbols);
    binder.constants[param.get()] = MakeConstant(tensor);
  }
  module.Add(func_name, ParamBinder(module, std::move(binder)).Run(function));
  return module;
}

}  // namespace

Pass BindParams(std::string func_name, std::map<std::string, Tensor> params) {
  auto run = [func_name = std::move(func_name), params = std::move(params)](IRModule module) {
    return BindParamsInModule(std::move(module), func_name, params);
  };
  return CreateModulePass(run, "BindParams");
}

}  // namespace rxt
