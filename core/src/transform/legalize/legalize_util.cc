#include "legalize_util.h"

namespace rxt::legalize {
namespace {

OutputTensor TensorOf(const StructInfo& sinfo, const std::string& what) {
  const auto* t = sinfo ? sinfo->As<TensorSINode>() : nullptr;
  if (t == nullptr || !t->shape || t->dtype == DType::kUnknown) {
    CannotLegalize(StrCat("the shape and dtype of ", what, " must be known, got ",
                          sinfo ? ToString(sinfo) : std::string("nothing")));
  }
  return {*t->shape, t->dtype};
}

/// The op's name without its namespace: "nn.relu" -> "relu".
std::string ShortOpName(const CallNode& call) {
  const OpDef* op = AsOp(call.callee);
  std::string name = op ? op->name() : "kernel";
  size_t dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

}  // namespace

void CannotLegalize(const std::string& reason) { Throw(ErrorCode::kUnimplemented, reason); }

OutputTensor OutputOf(const CallNode& call) { return TensorOf(call.struct_info, "the result"); }

OutputTensor OutputField(const CallNode& call, int field) {
  const auto* tuple = call.struct_info ? call.struct_info->As<TupleSINode>() : nullptr;
  RXT_CHECK(tuple != nullptr && field >= 0 && static_cast<size_t>(field) < tuple->fields.size());
  return TensorOf(tuple->fields[field], StrCat("field ", field, " of the result"));
}

void RequireNumeric(const CallNode& call, DType dtype) {
  if (dtype == DType::kBool) CannotLegalize(StrCat("arithmetic on bool tensors (", DescribeArg(call, 0), ")"));
}

TensorRef KernelCall::Tensor(int arg) {
  args_.push_back(call_.args[arg]);
  return kb_.Input(infer::ArgName(call_, arg), infer::ArgSI(call_, arg));
}

TensorRef KernelCall::TensorField(int arg, int field) {
  const Expr& tuple = call_.args[arg];
  const auto* literal = tuple->As<TupleNode>();
  args_.push_back(literal ? literal->fields[field] : MakeTupleGetItem(tuple, field));
  const TupleSINode& sinfo = infer::TupleArg(call_, arg);
  return kb_.Input(StrCat(infer::ArgName(call_, arg), field), sinfo.fields[field]);
}

PrimExpr KernelCall::Scalar(int arg, DType dtype) {
  const Expr& value = call_.args[arg];
  const StructInfo& sinfo = infer::ArgSI(call_, arg);
  if (const auto* prim = sinfo->As<PrimSINode>()) {
    PrimExpr known = prim->value;
    if (const auto* literal = value->As<PrimValueNode>()) known = literal->value;
    if (known && known->kind == PrimKind::kIntImm) return te::Const(static_cast<double>(known->As<IntImmNode>()->value), dtype);
    if (known && known->kind == PrimKind::kFloatImm) return te::Const(known->As<FloatImmNode>()->value, dtype);
    if (prim->dtype == DType::kUnknown) CannotLegalize(StrCat("the dtype of ", DescribeArg(call_, arg), " is not known"));
    args_.push_back(value);
    return te::Cast(dtype, kb_.ScalarInput(infer::ArgName(call_, arg), prim->dtype));
  }
  const auto* t = sinfo->As<TensorSINode>();
  if (t == nullptr || t->ndim != 0) CannotLegalize(StrCat(DescribeArg(call_, arg), " must be a scalar"));
  return te::Cast(dtype, Tensor(arg)({}));
}

Expr KernelCall::Finish(LegalizeContext& context, const std::vector<TensorRef>& outputs) {
  std::vector<StructInfo> out_sinfo;
  if (const auto* tuple = call_.struct_info->As<TupleSINode>()) {
    out_sinfo = tuple->fields;
  } else {
    out_sinfo = {call_.struct_info};
  }
  RXT_CHECK(out_sinfo.size() == outputs.size(), "the kernel has ", outputs.size(), " outputs, the call ",
            out_sinfo.size());
  // A kernel of one output returns a tensor; a call typed as a tuple of one (split into one
  // part: concat's adjoint of a single input) still gives a tuple.
  const bool tuple_of_one = call_.struct_info->As<TupleSINode>() != nullptr && out_sinfo.size() == 1;
  Expr result = context.CallKernel(ShortOpName(call_), kb_.Build(outputs), args_, std::move(out_sinfo));
  return tuple_of_one ? MakeTuple({result}) : result;
}

Expr LegalizeElementwise(LegalizeContext& context, const CallNode& call, const ElementwiseFn& fn) {
  OutputTensor out = OutputOf(call);
  KernelCall k(call);
  std::vector<TensorRef> inputs;
  for (size_t a = 0; a < call.args.size(); ++a) inputs.push_back(k.Tensor(static_cast<int>(a)));
  TensorRef result = k.builder().Compute(ShortOpName(call), out.shape, [&](const Index& i) {
    std::vector<PrimExpr> values;
    for (const TensorRef& t : inputs) values.push_back(t(te::BroadcastIndex(i, out.shape, t.shape())));
    return te::Cast(out.dtype, fn(values));
  });
  return k.Finish(context, {result});
}

Index ReductionInputIndex(const Index& index, const Index& reduce_index, const std::vector<bool>& reduced,
                          bool keepdims) {
  Index in;
  size_t next_spatial = 0, next_reduce = 0;
  for (bool r : reduced) {
    if (r) {
      in.push_back(reduce_index[next_reduce++]);
      if (keepdims) ++next_spatial;
    } else {
      in.push_back(index[next_spatial++]);
    }
  }
  return in;
}

Dims ReducedDims(const Dims& shape, const std::vector<bool>& reduced) {
  Dims dims;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (reduced[k]) dims.push_back(shape[k]);
  }
  return dims;
}

std::vector<bool> AxisMask(const CallNode& call, int ndim, const std::optional<std::vector<int64_t>>& axes) {
  std::vector<bool> mask(ndim, !axes.has_value());
  if (axes) {
    for (int a : infer::NormalizeAxes(call, 0, *axes, ndim)) mask[a] = true;
  }
  return mask;
}

DType AccumulationDType(DType dtype) { return IsFloat(dtype) ? DType::kFloat64 : dtype; }

TensorRef WideSum(KernelBuilder& kb, const std::string& name, Dims shape, Dims extents, const ReduceFn& fn) {
  return kb.Reduce(name, std::move(shape), std::move(extents), ReduceKind::kSum,
                   [&](const Index& i, const Index& r) {
                     PrimExpr value = fn(i, r);
                     return te::Cast(AccumulationDType(value->dtype), value);
                   });
}

TensorRef Narrow(KernelBuilder& kb, const std::string& name, const TensorRef& x, DType dtype) {
  if (x.dtype() == dtype) return x;
  return kb.Compute(name, x.shape(), [&](const Index& i) { return te::Cast(dtype, x(i)); });
}

void SetLegalization(OpRegistry& registry, const std::string& name, FLegalize legalize) {
  OpDef* op = registry.FindMutable(name);
  RXT_CHECK(op != nullptr, "no op named ", name, " to legalize");
  if (!op->Has<FLegalize>()) op->Set<FLegalize>(std::move(legalize));
}

}  // namespace rxt::legalize
