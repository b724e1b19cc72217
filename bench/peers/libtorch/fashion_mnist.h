// Fashion-MNIST from Debian's dataset-fashion-mnist (gzip IDX files), preloaded as tensors.
#pragma once

#include <torch/torch.h>

namespace peer {

struct FashionMnist {
  torch::Tensor train_images, train_labels;  // [60000, 784] float32 in [0, 1]; [60000] int64
  torch::Tensor test_images, test_labels;    // [10000, 784]; [10000]
};

/// Reads the four files from /usr/share/datasets/fashion-mnist; throws std::runtime_error
/// naming a file that is missing or malformed.
FashionMnist LoadFashionMnist();

}  // namespace peer
