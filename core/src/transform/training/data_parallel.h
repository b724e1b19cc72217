// The communication of data-parallel training inside the trainer module: values combined over
// the ranks with ccl.allreduce, packed into buckets so that a model of many small tensors makes
// a few large calls (each call costs a latency; docs/distributed.md has the cost model).
#pragma once

#include <string>
#include <vector>

#include "rxt/ir/expr.h"
#include "rxt/ir/module.h"

namespace rxt::training {

/// A value to combine over the ranks and how: "sum" or "mean".
struct ReducedValue {
  Expr value;  // a leaf tensor with its struct info
  std::string op;
};

/// Each value combined over the ranks, returned in the order of |values|. Neighbouring values
/// of one op and one dtype with static shapes share a bucket (one call for the tuple of them)
/// while it holds at most |bucket_bytes|; a value larger than that, or of unknown shape, goes
/// alone. Without |overlap|, one ccl.allreduce per bucket, buckets in the order of |values|.
/// With it, the values are bucketed in the order |blocks| compute them (a backward pass: the
/// last layer's gradients first), and each bucket is a ccl.allreduce_start, all of them waited
/// for (ccl.allreduce_wait) after the last; ScheduleCollectives later moves each start up to
/// where its bucket is complete. The bindings are appended to the last block of |blocks| (a
/// dataflow block).
std::vector<Expr> AllReduceInBuckets(std::vector<BindingBlock>& blocks, const std::vector<ReducedValue>& values,
                                     int64_t bucket_bytes, bool overlap, const IRModule& module);

}  // namespace rxt::training
