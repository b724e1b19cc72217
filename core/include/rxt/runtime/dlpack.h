// DLPack interop for host tensors: views (DLTensor) and ownership transfer (DLManagedTensor).
#pragma once

#include <dlpack/dlpack.h>

#include "rxt/runtime/tensor.h"

namespace rxt {

/// Throws kInvalidArgument for a dtype DLPack (0.6) cannot describe.
DLDataType ToDLDataType(DType dtype);
/// Throws kInvalidArgument naming the type for one rxt does not support.
DType FromDLDataType(DLDataType type);

/// A view of |tensor| on the CPU: no copy, valid while |tensor|'s storage lives and its shape
/// vector is not changed (the DLTensor's shape points into it).
DLTensor ToDLTensorView(const Tensor& tensor);

/// Hands out a DLManagedTensor sharing |tensor|'s storage (zero-copy); its deleter releases it.
DLManagedTensor* ToDLPack(const Tensor& tensor);

/// A tensor with |dl|'s contents. Zero-copy (the tensor keeps |managed| alive and calls its
/// deleter when the last reference goes) when the data is on the CPU, compact row-major, 64-byte
/// aligned and its byte offset keeps it so; otherwise copied (and |managed| deleted at once).
/// Throws kInvalidArgument for another device or an unsupported dtype (then |managed| is not
/// consumed).
Tensor FromDLPack(DLManagedTensor* managed);
/// Copies a borrowed DLTensor (CPU, any strides) into a new tensor.
Tensor CopyFromDLTensor(const DLTensor& dl);
/// A tensor reading |dl|'s memory in place (no copy, no ownership: the caller keeps the memory
/// alive and unchanged while the tensor is used) when it is compact row-major and 64-byte aligned
/// as FromDLPack requires; otherwise a copy. Throws like CopyFromDLTensor.
Tensor BorrowFromDLTensor(const DLTensor& dl);

}  // namespace rxt
