#include "rxt/ir/attrs.h"

#include <cstring>

#include "rxt/support/error.h"

namespace rxt {

AttrValue AttrValue::IntList(const std::vector<int64_t>& values) {
  AttrArray array;
  for (int64_t v : values) array.emplace_back(v);
  return AttrValue(std::move(array));
}

std::optional<std::vector<int64_t>> AttrValue::AsIntList() const {
  if (!is<AttrArray>()) return std::nullopt;
  std::vector<int64_t> out;
  for (const auto& v : get<AttrArray>()) {
    if (!v.is<int64_t>()) return std::nullopt;
    out.push_back(v.get<int64_t>());
  }
  return out;
}

const char* AttrValue::KindName() const {
  switch (value.index()) {
    case 0: return "none";
    case 1: return "bool";
    case 2: return "int";
    case 3: return "float";
    case 4: return "string";
    case 5: return "dtype";
    case 6: return "tensor";
    case 7: return "array";
  }
  return "unknown";
}

bool operator==(const AttrValue& a, const AttrValue& b) {
  if (a.value.index() != b.value.index()) return false;
  if (a.is<Tensor>()) return a.get<Tensor>().BitwiseEqual(b.get<Tensor>());
  if (a.is<double>()) {  // compare bits so that NaN equals itself and -0 differs from 0
    double x = a.get<double>(), y = b.get<double>();
    return std::memcmp(&x, &y, sizeof x) == 0;
  }
  return a.value == b.value;
}

const AttrValue* Attrs::Find(const std::string& name) const {
  for (const auto& [key, value] : entries_) {
    if (key == name) return &value;
  }
  return nullptr;
}

const AttrValue& Attrs::Get(const std::string& name) const {
  const AttrValue* v = Find(name);
  if (v == nullptr) Throw(ErrorCode::kNotFound, "attribute '", name, "' is not set");
  return *v;
}

void Attrs::Set(const std::string& name, AttrValue value) {
  for (auto& [key, existing] : entries_) {
    if (key == name) {
      existing = std::move(value);
      return;
    }
  }
  entries_.emplace_back(name, std::move(value));
}

bool Attrs::Erase(const std::string& name) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first == name) {
      entries_.erase(it);
      return true;
    }
  }
  return false;
}

bool operator==(const Attrs& a, const Attrs& b) { return a.entries() == b.entries(); }

}  // namespace rxt
