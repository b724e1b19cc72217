#include "rxt/ir/module.h"

#include <algorithm>

namespace rxt {

IRModule::Entry* IRModule::Find(const std::string& name) {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &entries_[it->second];
}

const IRModule::Entry* IRModule::Find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &entries_[it->second];
}

void IRModule::Reindex() {
  index_.clear();
  for (size_t i = 0; i < entries_.size(); ++i) index_[entries_[i].name] = i;
  next_suffix_.clear();  // removed names are free again
}

void IRModule::Add(const std::string& name, Function f) {
  RXT_CHECK(f != nullptr, "null function ", name);
  if (Entry* e = Find(name)) {
    e->function = std::move(f);
    e->kernel = nullptr;
    return;
  }
  index_[name] = entries_.size();
  entries_.push_back({name, std::move(f), nullptr});
}

void IRModule::AddKernel(const std::string& name, KernelFunction k) {
  RXT_CHECK(k != nullptr, "null kernel ", name);
  if (Entry* e = Find(name)) {
    e->kernel = std::move(k);
    e->function = nullptr;
    return;
  }
  index_[name] = entries_.size();
  entries_.push_back({name, nullptr, std::move(k)});
}

bool IRModule::Remove(const std::string& name) {
  return RemoveIf([&](const Entry& e) { return e.name == name; }) > 0;
}

size_t IRModule::RemoveIf(const std::function<bool(const Entry&)>& remove) {
  const size_t before = entries_.size();
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(), remove), entries_.end());
  if (entries_.size() != before) Reindex();
  return before - entries_.size();
}

bool IRModule::Contains(const std::string& name) const { return Find(name) != nullptr; }

Function IRModule::FindFunction(const std::string& name) const {
  const Entry* e = Find(name);
  return e ? e->function : nullptr;
}

KernelFunction IRModule::FindKernel(const std::string& name) const {
  const Entry* e = Find(name);
  return e ? e->kernel : nullptr;
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
  // Resuming where the last search for |hint| stopped keeps n calls linear, not quadratic.
  int& next = next_suffix_.try_emplace(hint, 1).first->second;
  for (;; ++next) {
    std::string candidate = StrCat(hint, "_", next);
    if (!Contains(candidate)) return candidate;
  }
}

}  // namespace rxt
