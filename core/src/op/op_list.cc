#include "rxt/op/op_list.h"

namespace rxt {

void RegisterCoreOps(OpRegistry& registry) {
  RegisterElementwiseOps(registry);
  RegisterLinalgOps(registry);
  RegisterManipulateOps(registry);
  RegisterReduceOps(registry);
  RegisterCreateOps(registry);
  RegisterNNOps(registry);
  RegisterCheckpointOps(registry);
  RegisterDifferentiationOps(registry);
  RegisterCollectiveOps(registry);
  RegisterBuiltinOps(registry);
}

}  // namespace rxt
