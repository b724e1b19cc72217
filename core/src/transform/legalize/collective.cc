/// ccl.allreduce -> call_extern("ccl.allreduce_sum" | "ccl.allreduce_mean", (x...)) -> like x: the
/// communication is the communicator's (a Trainer binds these names), not a kernel. A tuple (a
/// bucket) passes its tensors, then gets as many outputs: the extern packs them into one
/// communication.
#include "legalize_util.h"

namespace rxt::legalize {

void RegisterCollectiveLegalizations(OpRegistry& r) {
  SetLegalization(r, "ccl.allreduce", [](LegalizeContext&, const CallNode& call) -> Expr {
    std::string op = infer::StringAttr(call, "op");
    const Expr& x = call.args[0];
    std::vector<Expr> inputs;
    std::vector<StructInfo> outputs;
    if (const auto* tuple = call.struct_info->As<TupleSINode>()) {
      for (size_t i = 0; i < tuple->fields.size(); ++i) {
        if (const auto* literal = x->As<TupleNode>()) {
          inputs.push_back(literal->fields[i]);
        } else {
          inputs.push_back(MakeTupleGetItem(x, static_cast<int>(i)));
        }
        outputs.push_back(tuple->fields[i]);
      }
    } else {
      inputs.push_back(x);
      outputs.push_back(call.struct_info);
    }
    Expr extern_call = MakeOpCall("call_extern", {MakeStringImm("ccl.allreduce_" + op), MakeTuple(inputs)}, {},
                                  outputs);
    // One output comes back as a tensor; a tuple of one stays a tuple.
    if (outputs.size() == 1 && call.struct_info->As<TupleSINode>() != nullptr) return MakeTuple({extern_call});
    return extern_call;
  });
}

}  // namespace rxt::legalize
