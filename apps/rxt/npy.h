// NumPy's .npy files (format versions 1.0 to 3.0), for `rxt run`'s inputs and outputs: C-order,
// little-endian arrays of float32, float64, int32, int64, uint8 and bool. Anything else (Fortran
// order, big-endian, other dtypes, a malformed header, truncated data) is rejected with an
// rxt::Error (kInvalidArgument or kDataLoss) naming the file.
#pragma once

#include <string>
#include <string_view>

#include "rxt/runtime/tensor.h"

namespace rxt::cli {

/// Parses the bytes of an .npy file; |source| names it in errors.
Tensor ParseNpy(std::string_view bytes, const std::string& source);
/// The bytes of an .npy file (version 1.0) holding |tensor|. kInvalidArgument for a dtype
/// the format above does not cover.
std::string SerializeNpy(const Tensor& tensor);

Tensor ReadNpy(const std::string& path);
void WriteNpy(const std::string& path, const Tensor& tensor);

}  // namespace rxt::cli
