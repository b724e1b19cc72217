#include "rxt/runtime/extern.h"

#include <algorithm>

#include "rxt/support/c_status.h"
#include "rxt/support/error.h"

namespace rxt {

ExternRegistry& ExternRegistry::Global() {
  static ExternRegistry* registry = new ExternRegistry();  // never destroyed: used until exit
  return *registry;
}

void ExternRegistry::Register(const std::string& name, ExternFunction function, bool replace) {
  if (name.empty()) Throw(ErrorCode::kInvalidArgument, "extern function: the name must not be empty");
  if (!function) Throw(ErrorCode::kInvalidArgument, "extern function '", name, "': no callback given");
  std::lock_guard<std::mutex> lock(mutex_);
  if (!replace && functions_.count(name) != 0) {
    Throw(ErrorCode::kAlreadyExists, "extern function '", name, "' is already registered");
  }
  functions_[name] = std::move(function);
}

void ExternRegistry::Register(const std::string& name, rxt_extern_fn_t function, void* user_data, bool replace) {
  if (function == nullptr) Throw(ErrorCode::kInvalidArgument, "extern function '", name, "': no callback given");
  Register(
      name,
      [context = StrCat("extern function '", name, "'"), function, user_data](DLTensor* const* args, int num_args) {
        ThrowIfFailed(function(user_data, args, num_args), context);
      },
      replace);
}

bool ExternRegistry::Remove(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  return functions_.erase(name) != 0;
}

ExternFunction ExternRegistry::Find(const std::string& name) const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = functions_.find(name);
    if (it != functions_.end()) return it->second;
  }
  return parent_ != nullptr ? parent_->Find(name) : ExternFunction();
}

bool ExternRegistry::HasOwn(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return functions_.count(name) != 0;
}

std::vector<std::string> ExternRegistry::List() const {
  std::vector<std::string> names = parent_ != nullptr ? parent_->List() : std::vector<std::string>{};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [name, f] : functions_) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace rxt
