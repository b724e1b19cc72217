// What SetupTrainer reads from a backbone module, checked once with a clear error for each way
// it can be wrong (the seed's SetupTrainer._check_well_formed, and more).
#pragma once

#include <vector>

#include "rxt/ir/module.h"

namespace rxt::training {

struct BackboneLayout {
  Function backbone;
  int input_num = 0, param_num = 0, state_num = 0;
  /// The backbone's outputs before its updated states: their struct infos.
  std::vector<StructInfo> outputs;
  /// The trained parameters' struct infos (params input_num .. input_num + param_num - 1).
  std::vector<StructInfo> params;
};

/// Checks |module| as a backbone module; throws rxt::Error ("SetupTrainer: ...") naming what is
/// wrong: kNotFound without @backbone, kInvalidArgument otherwise. |trainable|: at least one
/// parameter is trained (param_num >= 1; an exported backbone may have none).
BackboneLayout CheckBackbone(const IRModule& module, bool trainable = true);

}  // namespace rxt::training
