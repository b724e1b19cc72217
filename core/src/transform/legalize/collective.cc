/// ccl.allreduce -> call_extern("ccl.allreduce_sum" | "ccl.allreduce_mean", (x,)) -> a tensor like
/// x: the communication is the communicator's (a Trainer binds these names), not a kernel.
#include "legalize_util.h"

namespace rxt::legalize {

void RegisterCollectiveLegalizations(OpRegistry& r) {
  SetLegalization(r, "ccl.allreduce", [](LegalizeContext&, const CallNode& call) -> Expr {
    std::string op = infer::StringAttr(call, "op");
    return MakeOpCall("call_extern", {MakeStringImm("ccl.allreduce_" + op), MakeTuple({call.args[0]})}, {},
                      {call.struct_info});
  });
}

}  // namespace rxt::legalize
