// Internal to the C ABI: reading an options struct that starts with `size_t struct_size`, so that
// programs compiled against an older or newer rxt.h keep working (docs/abi.md, "Option structs
// and growth"). Every function taking such a struct calls CheckStructSize first, then reads only
// the fields the caller's struct_size covers (Holds / FieldOr).
#pragma once

#include <cstddef>

#include "rxt/rxt.h"

namespace rxt::abi_impl {

/// Refuses a caller's options struct of |caller_size| bytes (its struct_size) at |options| that
/// this library cannot honour, whose own struct |type_name| has |known_size| bytes:
/// - a struct_size below sizeof(size_t) (not even struct_size itself): kInvalidArgument;
/// - a larger struct (from a newer rxt.h) with a non-zero byte past |known_size|, i.e. a field
///   this library does not know set to something other than its default: kUnimplemented,
///   naming the struct and the offset of the first such byte, rather than ignoring the option.
/// |function| starts the message.
void CheckOptionsStruct(const void* options, size_t caller_size, size_t known_size, const char* function,
                        const char* type_name);

template <typename Struct>
void CheckStructSize(const Struct& options, const char* function, const char* type_name) {
  CheckOptionsStruct(&options, options.struct_size, sizeof(Struct), function, type_name);
}

/// Whether the caller's struct (of |s.struct_size| bytes) is large enough to hold |field|.
template <typename Struct, typename Field>
bool Holds(const Struct& s, const Field& field) {
  auto offset = reinterpret_cast<const char*>(&field) - reinterpret_cast<const char*>(&s);
  return s.struct_size >= static_cast<size_t>(offset) + sizeof(Field);
}

/// The caller's |member| if its struct covers it whole, else |fallback| (an older caller's
/// struct ends before fields added since).
template <typename Struct, typename Field>
Field FieldOr(const Struct& options, Field Struct::*member, const Field& fallback) {
  return Holds(options, options.*member) ? options.*member : fallback;
}

}  // namespace rxt::abi_impl
