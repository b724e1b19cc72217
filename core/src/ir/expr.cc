#include "rxt/ir/expr.h"

#include "rxt/ir/op.h"

namespace rxt {

const std::string& OpNode::name() const { return def->name(); }

StructInfo FunctionNode::Signature() const {
  std::vector<StructInfo> param_sinfo;
  for (const auto& p : params) param_sinfo.push_back(p->struct_info);
  return FuncSI(std::move(param_sinfo), ret_sinfo, is_pure);
}

Var MakeVar(std::string name, StructInfo sinfo, Span span) {
  return std::make_shared<VarNode>(std::move(name), false, std::move(sinfo), std::move(span));
}
Var MakeDataflowVar(std::string name, StructInfo sinfo, Span span) {
  return std::make_shared<VarNode>(std::move(name), true, std::move(sinfo), std::move(span));
}
Expr MakeConstant(Tensor data, Span span) {
  RXT_CHECK(data.defined(), "constant without data");
  auto c = std::make_shared<ConstantNode>(data, std::move(span));
  c->struct_info = TensorSI(data.shape(), data.dtype());
  return c;
}
Expr MakeTuple(std::vector<Expr> fields, Span span) {
  return std::make_shared<TupleNode>(std::move(fields), std::move(span));
}
Expr MakeTupleGetItem(Expr tuple, int index, Span span) {
  return std::make_shared<TupleGetItemNode>(std::move(tuple), index, std::move(span));
}
Expr MakeCall(Expr callee, std::vector<Expr> args, Attrs attrs, std::vector<StructInfo> sinfo_args, Span span) {
  return std::make_shared<CallNode>(std::move(callee), std::move(args), std::move(attrs), std::move(sinfo_args),
                                    std::move(span));
}
Expr MakeShapeExpr(std::vector<PrimExpr> values, Span span) {
  auto e = std::make_shared<ShapeExprNode>(values, std::move(span));
  e->struct_info = ShapeSI(std::move(values));
  return e;
}
Expr MakePrimValue(PrimExpr value, Span span) {
  auto e = std::make_shared<PrimValueNode>(value, std::move(span));
  e->struct_info = PrimSI(value->dtype, value);
  return e;
}
Expr MakeStringImm(std::string value, Span span) {
  auto e = std::make_shared<StringImmNode>(std::move(value), std::move(span));
  e->struct_info = ObjectSI();
  return e;
}
Expr MakeIf(Expr cond, SeqExpr then_branch, SeqExpr else_branch, Span span) {
  return std::make_shared<IfNode>(std::move(cond), std::move(then_branch), std::move(else_branch), std::move(span));
}
Expr MakeGlobalVar(std::string name, Span span) {
  return std::make_shared<GlobalVarNode>(std::move(name), std::move(span));
}
Expr MakeExternFunc(std::string name, Span span) {
  auto e = std::make_shared<ExternFuncNode>(std::move(name), std::move(span));
  e->struct_info = ObjectSI();
  return e;
}
SeqExpr MakeSeqExpr(std::vector<BindingBlock> blocks, Expr body) {
  return std::make_shared<SeqExprNode>(std::move(blocks), std::move(body));
}
Function MakeFunction(std::vector<Var> params, SeqExpr body, StructInfo ret_sinfo, Attrs attrs, bool is_pure,
                      Span span) {
  return std::make_shared<FunctionNode>(std::move(params), std::move(body), std::move(ret_sinfo), std::move(attrs),
                                        is_pure, std::move(span));
}

const StructInfo& GetStructInfo(const Expr& e) {
  RXT_CHECK(e != nullptr, "null expression");
  RXT_CHECK(e->struct_info != nullptr, "expression has no struct info (not normalized)");
  return e->struct_info;
}

}  // namespace rxt
