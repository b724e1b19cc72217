// The command line of the libtorch peer; the same flags and defaults as the PyTorch peer
// (../torch_mlp.py) and rxt's bench/train_bench.cc, so bench/train.sh passes one set to all.
#pragma once

#include <string>

namespace peer {

struct PeerOptions {
  std::string model = "mlp";  // mlp | cnn | infer
  int threads = 1;
  int epochs = -1;            // unset: 5 for mlp, 1 for cnn
  int batch = 64;
  double lr = 0.01;
  double weight_decay = 0.01;  // the MLP's SGD only; LeNet-5 uses momentum 0.9 instead
  std::string reduction;       // unset: sum for mlp, mean for cnn
  int seed = 0;
  int infer_iters = 5000;
  bool flush_denormal = false;  // --flush-denormal 1: FTZ/DAZ
};

/// Parses "--flag value" pairs; throws std::invalid_argument naming an unknown flag or value.
PeerOptions ParsePeerOptions(int argc, char** argv);

}  // namespace peer
