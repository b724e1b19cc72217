// External functions: named callbacks that IR calls through `call_extern` (the seed's
// R.call_dps_packed("env.linear", ...)), resolved when the VM loads an executable. The process
// registry (Global) holds what programs register (rxt_extern_register) and the extern functions
// of the default context's plugins; another context's plugin host has its own registry whose
// parent is the process registry, so two contexts may each load a library plugin.
#pragma once

#include <dlpack/dlpack.h>

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "rxt/rxt.h"  // rxt_extern_fn_t

namespace rxt {

/// The C++ form; may throw rxt::Error. (The C form is rxt_extern_fn_t of rxt/rxt.h.)
using ExternFunction = std::function<void(DLTensor* const* args, int num_args)>;

class ExternRegistry {
 public:
  /// A registry whose lookups fall back to |parent| (which must outlive it) for names it lacks.
  explicit ExternRegistry(const ExternRegistry* parent = nullptr) : parent_(parent) {}
  ExternRegistry(const ExternRegistry&) = delete;
  ExternRegistry& operator=(const ExternRegistry&) = delete;

  /// The process-wide registry (what the C ABI registers into).
  static ExternRegistry& Global();

  /// Registers |name|; throws kAlreadyExists unless |replace|.
  void Register(const std::string& name, ExternFunction function, bool replace = false);
  /// A C function: a status it returns is freed and thrown with its code, naming |name|.
  void Register(const std::string& name, rxt_extern_fn_t function, void* user_data, bool replace = false);
  bool Remove(const std::string& name);
  /// Its own, else its parent's; empty function if neither has |name|.
  ExternFunction Find(const std::string& name) const;
  /// Whether it has |name| itself (not counting its parent).
  bool HasOwn(const std::string& name) const;
  /// Sorted names, its own and its parent's.
  std::vector<std::string> List() const;

 private:
  const ExternRegistry* parent_;
  mutable std::mutex mutex_;
  std::map<std::string, ExternFunction> functions_;
};

}  // namespace rxt
