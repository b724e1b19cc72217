#include "fashion_mnist.h"

#include <zlib.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace peer {
namespace {

const char kDataDirectory[] = "/usr/share/datasets/fashion-mnist";

std::vector<uint8_t> Inflate(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) throw std::runtime_error("cannot open " + path);
  std::vector<uint8_t> bytes;
  std::vector<uint8_t> chunk(1 << 16);
  int got;
  while ((got = gzread(file, chunk.data(), static_cast<unsigned>(chunk.size()))) > 0) {
    bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + got);
  }
  gzclose(file);
  if (got < 0) throw std::runtime_error("cannot inflate " + path);
  return bytes;
}

uint32_t BigEndian32(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | uint32_t{p[3]};
}

// An IDX file: a magic number whose last byte is the rank, the dimensions, then uint8 values.
struct Idx {
  std::vector<uint8_t> bytes;
  std::vector<int64_t> dims;
  const uint8_t* values = nullptr;
  int64_t count = 1;
};

Idx ReadIdx(const std::string& name) {
  const std::string path = std::string(kDataDirectory) + "/" + name;
  Idx idx;
  idx.bytes = Inflate(path);
  if (idx.bytes.size() < 4) throw std::runtime_error(path + ": not an IDX file");
  const size_t rank = idx.bytes[3];
  const size_t header = 4 + 4 * rank;
  if (idx.bytes.size() < header) throw std::runtime_error(path + ": truncated header");
  for (size_t d = 0; d < rank; ++d) {
    idx.dims.push_back(BigEndian32(idx.bytes.data() + 4 + 4 * d));
    idx.count *= idx.dims.back();
  }
  if (idx.bytes.size() < header + static_cast<size_t>(idx.count)) throw std::runtime_error(path + ": truncated data");
  idx.values = idx.bytes.data() + header;
  return idx;
}

// [N, rows * cols] float32, pixels scaled to [0, 1].
torch::Tensor Images(const std::string& name) {
  Idx idx = ReadIdx(name);
  const int64_t n = idx.dims.at(0);
  torch::Tensor images = torch::empty({n, idx.count / n}, torch::kFloat32);
  float* out = images.data_ptr<float>();
  for (int64_t i = 0; i < idx.count; ++i) out[i] = idx.values[i] / 255.0f;
  return images;
}

// [N] int64 class indices.
torch::Tensor Labels(const std::string& name) {
  Idx idx = ReadIdx(name);
  torch::Tensor labels = torch::empty({idx.count}, torch::kInt64);
  int64_t* out = labels.data_ptr<int64_t>();
  for (int64_t i = 0; i < idx.count; ++i) out[i] = idx.values[i];
  return labels;
}

}  // namespace

FashionMnist LoadFashionMnist() {
  FashionMnist data;
  data.train_images = Images("train-images-idx3-ubyte.gz");
  data.train_labels = Labels("train-labels-idx1-ubyte.gz");
  data.test_images = Images("t10k-images-idx3-ubyte.gz");
  data.test_labels = Labels("t10k-labels-idx1-ubyte.gz");
  return data;
}

}  // namespace peer
