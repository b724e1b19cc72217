// The ranks of `rxt train --distributed` (train_distributed.h).
#include "train_distributed.h"

#include "rxt/runtime/dlpack.h"
#include "rxt/runtime/tensor.h"
#include "rxt/support/error.h"

namespace rxt::cli {

std::vector<int64_t> ShardOf(std::span<const int64_t> order, int rank, int size) {
  if (size < 1 || rank < 0 || rank >= size) Throw(ErrorCode::kInvalidArgument, "rank ", rank, " of ", size);
  const int64_t count = static_cast<int64_t>(order.size());
  const int64_t per_rank = (count + size - 1) / size;  // the padded order has per_rank * size samples
  std::vector<int64_t> shard;
  shard.reserve(per_rank);
  for (int64_t k = 0; k < per_rank && count > 0; ++k) {
    int64_t position = k * size + rank;
    shard.push_back(order[position % count]);  // past the end: the order's first samples again
  }
  return shard;
}

int64_t AgreeOnRootValue(const Ranks& ranks, bool succeeded, int64_t value, const char* what) {
  if (ranks.communicator == nullptr) return value;
  // (failures, rank 0's value) summed over the ranks: the others contribute 0 to the value.
  Tensor agreement = Tensor::FromVector<int64_t>({2}, DType::kInt64, {succeeded ? 0 : 1, ranks.is_root() ? value : 0});
  DLTensor view = ToDLTensorView(agreement);
  ranks.communicator->AllReduce(view, RXT_REDUCE_SUM);
  const auto* sums = static_cast<const int64_t*>(agreement.data());
  if (sums[0] > 0 && succeeded) {
    Throw(ErrorCode::kCancelled, sums[0], " of ", ranks.size, " ranks could not ", what,
          " (this one could; the others' errors say why)");
  }
  return sums[1];
}

}  // namespace rxt::cli
