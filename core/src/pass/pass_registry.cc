#include "rxt/pass/pass_registry.h"

#include "rxt/pass/pass_list.h"
#include "rxt/support/error.h"
#include "rxt/support/message_text.h"

namespace rxt {

void PassRegistry::Register(PassEntry entry) {
  if (frozen_) Throw(ErrorCode::kFailedPrecondition, "pass ", entry.name, ": the pass table is frozen after start-up");
  for (const PassEntry& known : entries_) {
    if (known.name == entry.name) Throw(ErrorCode::kAlreadyExists, "a pass named ", entry.name, " is already registered");
  }
  entries_.push_back(std::move(entry));
}

std::vector<PassInfo> PassRegistry::List() const {
  std::vector<PassInfo> out;
  for (const PassEntry& entry : entries_) {
    PassInfo info = entry.create().info();
    info.summary = entry.summary;
    out.push_back(std::move(info));
  }
  return out;
}

const PassEntry& PassRegistry::Entry(const std::string& name) const {
  std::vector<std::string> names;
  for (const PassEntry& entry : entries_) {
    if (entry.name == name) return entry;
    names.push_back(entry.name);
  }
  std::string closest = ClosestName(name, names, 3, /*ignore_case=*/true);
  std::string hint = closest.empty() ? "" : StrCat(" (did you mean ", closest, "?)");
  std::string known;
  for (const std::string& each : names) known += StrCat(known.empty() ? "" : ", ", each);
  Throw(ErrorCode::kNotFound, "no pass named ", Quoted(name), hint, "; passes: ", known);
}

Pass PassRegistry::Create(const std::string& name) const { return Entry(name).create(); }

std::vector<PassInfo> ListPasses() { return PassRegistry::Global().List(); }

Pass CreatePass(const std::string& name) { return PassRegistry::Global().Create(name); }

IRModule RunPasses(IRModule module, const std::vector<std::string>& names, const PassContext& context) {
  std::vector<PassInvocation> invocations;
  for (const std::string& name : names) {
    for (PassInvocation& pass : ParsePassList(name, "pass")) invocations.push_back(std::move(pass));
  }
  PassContext with_options = context;
  AddPassOptions(invocations, with_options);
  std::vector<Pass> passes;
  for (const PassInvocation& pass : invocations) passes.push_back(CreatePass(pass.name));
  return Sequential(std::move(passes), "RunPasses")(std::move(module), with_options);
}

}  // namespace rxt
