// Process-wide limits: the memory limit (runtime/memory_limit.h).
#include "boundary.h"
#include "rxt/runtime/memory_limit.h"

extern "C" {

rxt_status_t rxt_set_memory_limit(int64_t bytes) {
  RXT_API_BEGIN();
  if (bytes < 0) rxt::Throw(rxt::ErrorCode::kInvalidArgument, "rxt_set_memory_limit: bytes is ", bytes, "; expected >= 0");
  if (bytes == 0) rxt::DefaultMemoryLimit();  // reports a malformed RXT_MAX_MEMORY
  rxt::SetMemoryLimit(bytes);
  RXT_API_END();
}

int64_t rxt_memory_limit(void) {
  try {
    return rxt::MemoryLimit();
  } catch (...) {
    return 0;  // only a malformed RXT_MAX_MEMORY throws; rxt_set_memory_limit reports it
  }
}

}  // extern "C"
