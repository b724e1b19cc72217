// Writes IDX files for the tests of `rxt train` (rxt_idx_fixture):
//   rxt_idx_fixture dataset DIR N_TRAIN N_TEST   a small Fashion-MNIST look-alike that a model
//                                                can learn: class c lights rows 2c..2c+5
//   rxt_idx_fixture malformed DIR                one directory per way a data set can be broken
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> Header(uint8_t type, const std::vector<uint32_t>& dims) {
  std::vector<uint8_t> bytes = {0, 0, type, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<uint8_t>(d >> shift));
  }
  return bytes;
}

void WriteGzip(const fs::path& path, const std::vector<uint8_t>& bytes) {
  gzFile file = gzopen(path.string().c_str(), "wb");
  if (file == nullptr) {
    std::fprintf(stderr, "cannot write %s\n", path.string().c_str());
    std::exit(1);
  }
  if (!bytes.empty()) gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(file);
}

void WritePlain(const fs::path& path, const std::vector<uint8_t>& bytes) {
  FILE* file = std::fopen(path.string().c_str(), "wb");
  if (file == nullptr) std::exit(1);
  std::fwrite(bytes.data(), 1, bytes.size(), file);
  std::fclose(file);
}

struct Split {
  std::vector<uint8_t> images, labels;
};

/// |count| images of the learnable look-alike, labels cycling 0..9, noise from a fixed LCG.
Split MakeSplit(uint32_t count, uint32_t seed) {
  Split s;
  s.images = Header(0x08, {count, 28, 28});
  s.labels = Header(0x08, {count});
  uint32_t state = seed;
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t label = static_cast<uint8_t>((i * 7 + seed) % 10);
    s.labels.push_back(label);
    for (int row = 0; row < 28; ++row) {
      for (int col = 0; col < 28; ++col) {
        state = state * 1664525u + 1013904223u;
        bool lit = row >= 2 * label && row < 2 * label + 6;
        s.images.push_back(static_cast<uint8_t>((lit ? 160 : 0) + (state >> 26)));
      }
    }
  }
  return s;
}

void WriteDataset(const fs::path& dir, uint32_t train, uint32_t test) {
  fs::create_directories(dir);
  Split tr = MakeSplit(train, 1), te = MakeSplit(test, 2);
  WriteGzip(dir / "train-images-idx3-ubyte.gz", tr.images);
  WriteGzip(dir / "train-labels-idx1-ubyte.gz", tr.labels);
  WriteGzip(dir / "t10k-images-idx3-ubyte.gz", te.images);
  WriteGzip(dir / "t10k-labels-idx1-ubyte.gz", te.labels);
}

/// A copy of a good data set (8 train, 4 test) in |dir| with |name| replaced by |bytes|.
void WriteBroken(const fs::path& dir, const std::string& name, const std::vector<uint8_t>& bytes, bool gzip = true) {
  WriteDataset(dir, 8, 4);
  fs::remove(dir / (name + ".gz"));
  if (gzip) {
    WriteGzip(dir / (name + ".gz"), bytes);
  } else {
    WritePlain(dir / (name + ".gz"), bytes);
  }
}

void WriteMalformed(const fs::path& root) {
  Split good = MakeSplit(8, 1);
  std::vector<uint8_t> bad_magic = good.images;
  bad_magic[0] = 1;
  WriteBroken(root / "bad_magic", "train-images-idx3-ubyte", bad_magic);
  std::vector<uint8_t> float_type = good.images;
  float_type[2] = 0x0D;
  WriteBroken(root / "float_type", "train-images-idx3-ubyte", float_type);
  std::vector<uint8_t> truncated(good.images.begin(), good.images.end() - 100);
  WriteBroken(root / "truncated", "train-images-idx3-ubyte", truncated);
  std::vector<uint8_t> trailing = good.images;
  trailing.push_back(7);
  WriteBroken(root / "trailing", "train-images-idx3-ubyte", trailing);
  WriteBroken(root / "short_header", "train-images-idx3-ubyte", {0, 0, 8, 3, 0, 0});
  std::vector<uint8_t> small_images = Header(0x08, {1, 2, 2});
  small_images.insert(small_images.end(), {1, 2, 3, 4});
  WriteBroken(root / "not_28x28", "train-images-idx3-ubyte", small_images);
  WriteBroken(root / "label_count", "train-labels-idx1-ubyte", Header(0x08, {0}));
  std::vector<uint8_t> label_12 = good.labels;
  label_12.back() = 12;
  WriteBroken(root / "label_12", "train-labels-idx1-ubyte", label_12);
  // gzip's magic, then garbage: zlib reports the stream as corrupt.
  WriteBroken(root / "corrupt_gzip", "train-images-idx3-ubyte", {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3, 4, 5, 6},
              /*gzip=*/false);
  WriteDataset(root / "missing_labels", 8, 4);
  fs::remove(root / "missing_labels" / "t10k-labels-idx1-ubyte.gz");
  // Not compressed at all: read as is.
  WriteDataset(root / "plain", 8, 4);
  Split plain = MakeSplit(8, 1);
  fs::remove(root / "plain" / "train-images-idx3-ubyte.gz");
  WritePlain(root / "plain" / "train-images-idx3-ubyte", plain.images);
}

}  // namespace

int main(int argc, char** argv) {
  std::string what = argc > 1 ? argv[1] : "";
  if (what == "dataset" && argc == 5) {
    WriteDataset(argv[2], static_cast<uint32_t>(std::stoul(argv[3])), static_cast<uint32_t>(std::stoul(argv[4])));
    return 0;
  }
  if (what == "malformed" && argc == 3) {
    WriteMalformed(argv[2]);
    return 0;
  }
  std::fprintf(stderr, "usage: rxt_idx_fixture dataset DIR N_TRAIN N_TEST | malformed DIR\n");
  return 2;
}
