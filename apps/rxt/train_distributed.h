// `rxt train --distributed NAME` (docs/distributed.md): the ranks of a data-parallel run, the
// share of each epoch's samples each rank trains on, and the agreements the ranks reach before
// training so that a rank that cannot start does not leave the others waiting.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "rxt/runtime/communicator.h"

namespace rxt::cli {

/// This process's place in the run: rank 0 of 1 without --distributed.
struct Ranks {
  std::shared_ptr<Communicator> communicator;  // null: one process
  int rank = 0;
  int size = 1;
  bool is_root() const { return rank == 0; }
};

/// The samples rank |rank| of |size| trains on in an epoch whose shuffled order is |order|,
/// by PyTorch's DistributedSampler rule (drop_last=False): the order padded to a multiple of
/// |size| with its own first samples, then every |size|-th sample from position |rank|. One
/// rank gets the whole order.
std::vector<int64_t> ShardOf(std::span<const int64_t> order, int rank, int size);

/// Rank 0's |value| on every rank, and whether every rank |succeeded|: each rank calls it at the
/// same point; when some rank did not succeed, each rank that did throws kCancelled naming how
/// many failed (so that none waits for a rank that will never arrive), and one that did not
/// goes on to report its own error.
int64_t AgreeOnRootValue(const Ranks& ranks, bool succeeded, int64_t value, const char* what);

}  // namespace rxt::cli
