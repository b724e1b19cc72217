#include "rxt/runtime/aot_library.h"

#include <dlfcn.h>
#include <sys/mman.h>
#if defined(__aarch64__)
#include <sys/auxv.h>
#endif
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>

#include "rxt/compiled_kernel.h"
#include "rxt/plugin_support/kernel_binding.h"
#include "rxt/runtime/memory_limit.h"
#include "rxt/runtime/shared_object_check.h"
#include "rxt/runtime/thread_pool.h"
#include "rxt/support/error.h"

namespace rxt {

struct AotKernelProvider::Library {
  std::string path;
  void* handle = nullptr;
  /// The in-memory file it was loaded from (FromBytes), open while the library is loaded: the
  /// dynamic loader knows a library by its path, and /proc/self/fd/N of a closed descriptor
  /// would name the next library loaded that way too, which dlopen would then not load (it
  /// returns the first: two trainer files' kernels mixed up). -1 for a library from a file.
  int fd = -1;
  /// The bytes it was loaded from (FromBytes), so that a trainer file can be written again
  /// without the compiler; empty for a library opened from a file.
  std::vector<uint8_t> bytes;
  ~Library() {
    if (handle != nullptr) {
      std::lock_guard<std::mutex> lock(LiveMutex());
      if (--LiveHandles()[handle] == 0) LiveHandles().erase(handle);
      dlclose(handle);
    }
    if (fd >= 0) close(fd);
  }
  /// The handles of the libraries loaded now, with how many providers hold each: dlopen giving
  /// one of them for an in-memory file means it took a loaded library for the one asked for.
  static std::map<void*, int>& LiveHandles() {
    static std::map<void*, int> live;
    return live;
  }
  static std::mutex& LiveMutex() {
    static std::mutex mutex;
    return mutex;
  }
};

namespace {

// The CPU features this machine has or lacks, by LLVM's names. A library compiled with one of
// them ("+avx512f", "+sve" in its target_features) cannot run where it is missing; features
// not listed here are not checked.
struct CpuFeature {
  const char* name;
  bool present;
};

#if defined(__x86_64__) || defined(__i386__)
// Clang before 16 rejects these newer names in __builtin_cpu_supports (the fuzz build uses clang
// 14, and runs no ahead-of-time library): there they read as absent.
#if defined(__clang__) && __clang_major__ < 16
#define RXT_CPU_SUPPORTS_NEWER(name) false
#else
#define RXT_CPU_SUPPORTS_NEWER(name) (__builtin_cpu_supports(name) != 0)
#endif

std::vector<CpuFeature> HostCpuFeatures() {
  __builtin_cpu_init();
  return {
      {"sse4.1", __builtin_cpu_supports("sse4.1") != 0},   {"sse4.2", __builtin_cpu_supports("sse4.2") != 0},
      {"popcnt", __builtin_cpu_supports("popcnt") != 0},   {"avx", __builtin_cpu_supports("avx") != 0},
      {"avx2", __builtin_cpu_supports("avx2") != 0},       {"fma", __builtin_cpu_supports("fma") != 0},
      {"bmi", __builtin_cpu_supports("bmi") != 0},         {"bmi2", __builtin_cpu_supports("bmi2") != 0},
      {"avx512f", __builtin_cpu_supports("avx512f") != 0}, {"avx512bw", __builtin_cpu_supports("avx512bw") != 0},
      {"avx512dq", __builtin_cpu_supports("avx512dq") != 0}, {"avx512vl", __builtin_cpu_supports("avx512vl") != 0},
      {"avx512cd", __builtin_cpu_supports("avx512cd") != 0}, {"avx512vnni", __builtin_cpu_supports("avx512vnni") != 0},
      {"avx512bf16", __builtin_cpu_supports("avx512bf16") != 0},
      {"avx512fp16", RXT_CPU_SUPPORTS_NEWER("avx512fp16")},
      {"avx512vbmi", __builtin_cpu_supports("avx512vbmi") != 0},
      {"avx512vbmi2", __builtin_cpu_supports("avx512vbmi2") != 0},
      {"avx512ifma", __builtin_cpu_supports("avx512ifma") != 0},
      {"avx512bitalg", __builtin_cpu_supports("avx512bitalg") != 0},
      {"avx512vpopcntdq", __builtin_cpu_supports("avx512vpopcntdq") != 0},
      {"avxvnni", RXT_CPU_SUPPORTS_NEWER("avxvnni")},
      {"amx-tile", RXT_CPU_SUPPORTS_NEWER("amx-tile")},
      {"f16c", RXT_CPU_SUPPORTS_NEWER("f16c")},
      {"movbe", RXT_CPU_SUPPORTS_NEWER("movbe")},
      {"lzcnt", RXT_CPU_SUPPORTS_NEWER("lzcnt")},
  };
}
#elif defined(__aarch64__)
// What the kernel says the CPU has (getauxval's hardware capability bits).
std::vector<CpuFeature> HostCpuFeatures() {
  const unsigned long hwcap = getauxval(AT_HWCAP), hwcap2 = getauxval(AT_HWCAP2);
  std::vector<CpuFeature> features = {
      {"neon", (hwcap & HWCAP_ASIMD) != 0},        {"fp-armv8", (hwcap & HWCAP_FP) != 0},
      {"crc", (hwcap & HWCAP_CRC32) != 0},         {"aes", (hwcap & HWCAP_AES) != 0},
      {"sha2", (hwcap & HWCAP_SHA2) != 0},         {"lse", (hwcap & HWCAP_ATOMICS) != 0},
      {"rdm", (hwcap & HWCAP_ASIMDRDM) != 0},      {"fullfp16", (hwcap & HWCAP_ASIMDHP) != 0},
      {"dotprod", (hwcap & HWCAP_ASIMDDP) != 0},   {"sve", (hwcap & HWCAP_SVE) != 0},
  };
#ifdef HWCAP2_SVE2
  features.push_back({"sve2", (hwcap2 & HWCAP2_SVE2) != 0});
#endif
#ifdef HWCAP2_I8MM
  features.push_back({"i8mm", (hwcap2 & HWCAP2_I8MM) != 0});
#endif
#ifdef HWCAP2_BF16
  features.push_back({"bf16", (hwcap2 & HWCAP2_BF16) != 0});
#endif
  (void)hwcap2;
  return features;
}
#else
std::vector<CpuFeature> HostCpuFeatures() { return {}; }
#endif

// The features |features| ("+avx2,-avx512f,...") enables that this CPU lacks, comma-separated.
std::string MissingCpuFeatures(const char* features) {
  std::string missing;
  if (features == nullptr) return missing;
  std::stringstream list(features);
  std::string item;
  static const std::vector<CpuFeature> host = HostCpuFeatures();
  while (std::getline(list, item, ',')) {
    if (item.size() < 2 || item[0] != '+') continue;
    for (const CpuFeature& f : host) {
      if (item.compare(1, std::string::npos, f.name) == 0 && !f.present) missing += (missing.empty() ? "" : ", ") + item.substr(1);
    }
  }
  return missing;
}

class AotKernel : public Kernel {
 public:
  AotKernel(std::shared_ptr<AotKernelProvider::Library> library, rxt_compiled_kernel_fn function,
            plugin_support::kernel_binding::KernelBinder binder)
      : library_(std::move(library)), function_(function), binder_(std::move(binder)), call_(binder_.NewCall()) {}

  void Call(DLTensor* const* args, int num_args) override {
    if (!binder_.Bind(args, num_args, call_, error_) || !binder_.CheckWrittenBuffersDistinct(call_, error_)) {
      Throw(ErrorCode::kInvalidArgument, error_);
    }
    int32_t code =
        function_(call_.buffers.data(), call_.int_vars.data(), call_.float_vars.data(), &ThreadPool::Current().runtime());
    if (code != RXT_KERNEL_OK) {
      Throw(code == RXT_KERNEL_DIVISION_BY_ZERO ? ErrorCode::kInvalidArgument : ErrorCode::kInternal,
            rxt_kernel_code_message(code));
    }
  }

 private:
  std::shared_ptr<AotKernelProvider::Library> library_;  // keeps the code loaded
  rxt_compiled_kernel_fn function_;
  plugin_support::kernel_binding::KernelBinder binder_;
  plugin_support::kernel_binding::BoundCall call_;  // one call at a time per kernel, as the VM calls them
  std::string error_;
};

}  // namespace

AotKernelProvider::AotKernelProvider(const std::string& path, std::string backend)
    : AotKernelProvider(path, StrCat("kernel library '", path, "'"), std::move(backend)) {}

AotKernelProvider::AotKernelProvider(const std::string& path, const std::string& where, std::string backend)
    : library_(std::make_shared<Library>()), backend_(std::move(backend)) {
  library_->path = path;
  CheckSharedObjectFile(path, where);
  {
    std::lock_guard<std::mutex> lock(Library::LiveMutex());
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      Throw(ErrorCode::kNotFound, where, ": cannot load it: ", why ? why : "unknown error");
    }
    // The same file on disk loaded twice shares its code (fine); an in-memory file the loader
    // takes for one already loaded would run the other's kernels (see Library::fd).
    if (Library::LiveHandles().count(handle) > 0 && path.rfind("/proc/self/fd/", 0) == 0) {
      dlclose(handle);
      Throw(ErrorCode::kInternal, where, ": the dynamic loader returned a kernel library already loaded for ", path);
    }
    ++Library::LiveHandles()[handle];
    library_->handle = handle;
  }
  const auto* info = static_cast<const rxt_aot_library_info_t*>(dlsym(library_->handle, RXT_AOT_LIBRARY_INFO_SYMBOL));
  if (info == nullptr) {
    Throw(ErrorCode::kDataLoss, where, " is not an rxt kernel library (it has no ", RXT_AOT_LIBRARY_INFO_SYMBOL, ")");
  }
  if (info->version != RXT_AOT_LIBRARY_VERSION) {
    Throw(ErrorCode::kFailedPrecondition, where, " has library version ", info->version, " (this runtime reads ",
          RXT_AOT_LIBRARY_VERSION, "): rebuild it");
  }
  if (info->kernel_format != plugin_support::kernel_format::kFormatVersion) {
    Throw(ErrorCode::kFailedPrecondition, where, " was built from kernel format ", info->kernel_format,
          " (this runtime reads ", plugin_support::kernel_format::kFormatVersion, "): rebuild it");
  }
  std::string missing = MissingCpuFeatures(info->target_features);
  if (!missing.empty()) {
    Throw(ErrorCode::kFailedPrecondition, where, " was compiled for ", info->target_cpu ? info->target_cpu : "a CPU",
          " and needs ", missing, ", which this CPU lacks: rebuild it on this machine");
  }
}

AotKernelProvider AotKernelProvider::ForExecutable(const Executable& exec) {
  if (exec.aot_library.empty()) {
    Throw(ErrorCode::kFailedPrecondition, "the executable names no kernel library (build it with --emit-library)");
  }
  return AotKernelProvider(exec.aot_library, exec.backend.empty() ? "cpu" : exec.backend);
}

AotKernelProvider AotKernelProvider::FromBytes(const std::vector<uint8_t>& bytes, const std::string& label,
                                               std::string backend) {
  // dlopen reads files only: the bytes go to an anonymous in-memory file (memfd), opened by its
  // /proc/self/fd path, and closed once the library is mapped; nothing is left on disk.
  int fd = memfd_create("rxt-kernel-library", MFD_CLOEXEC);
  if (fd < 0) Throw(ErrorCode::kInternal, label, ": cannot make an in-memory file for it: ", std::strerror(errno));
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int error = errno;
      close(fd);
      Throw(ErrorCode::kInternal, label, ": cannot write it to an in-memory file: ", std::strerror(error));
    }
    written += static_cast<size_t>(n);
  }
  std::string path = StrCat("/proc/self/fd/", fd);
  try {
    AotKernelProvider provider(path, label, std::move(backend));
    provider.library_->fd = fd;  // closed when the library is unloaded
    provider.library_->path = label;
    provider.library_->bytes = bytes;
    return provider;
  } catch (...) {
    close(fd);
    throw;
  }
}

const std::string& AotKernelProvider::path() const { return library_->path; }

std::vector<uint8_t> AotKernelProvider::LibraryBytes() const {
  if (!library_->bytes.empty()) return library_->bytes;
  return ReadFileWithinMemoryLimit(library_->path, "kernel library");
}

std::unique_ptr<Kernel> AotKernelProvider::Load(const KernelRecord& record) {
  std::string where = StrCat("kernel '", record.name, "'");
  if (record.aot_symbol.empty()) {
    Throw(ErrorCode::kFailedPrecondition, where, " has no ahead-of-time symbol (the executable was built without ",
          "--emit-library)");
  }
  void* symbol = dlsym(library_->handle, record.aot_symbol.c_str());
  if (symbol == nullptr) {
    Throw(ErrorCode::kNotFound, where, ": the symbol '", record.aot_symbol, "' is missing from '", library_->path,
          "' (a library built for another executable?)");
  }
  plugin_support::kernel_format::DecodeResult decoded = plugin_support::kernel_format::DecodeKernel(record.portable.data(), record.portable.size());
  if (!decoded.ok()) Throw(ErrorCode::kDataLoss, where, ": ", decoded.error);
  plugin_support::kernel_binding::KernelBinder binder(std::move(decoded.kernel));
  if (!binder.error().empty()) Throw(ErrorCode::kDataLoss, where, ": ", binder.error());
  return std::make_unique<AotKernel>(library_, reinterpret_cast<rxt_compiled_kernel_fn>(symbol), std::move(binder));
}

}  // namespace rxt
