// Training one of the models on preloaded Fashion-MNIST, timing each step and each epoch.
#pragma once

#include <memory>

#include "fashion_mnist.h"
#include "measurements.h"
#include "models.h"
#include "peer_options.h"

namespace peer {

/// Trains |model| with |optimizer| for options.epochs epochs, printing one line per epoch, and
/// adds the RESULT fields (step_median_ms, epoch_s, test_acc, final_test_acc...) to |result|.
void Train(Classifier& model, torch::optim::Optimizer& optimizer, const FashionMnist& data,
           const PeerOptions& options, JsonObject& result);

}  // namespace peer
