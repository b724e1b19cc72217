// The gradient rules of the test fixture tests/plugins/fixtures/grad_rules.c (add, multiply,
// matmul, nn.relu, sum, ... and a sigmoid rule that always fails), in a plugin host of their
// own: tests of the Gradient pass and of what uses it pass it as their rules.
#pragma once

#include <string>

#include "rxt/plugin/plugin_host.h"

namespace rxt::testing {

inline const PluginHost& FixtureGradRules() {
  static PluginHost* host = [] {
    auto* h = new PluginHost();
    h->Load(std::string(RXT_TEST_IR_PLUGIN_DIR) + "/test_grad_rules.so");
    return h;
  }();
  return *host;
}

}  // namespace rxt::testing
