// IRModule: named Relax functions and kernel functions, plus module attributes.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "rxt/ir/attrs.h"
#include "rxt/ir/expr.h"
#include "rxt/ir/kernel.h"

namespace rxt {

/// A value type: copies are cheap (functions are shared, immutable nodes) and passes return
/// new modules. Functions keep the order in which they were added (printing is stable).
class IRModule {
 public:
  struct Entry {
    std::string name;
    Function function;              // set for a Relax function
    KernelFunction kernel;          // set for a kernel function
  };

  /// Adds or replaces (in place, keeping its position) a Relax function.
  void Add(const std::string& name, Function f);
  /// Adds or replaces a kernel function.
  void AddKernel(const std::string& name, KernelFunction k);
  bool Remove(const std::string& name);

  bool Contains(const std::string& name) const;
  /// nullptr if absent or if |name| is a kernel.
  Function FindFunction(const std::string& name) const;
  KernelFunction FindKernel(const std::string& name) const;
  /// Throws kNotFound naming the function.
  Function GetFunction(const std::string& name) const;
  KernelFunction GetKernel(const std::string& name) const;

  const std::vector<Entry>& entries() const { return entries_; }
  /// A name not yet used in the module, derived from |hint| ("f", "f_1", ...).
  std::string UniqueName(const std::string& hint) const;

  Attrs attrs;

 private:
  std::vector<Entry> entries_;
};

}  // namespace rxt
