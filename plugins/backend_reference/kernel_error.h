// The one exception type of the reference interpreter (a plugin links nothing of rxt, so it
// cannot use rxt::Error; the plugin's entry glue turns this into a status).
#pragma once

#include <stdexcept>
#include <string>

namespace rxt::backend_reference {

/// A bad argument, or a fault while running a kernel (index out of bounds, division by zero).
class KernelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace rxt::backend_reference
