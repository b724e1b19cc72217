// Attribute values: the typed attributes of op calls (axis, keepdims, strides...) and the
// attributes of modules and functions (param_num, optim_state...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "rxt/runtime/tensor.h"
#include "rxt/support/dtype.h"

namespace rxt {

struct AttrValue;
using AttrArray = std::vector<AttrValue>;

/// None | bool | int | float | string | dtype | tensor | array of attribute values.
struct AttrValue {
  using Variant = std::variant<std::monostate, bool, int64_t, double, std::string, DType, Tensor, AttrArray>;
  Variant value;

  AttrValue() = default;
  AttrValue(bool v) : value(v) {}
  AttrValue(int v) : value(int64_t{v}) {}
  AttrValue(int64_t v) : value(v) {}
  AttrValue(double v) : value(v) {}
  AttrValue(const char* v) : value(std::string(v)) {}
  AttrValue(std::string v) : value(std::move(v)) {}
  AttrValue(DType v) : value(v) {}
  AttrValue(Tensor v) : value(std::move(v)) {}
  AttrValue(AttrArray v) : value(std::move(v)) {}
  static AttrValue IntList(const std::vector<int64_t>& values);

  bool is_none() const { return std::holds_alternative<std::monostate>(value); }
  template <typename T>
  bool is() const { return std::holds_alternative<T>(value); }
  template <typename T>
  const T& get() const { return std::get<T>(value); }
  /// An array whose every element is an int; nullopt otherwise.
  std::optional<std::vector<int64_t>> AsIntList() const;
  /// Name of the held kind: "none", "bool", "int", "float", "string", "dtype", "tensor", "array".
  const char* KindName() const;
};

/// Equal kinds and values (tensors compared bitwise).
bool operator==(const AttrValue& a, const AttrValue& b);
inline bool operator!=(const AttrValue& a, const AttrValue& b) { return !(a == b); }

/// An ordered list of named attributes. Order is kept (printing is stable).
class Attrs {
 public:
  using Entry = std::pair<std::string, AttrValue>;
  const AttrValue* Find(const std::string& name) const;
  /// Throws kNotFound if absent.
  const AttrValue& Get(const std::string& name) const;
  /// Replaces an existing entry in place or appends a new one.
  void Set(const std::string& name, AttrValue value);
  bool Erase(const std::string& name);
  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

bool operator==(const Attrs& a, const Attrs& b);
inline bool operator!=(const Attrs& a, const Attrs& b) { return !(a == b); }

}  // namespace rxt
