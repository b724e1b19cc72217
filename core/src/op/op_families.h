// Parts of the larger op families, each in its own file; the family's Register*Ops
// function (declared in rxt/op/op_list.h) calls them.
#pragma once

#include "rxt/ir/op.h"

namespace rxt {

// manipulate_index.cc: concat, split, strided_slice, take, pad, one_hot.
void RegisterIndexManipulateOps(OpRegistry& registry);

// nn.cc calls these.
void RegisterConvOps(OpRegistry& registry);  // nn_conv.cc
void RegisterConvBackwardOps(OpRegistry& registry);  // nn_conv_backward.cc
void RegisterPoolOps(OpRegistry& registry);  // nn_pool.cc
void RegisterNormOps(OpRegistry& registry);  // nn_norm.cc
void RegisterLossOps(OpRegistry& registry);  // nn_loss.cc

}  // namespace rxt
