#include "rxt/ir/module.h"

namespace rxt {

void IRModule::Add(const std::string& name, Function f) {
  RXT_CHECK(f != nullptr, "null function ", name);
  for (auto& e : entries_) {
    if (e.name == name) {
      e.function = std::move(f);
      e.kernel = nullptr;
      return;
    }
  }
  entries_.push_back({name, std::move(f), nullptr});
}

void IRModule::AddKernel(const std::string& name, KernelFunction k) {
  RXT_CHECK(k != nullptr, "null kernel ", name);
  for (auto& e : entries_) {
    if (e.name == name) {
      e.kernel = std::move(k);
      e.function = nullptr;
      return;
    }
  }
  entries_.push_back({name, nullptr, std::move(k)});
}

bool IRModule::Remove(const std::string& name) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->name == name) {
      entries_.erase(it);
      return true;
    }
  }
  return false;
}

bool IRModule::Contains(const std::string& name) const {
  for (const auto& e : entries_) {
    if (e.name == name) return true;
  }
  return false;
}

Function IRModule::FindFunction(const std::string& name) const {
  for (const auto& e : entries_) {
    if (e.name == name) return e.function;
  }
  return nullptr;
}

KernelFunction IRModule::FindKernel(const std::string& name) const {
  for (const auto& e : entries_) {
    if (e.name == name) return e.kernel;
  }
  return nullptr;
}

Function IRModule::GetFunction(const std::string& name) const {
  Function f = FindFunction(name);
  if (!f) Throw(ErrorCode::kNotFound, "module has no function @", name);
  return f;
}

KernelFunction IRModule::GetKernel(const std::string& name) const {
  KernelFunction k = FindKernel(name);
  if (!k) Throw(ErrorCode::kNotFound, "module has no kernel function @", name);
  return k;
}

std::string IRModule::UniqueName(const std::string& hint) const {
  if (!Contains(hint)) return hint;
  for (int i = 1;; ++i) {
    std::string candidate = StrCat(hint, "_", i);
    if (!Contains(candidate)) return candidate;
  }
}

}  // namespace rxt
