// External functions: named callbacks that IR calls through `call_extern` (the seed's
// R.call_dps_packed("env.linear", ...)), resolved when the VM loads an executable.
#pragma once

#include <dlpack/dlpack.h>

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace rxt {

/// A C-compatible callback in destination-passing style: inputs then outputs; returns 0 on
/// success, any other value is a failure (reported with the function's name).
using ExternCallback = int (*)(DLTensor* const* args, int num_args, void* user_data);
/// The C++ form; may throw rxt::Error.
using ExternFunction = std::function<void(DLTensor* const* args, int num_args)>;

class ExternRegistry {
 public:
  /// The process-wide registry (what the C ABI registers into).
  static ExternRegistry& Global();

  /// Registers |name|; throws kAlreadyExists unless |replace|.
  void Register(const std::string& name, ExternFunction function, bool replace = false);
  void Register(const std::string& name, ExternCallback callback, void* user_data, bool replace = false);
  bool Remove(const std::string& name);
  /// Empty function if absent.
  ExternFunction Find(const std::string& name) const;
  /// Sorted names.
  std::vector<std::string> List() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, ExternFunction> functions_;
};

}  // namespace rxt
