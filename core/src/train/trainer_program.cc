/// TrainerTensorSpec's helpers (train/trainer_program.h).
#include "rxt/train/trainer_program.h"

#include <algorithm>
#include <cstring>

#include "rxt/support/error.h"

namespace rxt {

bool TrainerTensorSpec::IsStatic() const {
  if (ndim < 0) return false;
  for (int64_t d : shape) {
    if (d < 0) return false;
  }
  return true;
}

std::string TrainerTensorSpec::TypeText() const {
  if (ndim < 0) return StrCat("Tensor(", DTypeName(dtype), ")");
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) {
    dims += (i == 0 ? "" : ", ") + (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  }
  if (shape.size() == 1) dims += ",";
  return StrCat("Tensor((", dims, "), ", DTypeName(dtype), ")");
}

InitialOptimState InitialOptimState::Of(const Tensor& value) {
  InitialOptimState out{value.dtype(), value.shape(), value};
  const size_t element = DTypeBytes(value.dtype());
  const int64_t n = value.numel();
  if (n <= 1 || element == 0) return out;
  const auto* bytes = static_cast<const unsigned char*>(value.data());
  for (int64_t i = 1; i < n; ++i) {
    if (std::memcmp(bytes, bytes + i * element, element) != 0) return out;
  }
  out.values = Tensor::FromBytes({}, value.dtype(), bytes, element);
  return out;
}

Tensor InitialOptimState::Materialize() const {
  if (values.shape() == shape) return values.Clone();
  Tensor out = Tensor::Empty(shape, dtype);  // zero-filled
  const size_t element = values.nbytes();
  const auto* first = static_cast<const unsigned char*>(values.data());
  if (std::all_of(first, first + element, [](unsigned char b) { return b == 0; })) return out;
  auto* bytes = static_cast<unsigned char*>(out.data());
  for (int64_t i = 0; i < out.numel(); ++i) std::memcpy(bytes + i * element, values.data(), element);
  return out;
}

bool InitialOptimState::Holds(const Tensor& value) const {
  if (!value.defined() || value.dtype() != dtype || value.shape() != shape) return false;
  if (values.shape() == shape) return std::memcmp(value.data(), values.data(), value.nbytes()) == 0;
  const size_t element = values.nbytes();
  const auto* bytes = static_cast<const unsigned char*>(value.data());
  for (int64_t i = 0; i < value.numel(); ++i) {
    if (std::memcmp(bytes + i * element, values.data(), element) != 0) return false;
  }
  return true;
}

}  // namespace rxt
