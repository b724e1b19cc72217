// Fashion-MNIST for `rxt train`: the four IDX files of Debian's dataset-fashion-mnist (or
// any directory holding the same names, gzip-compressed or not): pixels kept as the bytes of the
// files (a quarter of float32's memory; batches convert them to float32 in [0, 1]) and class
// labels 0..9.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rxt::cli {

/// Where Debian's dataset-fashion-mnist puts the files (`dpkg -L dataset-fashion-mnist`).
inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";
inline constexpr int64_t kImagePixels = 28 * 28;
inline constexpr int kNumClasses = 10;

/// A labeled set as `rxt train` feeds it: |count| samples of |features| values each, kept as
/// bytes (Fashion-MNIST's pixels, float32(byte) / 255 when batched) or as float32 (the arrays
/// of --train-data), and a class label per sample.
struct LabeledSet {
  int64_t count = 0;
  int64_t features = kImagePixels;
  std::vector<uint8_t> pixels;  // count * features, row-major, 0..255; or empty
  std::vector<float> values;    // count * features, row-major; or empty (then pixels)
  std::vector<int64_t> labels;  // count, each in [0, num_classes)
  int num_classes = kNumClasses;
};

/// A pixel byte as the models see it: float32(byte) / 255, exactly as PyTorch's ToTensor.
float PixelValue(uint8_t byte);

struct FashionMnist {
  LabeledSet train, test;
};

/// Reads <dir>/{train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]. Throws kNotFound saying how
/// to get the data when a file is missing, kDataLoss for a malformed file, images that are not
/// 28x28, a label count that differs from the image count, or a label above 9.
FashionMnist LoadFashionMnist(const std::string& dir);

/// One split ("train" or "t10k") of |dir|.
LabeledSet LoadImageSet(const std::string& dir, const std::string& split);

}  // namespace rxt::cli
