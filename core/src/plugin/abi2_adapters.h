// Internal to the plugin host: the vtables of plugin ABI 3 that stand in for the items of
// plugins of versions 1 and 2 (abi2.h), so that everything past registration calls one kind of
// item. Each adapter calls the old callback and turns its code and message buffer into an
// rxt_status_t that the host reports exactly as it reported the old outcome (same codes, same
// messages).
#pragma once

#include <deque>
#include <string>

#include "abi2.h"
#include "rxt/plugin.h"

namespace rxt::plugin_detail {

/// The state of an adapted callback: the old function and its user data.
struct Abi2Callback {
  abi2::Fn function;
  void* user_data;
};

/// The adapters of one plugin library, and what they point to. They live as long as the
/// library's record, which every item holds.
class Abi2Adapters {
 public:
  /// The IR generators of version 2 (|item|'s callback, not NULL).
  const rxt_optimizer_t* Optimizer(const abi2::Item& item);
  const rxt_loss_t* Loss(const abi2::Item& item);
  const rxt_gradient_rule_t* GradientRule(const abi2::Item& item);
  /// A backend item's table (its user_data), checked as hosts of version 2 checked it. Throws an
  /// rxt::Error starting with |where| ("backend 'x' (plugin 'p')") when it cannot run kernels.
  const rxt_backend_t* Backend(const abi2::Item& item, const std::string& where);
  /// An extern function of register_extern (versions 1 and 2), named |name|.
  const rxt_extern_t* Extern(const std::string& name, abi2::ExternFn function, void* user_data);

 private:
  Abi2Callback* Keep(abi2::Fn function, void* user_data);

  std::deque<Abi2Callback> callbacks_;
  std::deque<std::string> names_;
  std::deque<rxt_optimizer_t> optimizers_;
  std::deque<rxt_loss_t> losses_;
  std::deque<rxt_gradient_rule_t> rules_;
  std::deque<rxt_backend_t> backends_;
  std::deque<rxt_extern_t> externs_;
};

}  // namespace rxt::plugin_detail
