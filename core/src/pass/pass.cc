// Running passes: the instrument protocol around every run, function passes, Sequential.
#include "rxt/pass/pass.h"

#include <set>

#include "rxt/pass/instrument.h"
#include "rxt/pass/pass_registry.h"

namespace rxt {
namespace {

// How deeply pass runs are nested on this thread (Sequential runs its passes inside its
// own run); the well-formed check of a pass's input only happens at depth 0.
thread_local int pass_depth = 0;

struct DepthGuard {
  DepthGuard() { ++pass_depth; }
  ~DepthGuard() { --pass_depth; }
};

}  // namespace

Pass::Pass(PassInfo info, Fn fn) : info_(std::move(info)), fn_(std::move(fn)) {
  RXT_CHECK(fn_ != nullptr, "pass ", info_.name, " has no function");
}

IRModule Pass::operator()(IRModule module, const PassContext& context) const {
  for (const auto& instrument : context.instruments) {
    if (!instrument->ShouldRun(module, info_)) return module;
  }
  if (context.verify_well_formed_after_each && pass_depth == 0) VerifyPassInput(module, info_);
  const auto& instruments = context.instruments;
  size_t started = 0;  // instruments whose RunBeforePass ran: each gets exactly one "after"
  try {
    for (; started < instruments.size(); ++started) instruments[started]->RunBeforePass(module, info_);
    DepthGuard guard;
    module = fn_(std::move(module), context);
  } catch (...) {
    for (size_t i = 0; i < started; ++i) instruments[i]->RunAfterFailedPass(info_);
    throw;
  }
  // Instruments first, so that a print-after instrument shows a module the check rejects.
  for (size_t i = 0; i < instruments.size(); ++i) {
    try {
      instruments[i]->RunAfterPass(module, info_);
    } catch (...) {
      for (size_t j = i + 1; j < instruments.size(); ++j) instruments[j]->RunAfterFailedPass(info_);
      throw;
    }
  }
  if (context.verify_well_formed_after_each) VerifyPassOutput(module, info_);
  return module;
}

Pass CreateModulePass(std::function<IRModule(IRModule)> fn, std::string name, int opt_level,
                      std::vector<std::string> required) {
  RXT_CHECK(fn != nullptr, "pass ", name, " has no function");
  return Pass(PassInfo{std::move(name), opt_level, std::move(required), ""},
              [fn = std::move(fn)](IRModule module, const PassContext&) { return fn(std::move(module)); });
}

Pass CreateModulePass(std::function<IRModule(IRModule, const PassContext&)> fn, std::string name, int opt_level,
                      std::vector<std::string> required) {
  return Pass(PassInfo{std::move(name), opt_level, std::move(required), ""}, std::move(fn));
}

Pass CreateFunctionPass(FunctionPassFn fn, std::string name, int opt_level, std::vector<std::string> required) {
  RXT_CHECK(fn != nullptr, "pass ", name, " has no function");
  auto run = [fn = std::move(fn)](IRModule module, const PassContext& context) {
    const IRModule input = module;  // callees are looked up in the module as it came in
    for (const IRModule::Entry& entry : input.entries()) {
      if (!entry.function) continue;
      Function rewritten = fn(entry.function, input, context);
      if (rewritten != entry.function) module.Add(entry.name, std::move(rewritten));
    }
    return module;
  };
  return Pass(PassInfo{std::move(name), opt_level, std::move(required), ""}, std::move(run));
}

Pass Sequential(std::vector<Pass> passes, std::string name, int opt_level) {
  auto run = [passes = std::move(passes)](IRModule module, const PassContext& context) {
    std::set<std::string> done;
    for (const Pass& pass : passes) {
      if (!context.IsEnabled(pass.info())) continue;
      for (const std::string& required : pass.info().required) {
        if (done.count(required)) continue;
        module = CreatePass(required)(std::move(module), context);
        done.insert(required);
      }
      module = pass(std::move(module), context);
      done.insert(pass.name());
    }
    return module;
  };
  return Pass(PassInfo{std::move(name), opt_level, {}, ""}, std::move(run));
}

}  // namespace rxt
