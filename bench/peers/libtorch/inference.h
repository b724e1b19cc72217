// The inference workload: the MLP's forward pass alone, timed call by call.
#pragma once

#include "measurements.h"
#include "peer_options.h"

namespace peer {

/// Times the freshly initialized MLP on random input at batch 64 and batch 1 (200 untimed calls,
/// then options.infer_iters timed ones, in inference mode), printing a line per batch size and
/// adding infer_b<N>_median_us and infer_b<N>_min_us to |result|.
void TimeInference(const PeerOptions& options, JsonObject& result);

}  // namespace peer
