#include "rxt/runtime/tensor.h"

#include <cstdlib>
#include <cstring>

#include "rxt/runtime/allocator.h"
#include "rxt/runtime/memory_limit.h"
#include "rxt/support/checked_math.h"
#include "rxt/support/error.h"
#include "rxt/support/message_text.h"
#include "rxt/support/half.h"

namespace rxt {
namespace {

constexpr size_t kAlignment = 64;  // a cache line; also what AVX-512 loads like

std::shared_ptr<std::byte> AllocateStorage(size_t nbytes) { return AllocateZeroed(nbytes, kAlignment, "a tensor"); }

}  // namespace

Tensor Tensor::Empty(std::vector<int64_t> shape, DType dtype) {
  if (dtype == DType::kUnknown) Throw(ErrorCode::kInvalidArgument, "tensor: dtype must be known");
  for (int64_t d : shape) {
    if (d < 0) Throw(ErrorCode::kInvalidArgument, "tensor: negative dimension ", d);
  }
  // Sizes often come from files: the byte count must not wrap, and must be within the limit.
  int64_t bytes = 0;
  auto what = [&] { return StrCat("a ", DTypeName(dtype), " tensor of shape ", ShapeText(shape.data(), shape.size())); };
  if (!CheckedByteSize(shape.data(), shape.size(), DTypeBytes(dtype), int64_t{1} << 62, &bytes)) {
    Throw(ErrorCode::kResourceExhausted, what(), " has more than 2^62 bytes");
  }
  if (bytes > MemoryLimit()) CheckMemoryLimit(bytes, what());
  Tensor t;
  t.shape_ = std::move(shape);
  t.dtype_ = dtype;
  t.storage_ = AllocateStorage(t.nbytes());
  return t;
}

Tensor Tensor::FromBytes(std::vector<int64_t> shape, DType dtype, const void* data, size_t nbytes) {
  Tensor t = Empty(std::move(shape), dtype);
  if (nbytes != t.nbytes()) {
    Throw(ErrorCode::kInvalidArgument, "tensor: ", nbytes, " bytes given for a tensor of ", t.nbytes(), " bytes");
  }
  if (nbytes > 0) std::memcpy(t.data(), data, nbytes);
  return t;
}

int64_t Tensor::numel() const {
  // Unsigned: a shape with a zero dim may have others whose product wraps (Empty checked the
  // rest); the product is 0 either way.
  uint64_t n = 1;
  for (int64_t d : shape_) n *= static_cast<uint64_t>(d);
  return static_cast<int64_t>(n);
}

Tensor Tensor::Reshaped(std::vector<int64_t> shape) const {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) Throw(ErrorCode::kInvalidArgument, "a view cannot have the negative dim ", d);
    if (!CheckedMul(n, d, &n)) Throw(ErrorCode::kInvalidArgument, "a view of shape ", ShapeText(shape.data(), shape.size()), " has more than 2^63 elements");
  }
  if (n != numel()) {
    Throw(ErrorCode::kInvalidArgument, "a view of ", numel(), " elements cannot have ", n);
  }
  return FromSharedStorage(std::move(shape), dtype_, storage_);
}

size_t Tensor::nbytes() const { return static_cast<size_t>(numel()) * DTypeBytes(dtype_); }

double Tensor::GetAsDouble(int64_t i) const {
  const void* p = static_cast<const std::byte*>(data()) + i * DTypeBytes(dtype_);
  switch (dtype_) {
    case DType::kFloat16: return HalfToFloat(*static_cast<const uint16_t*>(p));
    case DType::kBFloat16: return BFloat16ToFloat(*static_cast<const uint16_t*>(p));
    case DType::kFloat32: return *static_cast<const float*>(p);
    case DType::kFloat64: return *static_cast<const double*>(p);
    case DType::kInt8: return *static_cast<const int8_t*>(p);
    case DType::kInt16: return *static_cast<const int16_t*>(p);
    case DType::kInt32: return *static_cast<const int32_t*>(p);
    case DType::kInt64: return static_cast<double>(*static_cast<const int64_t*>(p));
    case DType::kUInt8: return *static_cast<const uint8_t*>(p);
    case DType::kBool: return *static_cast<const uint8_t*>(p) != 0 ? 1.0 : 0.0;
    case DType::kUnknown: break;
  }
  Throw(ErrorCode::kInternal, "tensor: element read of an unknown dtype");
}

void Tensor::SetFromDouble(int64_t i, double v) {
  void* p = static_cast<std::byte*>(data()) + i * DTypeBytes(dtype_);
  switch (dtype_) {
    case DType::kFloat16: *static_cast<uint16_t*>(p) = FloatToHalf(static_cast<float>(v)); return;
    case DType::kBFloat16: *static_cast<uint16_t*>(p) = FloatToBFloat16(static_cast<float>(v)); return;
    case DType::kFloat32: *static_cast<float*>(p) = static_cast<float>(v); return;
    case DType::kFloat64: *static_cast<double*>(p) = v; return;
    case DType::kInt8: *static_cast<int8_t*>(p) = static_cast<int8_t>(v); return;
    case DType::kInt16: *static_cast<int16_t*>(p) = static_cast<int16_t>(v); return;
    case DType::kInt32: *static_cast<int32_t*>(p) = static_cast<int32_t>(v); return;
    case DType::kInt64: *static_cast<int64_t*>(p) = static_cast<int64_t>(v); return;
    case DType::kUInt8: *static_cast<uint8_t*>(p) = static_cast<uint8_t>(v); return;
    case DType::kBool: *static_cast<uint8_t*>(p) = v != 0.0; return;
    case DType::kUnknown: break;
  }
  Throw(ErrorCode::kInternal, "tensor: element write of an unknown dtype");
}

Tensor Tensor::Clone() const {
  if (!defined()) return Tensor();
  return FromBytes(shape_, dtype_, data(), nbytes());
}

bool Tensor::BitwiseEqual(const Tensor& other) const {
  if (defined() != other.defined()) return false;
  if (!defined()) return true;
  if (dtype_ != other.dtype_ || shape_ != other.shape_) return false;
  return std::memcmp(data(), other.data(), nbytes()) == 0;
}

}  // namespace rxt
