#include "rxt/runtime/dlpack.h"

#include <algorithm>
#include <cstring>

#include "rxt/support/checked_math.h"
#include "rxt/support/error.h"
#include "rxt/support/message_text.h"

namespace rxt {
namespace {

constexpr uintptr_t kAlignment = 64;  // what Tensor guarantees its storage

struct ManagerContext {
  Tensor tensor;  // keeps the storage (and the shape the DLTensor points to) alive
};

bool IsCompact(const DLTensor& dl) {
  if (dl.strides == nullptr) return true;
  int64_t expected = 1;
  for (int i = dl.ndim - 1; i >= 0; --i) {
    if (dl.shape[i] != 1 && dl.strides[i] != expected) return false;
    expected *= dl.shape[i];
  }
  return true;
}

void CheckImportable(const DLTensor& dl) {
  if (dl.device.device_type != kDLCPU) {
    Throw(ErrorCode::kInvalidArgument, "dlpack: only CPU tensors are supported, got device type ",
          static_cast<int>(dl.device.device_type));
  }
  if (dl.ndim < 0) Throw(ErrorCode::kInvalidArgument, "dlpack: negative ndim ", dl.ndim);
  if (dl.ndim > 0 && dl.shape == nullptr) Throw(ErrorCode::kInvalidArgument, "dlpack: ndim is ", dl.ndim, " but shape is NULL");
  for (int i = 0; i < dl.ndim; ++i) {
    if (dl.shape[i] < 0) Throw(ErrorCode::kInvalidArgument, "dlpack: negative dimension ", dl.shape[i]);
  }
  // The caller's buffer holds this many bytes: a shape whose size wraps cannot be real.
  int64_t bytes = 0;
  if (!CheckedByteSize(dl.shape, static_cast<size_t>(dl.ndim), std::max(1, (dl.dtype.bits * dl.dtype.lanes + 7) / 8),
                       int64_t{1} << 62, &bytes)) {
    Throw(ErrorCode::kInvalidArgument, "dlpack: the shape ", ShapeText(dl.shape, static_cast<size_t>(dl.ndim)),
          " has more than 2^62 bytes");
  }
  if (bytes > 0 && dl.data == nullptr) Throw(ErrorCode::kInvalidArgument, "dlpack: data is NULL for ", bytes, " bytes");
}

}  // namespace

DLDataType ToDLDataType(DType dtype) {
  DLDataType t{};
  t.lanes = 1;
  t.bits = static_cast<uint8_t>(DTypeBits(dtype));
  switch (dtype) {
    case DType::kFloat16:
    case DType::kFloat32:
    case DType::kFloat64: t.code = kDLFloat; break;
    case DType::kBFloat16: t.code = kDLBfloat; break;
    case DType::kInt8:
    case DType::kInt16:
    case DType::kInt32:
    case DType::kInt64: t.code = kDLInt; break;
    case DType::kUInt8: t.code = kDLUInt; break;
    case DType::kBool:
      t.code = kDLUInt;  // DLPack 0.6 has no bool: numpy and torch use uint8 for it
      t.bits = 8;
      break;
    case DType::kUnknown: Throw(ErrorCode::kInvalidArgument, "dlpack: a tensor of unknown dtype");
  }
  return t;
}

DType FromDLDataType(DLDataType t) {
  if (t.lanes == 1) {
    if (t.code == kDLFloat && t.bits == 16) return DType::kFloat16;
    if (t.code == kDLFloat && t.bits == 32) return DType::kFloat32;
    if (t.code == kDLFloat && t.bits == 64) return DType::kFloat64;
    if (t.code == kDLBfloat && t.bits == 16) return DType::kBFloat16;
    if (t.code == kDLInt && t.bits == 8) return DType::kInt8;
    if (t.code == kDLInt && t.bits == 16) return DType::kInt16;
    if (t.code == kDLInt && t.bits == 32) return DType::kInt32;
    if (t.code == kDLInt && t.bits == 64) return DType::kInt64;
    if (t.code == kDLUInt && t.bits == 8) return DType::kUInt8;
    // kDLBool (6) of DLPack 0.8+, which 0.6's header lacks: what newer producers (and rxt's
    // Python package, relabeling NumPy's bool bytes) hand over.
    if (t.code == 6 && t.bits == 8) return DType::kBool;
  }
  Throw(ErrorCode::kInvalidArgument, "dlpack: unsupported data type (code ", static_cast<int>(t.code), ", bits ",
        static_cast<int>(t.bits), ", lanes ", t.lanes, ")");
}

DLTensor ToDLTensorView(const Tensor& tensor) {
  DLTensor dl{};
  dl.data = const_cast<void*>(tensor.data());
  dl.device = DLDevice{kDLCPU, 0};
  dl.ndim = tensor.ndim();
  dl.dtype = ToDLDataType(tensor.dtype());
  dl.shape = const_cast<int64_t*>(tensor.shape().data());
  dl.strides = nullptr;
  dl.byte_offset = 0;
  return dl;
}

DLManagedTensor* ToDLPack(const Tensor& tensor) {
  if (!tensor.defined()) Throw(ErrorCode::kInvalidArgument, "dlpack: cannot export an undefined tensor");
  auto* context = new ManagerContext{tensor};
  auto* managed = new DLManagedTensor{};
  managed->dl_tensor = ToDLTensorView(context->tensor);
  managed->manager_ctx = context;
  managed->deleter = [](DLManagedTensor* self) {
    delete static_cast<ManagerContext*>(self->manager_ctx);
    delete self;
  };
  return managed;
}

Tensor CopyFromDLTensor(const DLTensor& dl) {
  CheckImportable(dl);
  DType dtype = FromDLDataType(dl.dtype);
  std::vector<int64_t> shape(dl.shape, dl.shape + dl.ndim);
  Tensor t = Tensor::Empty(shape, dtype);
  const auto* base = static_cast<const uint8_t*>(dl.data) + dl.byte_offset;
  size_t elem = DTypeBytes(dtype);
  if (IsCompact(dl)) {
    if (t.nbytes() > 0) std::memcpy(t.data(), base, t.nbytes());
    return t;
  }
  // Strided: walk the elements in row-major order.
  auto* out = static_cast<uint8_t*>(t.data());
  std::vector<int64_t> index(dl.ndim, 0);
  for (int64_t n = 0; n < t.numel(); ++n) {
    int64_t offset = 0;
    for (int d = 0; d < dl.ndim; ++d) offset += index[d] * dl.strides[d];
    std::memcpy(out + n * elem, base + offset * static_cast<int64_t>(elem), elem);
    for (int d = dl.ndim - 1; d >= 0; --d) {
      if (++index[d] < dl.shape[d]) break;
      index[d] = 0;
    }
  }
  return t;
}

namespace {

/// The address of |dl|'s first element when it can be used in place (compact, aligned); else 0.
uintptr_t InPlaceAddress(const DLTensor& dl) {
  auto address = reinterpret_cast<uintptr_t>(static_cast<const uint8_t*>(dl.data) + dl.byte_offset);
  return dl.data != nullptr && IsCompact(dl) && address % kAlignment == 0 ? address : 0;
}

}  // namespace

Tensor BorrowFromDLTensor(const DLTensor& dl) {
  CheckImportable(dl);
  uintptr_t address = InPlaceAddress(dl);
  if (address == 0) return CopyFromDLTensor(dl);
  std::shared_ptr<std::byte> storage(reinterpret_cast<std::byte*>(address), [](std::byte*) {});
  return Tensor::FromSharedStorage(std::vector<int64_t>(dl.shape, dl.shape + dl.ndim), FromDLDataType(dl.dtype),
                                   std::move(storage));
}

Tensor FromDLPack(DLManagedTensor* managed) {
  if (managed == nullptr) Throw(ErrorCode::kInvalidArgument, "dlpack: null tensor");
  const DLTensor& dl = managed->dl_tensor;
  CheckImportable(dl);
  DType dtype = FromDLDataType(dl.dtype);
  uintptr_t address = InPlaceAddress(dl);
  if (address != 0) {
    std::vector<int64_t> shape(dl.shape, dl.shape + dl.ndim);
    std::shared_ptr<std::byte> storage(reinterpret_cast<std::byte*>(address), [managed](std::byte*) {
      if (managed->deleter != nullptr) managed->deleter(managed);
    });
    return Tensor::FromSharedStorage(std::move(shape), dtype, std::move(storage));
  }
  Tensor t = CopyFromDLTensor(dl);
  if (managed->deleter != nullptr) managed->deleter(managed);
  return t;
}

}  // namespace rxt
