/// ccl.allreduce -> call_extern("ccl.allreduce_sum" | "ccl.allreduce_mean", (x...)) -> like x: the
/// communication is the communicator's (a Trainer binds these names), not a kernel. A tuple (a
/// bucket) passes its tensors, then gets as many outputs: the extern packs them into one
/// communication. Its halves likewise: ccl.allreduce_start -> call_extern("ccl.allreduce_start_sum"
/// | "_mean", (x...)) -> the request; ccl.allreduce_wait -> call_extern("ccl.allreduce_wait",
/// (request,)) -> one output per tensor of out_sinfo.
#include "legalize_util.h"

namespace rxt::legalize {
namespace {

/// The tensors of |x| (a tensor, or a tuple: its fields) as call arguments.
std::vector<Expr> TensorsOf(const Expr& x, const StructInfo& x_sinfo) {
  const auto* tuple = x_sinfo->As<TupleSINode>();
  if (tuple == nullptr) return {x};
  std::vector<Expr> tensors;
  for (size_t i = 0; i < tuple->fields.size(); ++i) {
    if (const auto* literal = x->As<TupleNode>()) {
      tensors.push_back(literal->fields[i]);
    } else {
      tensors.push_back(MakeTupleGetItem(x, static_cast<int>(i)));
    }
  }
  return tensors;
}

/// call_extern(|name|, |inputs|) with one output per tensor of |result| (a tensor or a tuple),
/// as a value of struct info |result|.
Expr ExternLike(const std::string& name, std::vector<Expr> inputs, const StructInfo& result) {
  std::vector<StructInfo> outputs;
  if (const auto* tuple = result->As<TupleSINode>()) {
    outputs = tuple->fields;
  } else {
    outputs.push_back(result);
  }
  Expr extern_call = MakeOpCall("call_extern", {MakeStringImm(name), MakeTuple(std::move(inputs))}, {}, outputs);
  // One output comes back as a tensor; a tuple of one stays a tuple.
  if (outputs.size() == 1 && result->As<TupleSINode>() != nullptr) return MakeTuple({extern_call});
  return extern_call;
}

}  // namespace

void RegisterCollectiveLegalizations(OpRegistry& r) {
  SetLegalization(r, "ccl.allreduce", [](LegalizeContext&, const CallNode& call) -> Expr {
    std::string op = infer::StringAttr(call, "op");
    return ExternLike("ccl.allreduce_" + op, TensorsOf(call.args[0], call.struct_info), call.struct_info);
  });
  SetLegalization(r, "ccl.allreduce_start", [](LegalizeContext&, const CallNode& call) -> Expr {
    std::string op = infer::StringAttr(call, "op");
    return MakeOpCall("call_extern",
                      {MakeStringImm("ccl.allreduce_start_" + op),
                       MakeTuple(TensorsOf(call.args[0], GetStructInfo(call.args[0])))},
                      {}, {call.struct_info});
  });
  SetLegalization(r, "ccl.allreduce_wait", [](LegalizeContext&, const CallNode& call) -> Expr {
    return ExternLike("ccl.allreduce_wait", {call.args[0]}, call.struct_info);
  });
}

}  // namespace rxt::legalize
