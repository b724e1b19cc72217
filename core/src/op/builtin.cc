// Builtins: calls of kernel functions (call_kernel) and external functions (call_extern)
// in destination-passing style, and the impure print and assert.
#include "infer_util.h"
#include "rxt/op/op_list.h"

namespace rxt {
namespace {

using namespace infer;

// The declared outputs: one, or a Tuple of several.
StructInfo OutputsFromSInfoArgs(const CallNode& call, bool tensors_only) {
  if (call.sinfo_args.empty()) OpError(call, "needs the struct info of its output (out_sinfo)");
  for (size_t i = 0; i < call.sinfo_args.size(); ++i) {
    const StructInfo& out = call.sinfo_args[i];
    if (out == nullptr) OpError(call, StrCat("output struct info ", i, " is missing"));
    if (tensors_only && out->As<TensorSINode>() == nullptr) {
      OpError(call, StrCat("output ", i, " must be a Tensor (kernels write into output buffers), got ", ToString(out)));
    }
  }
  if (call.sinfo_args.size() == 1) return call.sinfo_args[0];
  return TupleSI(call.sinfo_args);
}

StructInfo InferCallKernel(const CallNode& call) {
  if (call.args[0]->As<GlobalVarNode>() == nullptr) {
    OpError(call, StrCat("argument kernel must be a GlobalVar naming a kernel function, got ", DescribeArg(call, 0)));
  }
  TupleArg(call, 1);
  return OutputsFromSInfoArgs(call, true);
}

StructInfo InferCallExtern(const CallNode& call) {
  const auto* name = call.args[0]->As<StringImmNode>();
  if (name == nullptr) OpError(call, StrCat("argument name must be a string, got ", DescribeArg(call, 0)));
  if (name->value.empty()) OpError(call, "argument name must not be empty");
  TupleArg(call, 1);
  return OutputsFromSInfoArgs(call, true);
}

int64_t StaticElements(const TensorSINode& t) {
  int64_t n = 1;
  for (int64_t d : t.StaticShape()) n *= d;
  return n;
}

StructInfo InferView(const CallNode& call) {
  const auto* x = ArgSI(call, 0)->As<TensorSINode>();
  if (x == nullptr) OpError(call, StrCat(DescribeArg(call, 0), " must be a tensor"));
  if (call.sinfo_args.size() != 1) OpError(call, "needs the struct info of its one output (out_sinfo)");
  const auto* out = call.sinfo_args[0] == nullptr ? nullptr : call.sinfo_args[0]->As<TensorSINode>();
  if (out == nullptr || !out->shape.has_value() || out->dtype == DType::kUnknown) {
    OpError(call, "the output must be a tensor of known dtype and shape (out_sinfo)");
  }
  if (x->dtype != DType::kUnknown && x->dtype != out->dtype) {
    OpError(call, StrCat("a view keeps the dtype: ", DescribeArg(call, 0), " is ", DTypeName(x->dtype), ", the output ",
                         DTypeName(out->dtype)));
  }
  if (x->shape && x->IsStatic() && out->IsStatic() && StaticElements(*x) != StaticElements(*out)) {
    OpError(call, StrCat("a view keeps the number of elements: ", StaticElements(*x), " in ", DescribeArg(call, 0),
                         ", ", StaticElements(*out), " in the output"));
  }
  return call.sinfo_args[0];
}

StructInfo InferPrint(const CallNode& call) {
  StringAttr(call, "format");
  for (size_t i = 0; i < call.args.size(); ++i) ArgSI(call, static_cast<int>(i));  // every value is normalized
  return TupleSI({});
}

StructInfo InferAssert(const CallNode& call) {
  const StructInfo& cond = ArgSI(call, 0);
  bool is_bool_scalar = false;
  if (const auto* prim = cond->As<PrimSINode>()) {
    is_bool_scalar = prim->dtype == DType::kBool;
  } else if (const auto* t = cond->As<TensorSINode>()) {
    is_bool_scalar = (t->dtype == DType::kBool || t->dtype == DType::kUnknown) && t->ndim <= 0;
  }
  if (!is_bool_scalar) {
    OpError(call, StrCat(DescribeArg(call, 0), " must be a bool scalar (a 0-d tensor or a Prim value)"));
  }
  if (call.args[1]->As<StringImmNode>() == nullptr) {
    OpError(call, StrCat("argument message must be a string, got ", DescribeArg(call, 1)));
  }
  return TupleSI({});
}

}  // namespace

void RegisterBuiltinOps(OpRegistry& r) {
  r.Def("call_kernel")
      .Describe(
          "Calls a kernel function of the module in destination-passing style: the outputs, described by "
          "sinfo_args (out_sinfo), are allocated and passed after the inputs; the result is the output, or a "
          "Tuple of them if several.")
      .Input("kernel", "GlobalVar")
      .Input("args", "Tuple")
      .Set<FInferStructInfo>(InferCallKernel);
  r.Def("call_extern")
      .Describe(
          "Calls an external function, looked up by name at run time, in destination-passing style like "
          "call_kernel.")
      .Input("name", "StringImm")
      .Input("args", "Tuple")
      .Set<FInferStructInfo>(InferCallExtern);
  r.Def("view")
      .Describe(
          "The tensor's storage seen with the shape of out_sinfo (the same dtype and number of elements, "
          "row-major): no copy. LegalizeOps makes reshape, flatten, expand_dims and squeeze into views.")
      .Input("x", "Tensor")
      .Set<FInferStructInfo>(InferView);
  r.Def("print")
      .Describe(
          "Prints its arguments at run time (impure); format, if not empty, is a format string with {} for "
          "each argument. Returns ().")
      .Variadic()
      .Input("values", "Any")
      .Attr("format", AttrKind::kString, "", "a format string with one {} per argument; empty: space-separated")
      .Set<FInferStructInfo>(InferPrint)
      .Set<FPurity>(FPurity{false});
  r.Def("assert")
      .Describe("Fails at run time with message unless condition holds (impure). Returns ().")
      .Input("condition", "Any")
      .Input("message", "StringImm")
      .Set<FInferStructInfo>(InferAssert)
      .Set<FPurity>(FPurity{false});
}

}  // namespace rxt
