/// BindSymbolicVars(func_name, values): fixes symbolic dims of a function to numbers, as TVM's
/// relax.transform.BindSymbolicVars: every use of a named dim (parameters' struct info, shape
/// values, each binding's struct info) becomes the number, so that struct info downstream is
/// static and kernels are built for the shape (`rxt train` binds an imported model's symbolic
/// batch to --batch-size: kernel libraries take static shapes).
/// Errors (kInvalidArgument): a name the function has no dim of (listing those it has), a
/// negative value. A missing function is kNotFound.
#include <set>

#include "rxt/ir/mutator.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

/// The symbolic dims of |function|'s parameters, by name.
class DimCollector : public ExprMutator {
 public:
  explicit DimCollector(const IRModule& module) : ExprMutator(&module) {}
  PrimExpr VisitPrimExpr(const PrimExpr& e) override {
    if (const auto* var = e->As<PrimVarNode>()) dims_.emplace(var->name, var);
    return ExprMutator::VisitPrimExpr(e);
  }
  std::map<std::string, const PrimVarNode*> dims_;
};

class DimBinder : public ExprMutator {
 public:
  DimBinder(const IRModule& module, PrimVarMap map) : ExprMutator(&module), map_(std::move(map)) {}
  PrimExpr VisitPrimExpr(const PrimExpr& e) override { return Substitute(e, map_); }

 private:
  PrimVarMap map_;
};

IRModule BindInModule(IRModule module, const std::string& func_name, const std::map<std::string, int64_t>& values) {
  Function function = module.GetFunction(func_name);
  const std::string where = StrCat("BindSymbolicVars(@", func_name, "): ");
  DimCollector collector(module);
  for (const Var& p : function->params) collector.VisitStructInfo(p->struct_info);
  PrimVarMap map;
  for (const auto& [name, value] : values) {
    auto it = collector.dims_.find(name);
    if (it == collector.dims_.end()) {
      std::string names;
      for (const auto& [dim, unused] : collector.dims_) names += StrCat(names.empty() ? "" : ", ", dim);
      Throw(ErrorCode::kInvalidArgument, where, "its parameters have no symbolic dim ", name, " (they have: ",
            names.empty() ? "none" : names, ")");
    }
    if (value < 0) Throw(ErrorCode::kInvalidArgument, where, "dim ", name, " cannot be ", value);
    map[it->second] = IntImm(value);
  }
  module.Add(func_name, DimBinder(module, std::move(map)).VisitFunction(function));
  return Normalize()(module);
}

}  // namespace

Pass BindSymbolicVars(std::string func_name, std::map<std::string, int64_t> values) {
  auto run = [func_name = std::move(func_name), values = std::move(values)](IRModule module) {
    return BindInModule(std::move(module), func_name, values);
  };
  return CreateModulePass(run, "BindSymbolicVars");
}

}  // namespace rxt
