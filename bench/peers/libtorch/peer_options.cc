#include "peer_options.h"

#include <stdexcept>

namespace peer {

PeerOptions ParsePeerOptions(int argc, char** argv) {
  PeerOptions o;
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument(flag + " needs a value");
    const std::string value = argv[i + 1];
    if (flag == "--model") o.model = value;
    else if (flag == "--threads") o.threads = std::stoi(value);
    else if (flag == "--epochs") o.epochs = std::stoi(value);
    else if (flag == "--batch") o.batch = std::stoi(value);
    else if (flag == "--lr") o.lr = std::stod(value);
    else if (flag == "--weight-decay") o.weight_decay = std::stod(value);
    else if (flag == "--reduction") o.reduction = value;
    else if (flag == "--seed") o.seed = std::stoi(value);
    else if (flag == "--infer-iters") o.infer_iters = std::stoi(value);
    else if (flag == "--flush-denormal") o.flush_denormal = value == "1";
    else throw std::invalid_argument("unknown flag " + flag);
  }
  if (o.model != "mlp" && o.model != "cnn" && o.model != "infer") {
    throw std::invalid_argument("--model takes mlp, cnn or infer, not " + o.model);
  }
  // The workloads' own settings (bench/peers/README.md) unless the caller says otherwise.
  if (o.epochs < 0) o.epochs = o.model == "cnn" ? 1 : 5;
  if (o.reduction.empty()) o.reduction = o.model == "cnn" ? "mean" : "sum";
  if (o.epochs < 1 || o.batch < 1 || o.threads < 1) {
    throw std::invalid_argument("--epochs, --batch and --threads must be at least 1");
  }
  if (o.reduction != "sum" && o.reduction != "mean") {
    throw std::invalid_argument("--reduction takes sum or mean, not " + o.reduction);
  }
  return o;
}

}  // namespace peer
