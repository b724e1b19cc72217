// Golden values made by tests/golden/make_training_golden.py (PyTorch), read from
// tests/data/golden/*.json: tensors as {"dtype", "shape", "data"}, and comparisons that say
// which element differs.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "rxt/runtime/tensor.h"
#include "rxt/support/dtype.h"

namespace rxt::test {

/// The parsed file tests/data/golden/|name| (RXT_TEST_DATA_DIR/golden/|name|).
inline nlohmann::json ReadGolden(const std::string& name) {
  std::ifstream in(std::filesystem::path(RXT_TEST_DATA_DIR) / "golden" / name);
  if (!in) throw std::runtime_error("cannot read golden file " + name);
  return nlohmann::json::parse(in);
}

/// A tensor from {"dtype": "float32", "shape": [2, 3], "data": [...]}.
inline Tensor GoldenTensor(const nlohmann::json& j) {
  std::optional<DType> dtype = ParseDType(j.at("dtype").get<std::string>());
  if (!dtype) throw std::runtime_error("bad golden dtype " + j.at("dtype").dump());
  Tensor t = Tensor::Empty(j.at("shape").get<std::vector<int64_t>>(), *dtype);
  const auto& data = j.at("data");
  if (static_cast<int64_t>(data.size()) != t.numel()) throw std::runtime_error("golden tensor size mismatch");
  for (int64_t i = 0; i < t.numel(); ++i) t.SetFromDouble(i, data[i].get<double>());
  return t;
}

/// "" if |actual| matches |expected| (same shape; |a - e| <= rtol |e| + atol for every
/// element), else a description of the first few differences.
inline std::string CompareTensors(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  std::ostringstream out;
  if (actual.shape() != expected.shape()) {
    out << "shape differs (" << actual.numel() << " vs " << expected.numel() << " elements)";
    return out.str();
  }
  int reported = 0;
  for (int64_t i = 0; i < actual.numel(); ++i) {
    double a = actual.GetAsDouble(i), e = expected.GetAsDouble(i);
    bool same = std::isnan(e) ? std::isnan(a) : std::abs(a - e) <= rtol * std::abs(e) + atol;
    if (!same && reported++ < 4) out << "[" << i << "] " << a << " vs expected " << e << "; ";
  }
  return out.str();
}

}  // namespace rxt::test
