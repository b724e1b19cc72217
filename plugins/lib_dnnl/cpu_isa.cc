#include "cpu_isa.h"

#include <cctype>
#include <cstdlib>
#include <string>

namespace rxt::lib_dnnl {

bool UseAvx512() {
  static const bool use = [] {
#if defined(__x86_64__) && defined(__GNUC__)
    if (!__builtin_cpu_supports("avx512f")) return false;
    const char* limit = std::getenv("ONEDNN_MAX_CPU_ISA");
    if (limit == nullptr || *limit == '\0') return true;
    std::string isa(limit);
    for (char& ch : isa) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return isa == "ALL" || isa.rfind("AVX512", 0) == 0;
#else
    return false;
#endif
  }();
  return use;
}

}  // namespace rxt::lib_dnnl
