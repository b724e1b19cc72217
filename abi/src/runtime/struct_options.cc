// The one check every option struct passed into the C ABI goes through (struct_options.h).
#include "struct_options.h"

#include <string>

#include "rxt/support/error.h"

namespace rxt::abi_impl {

namespace {

/// "rxt_build_options_t" -> "rxt_build_options_init", the function that fills it.
std::string InitFunctionOf(const std::string& type_name) {
  std::string stem = type_name.size() > 2 && type_name.ends_with("_t") ? type_name.substr(0, type_name.size() - 2)
                                                                       : type_name;
  return stem + "_init";
}

}  // namespace

void CheckOptionsStruct(const void* options, size_t caller_size, size_t known_size, const char* function,
                        const char* type_name) {
  if (caller_size < sizeof(size_t)) {
    Throw(ErrorCode::kInvalidArgument, function, ": options.struct_size is ", caller_size, "; set it to sizeof(",
          type_name, "), e.g. with ", InitFunctionOf(type_name));
  }
  // Bytes past the library's struct belong to fields of a newer rxt.h: zero is their default.
  const auto* bytes = static_cast<const unsigned char*>(options);
  for (size_t offset = known_size; offset < caller_size; ++offset) {
    if (bytes[offset] != 0) {
      Throw(ErrorCode::kUnimplemented, function, ": options set a field this library (ABI ", RXT_ABI_VERSION,
            ") does not know: ", type_name, " has ", known_size, " bytes here, but byte ", offset,
            " of the caller's ", caller_size, " (struct_size) is not zero; leave fields this library does not "
            "know zero (their default) or use a newer librxt");
    }
  }
}

}  // namespace rxt::abi_impl
