// Executables across the ABI, what runs without the compiler: save, load, reference counting.
// (Building one is the compiler's: abi/src/executable_build.cc.)
#include "handles.h"

namespace rxt::abi_impl {

rxt_executable_t* WrapExecutable(Executable executable) {
  auto* handle = new rxt_executable_s();
  handle->executable = std::move(executable);
  return handle;
}

}  // namespace rxt::abi_impl

extern "C" {

rxt_status_t rxt_executable_save(const rxt_executable_t* executable, const char* path) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(executable);
  RXT_CHECK_ARG(path);
  executable->executable.Save(path);
  RXT_API_END();
}

rxt_status_t rxt_executable_load(const char* path, rxt_executable_t** out_executable) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(path);
  RXT_CHECK_ARG(out_executable);
  *out_executable = rxt::abi_impl::WrapExecutable(rxt::Executable::Load(path));
  RXT_API_END();
}

const char* rxt_executable_backend(const rxt_executable_t* executable) {
  return executable != nullptr ? executable->executable.backend.c_str() : "";
}

rxt_executable_t* rxt_executable_retain(rxt_executable_t* executable) {
  if (executable != nullptr) executable->references.fetch_add(1, std::memory_order_relaxed);
  return executable;
}

void rxt_executable_release(rxt_executable_t* executable) {
  if (executable != nullptr && executable->references.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    delete executable;
  }
}

}  // extern "C"
