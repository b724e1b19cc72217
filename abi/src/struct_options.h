// Internal to the C ABI: reading an options struct that starts with `size_t struct_size`, so that
// programs compiled against an older or newer rxt.h keep working (docs/abi.md, "Options structs").
#pragma once

#include <cstddef>

#include "rxt/rxt.h"
#include "rxt/support/error.h"

namespace rxt::abi_impl {

/// Whether the caller's struct (of |s.struct_size| bytes) is large enough to hold |field|.
template <typename Struct, typename Field>
bool Holds(const Struct& s, const Field& field) {
  auto offset = reinterpret_cast<const char*>(&field) - reinterpret_cast<const char*>(&s);
  return s.struct_size >= static_cast<size_t>(offset) + sizeof(Field);
}

/// A caller compiled against a newer header may pass a larger struct: fine as long as the
/// fields this library does not know are zero (their defaults); otherwise refuse rather than
/// silently ignore an option. Also refuses a struct_size too small to be one.
template <typename Struct>
void CheckStructSize(const Struct& options, const char* function, const char* type_name) {
  if (options.struct_size < sizeof(size_t)) {
    Throw(ErrorCode::kInvalidArgument, function, ": options.struct_size is ", options.struct_size, "; set it to sizeof(",
          type_name, ")");
  }
  if (options.struct_size <= sizeof(Struct)) return;
  const auto* extra = reinterpret_cast<const unsigned char*>(&options) + sizeof(Struct);
  for (size_t i = 0; i < options.struct_size - sizeof(Struct); ++i) {
    if (extra[i] != 0) {
      Throw(ErrorCode::kUnimplemented, function, ": options set a field this library (ABI ", RXT_ABI_VERSION,
            ") does not know");
    }
  }
}

}  // namespace rxt::abi_impl
