// IRModule: named Relax functions and kernel functions, plus module attributes.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "rxt/ir/attrs.h"
#include "rxt/ir/expr.h"
#include "rxt/ir/kernel.h"

namespace rxt {

/// A value type: copies are cheap (functions are shared, immutable nodes) and passes return
/// new modules. Functions keep the order in which they were added (printing is stable).
/// Lookups by name take constant time (an index beside the ordered entries), so modules of
/// tens of thousands of functions parse and build in linear time.
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
  /// Linear in the module's size; to remove many entries, use RemoveIf.
  bool Remove(const std::string& name);
  /// Removes every entry for which |remove| is true, in one pass. Returns how many went.
  size_t RemoveIf(const std::function<bool(const Entry&)>& remove);

  bool Contains(const std::string& name) const;
  /// nullptr if absent or if |name| is a kernel.
  Function FindFunction(const std::string& name) const;
  KernelFunction FindKernel(const std::string& name) const;
  /// Throws kNotFound naming the function.
  Function GetFunction(const std::string& name) const;
  KernelFunction GetKernel(const std::string& name) const;

  const std::vector<Entry>& entries() const { return entries_; }
  /// A name not yet used in the module, derived from |hint| ("f", "f_1", ...): the first
  /// free one, found in amortized constant time.
  std::string UniqueName(const std::string& hint) const;

  Attrs attrs;

 private:
  /// The entry named |name|, or null.
  Entry* Find(const std::string& name);
  const Entry* Find(const std::string& name) const;
  void Reindex();

  std::vector<Entry> entries_;
  std::unordered_map<std::string, size_t> index_;  // name -> position in entries_
  /// Per hint, a suffix below which every "hint_i" is taken (names are only freed by
  /// removal, which clears this).
  mutable std::unordered_map<std::string, int> next_suffix_;
};

}  // namespace rxt
