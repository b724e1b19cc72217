// Fashion-MNIST (fashion_mnist.h): file lookup with a useful message when the data is not there,
// and checks that images and labels agree.
#include "fashion_mnist.h"

#include <filesystem>

#include "idx.h"
#include "rxt/support/error.h"

namespace rxt::cli {
namespace {

/// <dir>/<name>.gz, else <dir>/<name>; kNotFound naming both and how to get the data.
std::string FindFile(const std::string& dir, const std::string& name) {
  std::filesystem::path base(dir);
  for (const std::string& candidate : {name + ".gz", name}) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(base / candidate, ec)) return (base / candidate).string();
  }
  Throw(ErrorCode::kNotFound, "Fashion-MNIST not found: '", dir, "' has no ", name, ".gz (nor ", name,
        "). Install Debian's dataset-fashion-mnist (sudo apt-get install dataset-fashion-mnist, files in ",
        kFashionMnistDir, ") or pass --data DIR with the four IDX files");
}

}  // namespace

LabeledSet LoadImageSet(const std::string& dir, const std::string& split) {
  std::string images_path = FindFile(dir, split + "-images-idx3-ubyte");
  std::string labels_path = FindFile(dir, split + "-labels-idx1-ubyte");
  IdxArray images = ReadIdxFile(images_path);
  IdxArray labels = ReadIdxFile(labels_path);
  if (images.dims.size() != 3 || images.dims[1] != 28 || images.dims[2] != 28) {
    std::string dims;
    for (int64_t d : images.dims) dims += (dims.empty() ? "" : " x ") + std::to_string(d);
    Throw(ErrorCode::kDataLoss, images_path, ": expected N x 28 x 28 images, got ", dims);
  }
  if (labels.dims.size() != 1 || labels.dims[0] != images.dims[0]) {
    Throw(ErrorCode::kDataLoss, labels_path, ": expected ", images.dims[0], " labels (one per image of ", images_path,
          "), got ", labels.dims.size() == 1 ? std::to_string(labels.dims[0]) : "an array of rank " +
                                                                                    std::to_string(labels.dims.size()));
  }
  LabeledSet set;
  set.count = images.dims[0];
  set.pixels = std::move(images.data);
  for (size_t i = 0; i < labels.data.size(); ++i) {
    if (labels.data[i] >= kNumClasses) {
      Throw(ErrorCode::kDataLoss, labels_path, ": label ", static_cast<int>(labels.data[i]), " of sample ", i,
            " is not a class 0..9");
    }
  }
  set.labels.assign(labels.data.begin(), labels.data.end());
  return set;
}

float PixelValue(uint8_t byte) { return static_cast<float>(byte) / 255.0f; }

FashionMnist LoadFashionMnist(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    Throw(ErrorCode::kNotFound, "Fashion-MNIST not found: no directory '", dir,
          "'. Install Debian's dataset-fashion-mnist (sudo apt-get install dataset-fashion-mnist, files in ",
          kFashionMnistDir, ") or pass --data DIR with the four IDX files");
  }
  return {LoadImageSet(dir, "train"), LoadImageSet(dir, "t10k")};
}

}  // namespace rxt::cli
