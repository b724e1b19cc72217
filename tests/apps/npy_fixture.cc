// Test helper of the `rxt build` / `rxt run` tests (no Python needed):
//   rxt_npy_fixture write DIR         my_module's inputs (seeded), its weights as one
//                                     params.safetensors (and unrelated.safetensors), the plain C++ result (expected.npy)
//                                     and malformed .npy files
//   rxt_npy_fixture compare A B       exit 0 if A and B have the same dtype and shape and
//                                     float32 values within 1e-5
//   rxt_npy_fixture classes DIR       data for rxt train --train-data: {train,test}_{x,y}.npy,
//                                     samples of 2x3 values in [-1, 1), each labeled with the
//                                     index of its largest first three values (3 classes; a
//                                     linear model can learn it)
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>

#include "npy.h"
#include "rxt/runtime/safetensors.h"
#include "rxt/support/error.h"

namespace {

using rxt::DType;
using rxt::Tensor;

Tensor Random(std::vector<int64_t> shape, std::mt19937& rng) {
  Tensor t = Tensor::Empty(std::move(shape), DType::kFloat32);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = dist(rng);
  return t;
}

// y[0, j] = sum_k x[0, k] * w[j, k] + b[j] (relu if asked), in the kernel's order.
Tensor Linear(const Tensor& x, const Tensor& w, const Tensor& b, bool relu) {
  int64_t n = w.shape()[0], m = w.shape()[1];
  Tensor y = Tensor::Empty({1, n}, DType::kFloat32);
  for (int64_t j = 0; j < n; ++j) {
    float acc = 0;
    for (int64_t k = 0; k < m; ++k) acc = acc + x.data_as<float>()[k] * w.data_as<float>()[j * m + k];
    float v = acc + b.data_as<float>()[j];
    y.data_as<float>()[j] = relu ? std::max(v, 0.0f) : v;
  }
  return y;
}

void WriteBytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A valid file's bytes with the first |from| in its header replaced by |to| (same length, so
// the header length stays right).
std::string Patched(std::string bytes, const std::string& from, const std::string& to) {
  size_t at = bytes.find(from);
  if (at == std::string::npos || from.size() != to.size()) throw std::runtime_error("cannot patch " + from);
  bytes.replace(at, from.size(), to);
  return bytes;
}

void Write(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::mt19937 rng(17);
  Tensor x = Random({1, 20}, rng), w0 = Random({16, 20}, rng), b0 = Random({16}, rng);
  Tensor w1 = Random({4, 16}, rng), b1 = Random({4}, rng);
  for (auto [name, t] : {std::pair{"x", &x}, {"w0", &w0}, {"b0", &b0}, {"w1", &w1}, {"b1", &b1}}) {
    rxt::cli::WriteNpy((dir / (std::string(name) + ".npy")).string(), *t);
  }
  rxt::SaveSafetensors((dir / "params.safetensors").string(), {{{"w0", w0}, {"b0", b0}, {"w1", w1}, {"b1", b1}}, {}});
  rxt::SaveSafetensors((dir / "unrelated.safetensors").string(), {{{"z", x}}, {}});  // names no parameter
  rxt::cli::WriteNpy((dir / "expected.npy").string(), Linear(Linear(x, w0, b0, true), w1, b1, false));

  std::string good = rxt::cli::SerializeNpy(x);
  WriteBytes(dir / "fortran.npy", Patched(good, "'fortran_order': False", "'fortran_order': True "));
  WriteBytes(dir / "big_endian.npy", Patched(good, "'<f4'", "'>f4'"));
  WriteBytes(dir / "complex64.npy", Patched(good, "'<f4'", "'<c8'"));
  WriteBytes(dir / "bad_header.npy", Patched(good, "'shape': (", "'shape': ["));
  WriteBytes(dir / "truncated.npy", good.substr(0, good.size() - 3));
  WriteBytes(dir / "not_npy.npy", "just some text\n");
  WriteBytes(dir / "corrupt.rxtx", "RXTX but not really an executable\n");
  // Issue 11: a ~60 KB header the error echoed whole, which crashed FormatError's regex.
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 20), 'x': '" + std::string(60000, 'x') + "'}";
  header += std::string((64 - (12 + header.size() + 1) % 64) % 64, ' ') + "\n";
  std::string long_header = std::string("\x93NUMPY\x02\x00", 8);
  for (int i = 0; i < 4; ++i) long_header += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  WriteBytes(dir / "long_header.npy", long_header + header + std::string(80, '\0'));
  // A valid .npy whose shape does not fit %w0: the message names this file.
  rxt::cli::WriteNpy((dir / "w0_wrong.npy").string(), Random({16, 21}, rng));
  rxt::cli::WriteNpy((dir / "w0_big.npy").string(), Random({16, 40}, rng));
}

int Compare(const std::string& a_path, const std::string& b_path) {
  Tensor a = rxt::cli::ReadNpy(a_path), b = rxt::cli::ReadNpy(b_path);
  if (a.dtype() != b.dtype() || a.shape() != b.shape() || a.dtype() != DType::kFloat32) {
    std::cerr << "dtype or shape differ (or not float32)\n";
    return 1;
  }
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (!(std::fabs(a.data_as<float>()[i] - b.data_as<float>()[i]) <= 1e-5f)) {
      std::cerr << "element " << i << ": " << a.data_as<float>()[i] << " vs " << b.data_as<float>()[i] << "\n";
      return 1;
    }
  }
  std::cout << a.numel() << " elements match\n";
  return 0;
}

void WriteClasses(const std::filesystem::path& dir, const std::string& split, int64_t count, std::mt19937& rng) {
  Tensor x = Random({count, 2, 3}, rng);
  Tensor y = Tensor::Empty({count}, DType::kInt64);
  for (int64_t i = 0; i < count; ++i) {
    const float* v = x.data_as<float>() + i * 6;
    y.data_as<int64_t>()[i] = v[1] > v[0] ? (v[2] > v[1] ? 2 : 1) : (v[2] > v[0] ? 2 : 0);
  }
  rxt::cli::WriteNpy((dir / (split + "_x.npy")).string(), x);
  rxt::cli::WriteNpy((dir / (split + "_y.npy")).string(), y);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 3 && std::strcmp(argv[1], "write") == 0) {
      Write(argv[2]);
      return 0;
    }
    if (argc == 4 && std::strcmp(argv[1], "compare") == 0) return Compare(argv[2], argv[3]);
    if (argc == 3 && std::strcmp(argv[1], "classes") == 0) {
      std::filesystem::create_directories(argv[2]);
      std::mt19937 rng(7);
      WriteClasses(argv[2], "train", 240, rng);
      WriteClasses(argv[2], "test", 60, rng);
      return 0;
    }
    std::cerr << "usage: rxt_npy_fixture write DIR | compare A.npy B.npy | classes DIR\n";
  } catch (const std::exception& e) {
    std::cerr << "rxt_npy_fixture: " << e.what() << "\n";
  }
  return 2;
}
