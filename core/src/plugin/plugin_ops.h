// Internal to the plugin host: ops that plugins define (rxt_op_t, abi/include/rxt/plugin.h).
// An op is checked when it is staged, and defined in the op registry when the load commits:
// its schema, FInferStructInfo and FLegalize calling the plugin, and FPluginOp saying whose it
// is. Ops belong to the process (the registry never forgets one), so the closures hold the
// plugin's library for good.
#pragma once

#include <memory>
#include <string>

#include "rxt/ir/op.h"
#include "rxt/plugin.h"

namespace rxt {
namespace plugin_detail {
struct PluginRecord;
}

namespace plugin_detail {

/// "" if |op| is a well-formed vtable whose op may be defined by |plugin|, else the problem
/// ("op 'nn.relu' is already defined by the core"). Sets |*reuse| when the op already exists
/// because the same plugin defined it before (another host loaded it): nothing to define then.
std::string CheckPluginOp(const rxt_op_t& op, const std::string& plugin, bool* reuse);

/// Defines the ops staged in |record| (checked by CheckPluginOp when the load was checked) in
/// the op registry. Under the registry's lock it checks them again (another host may have
/// defined one since) before defining any, and throws kAlreadyExists if one is taken: nothing is
/// defined then. |keep_alive| owns the plugin's library: an op holds it for good.
void DefinePluginOps(PluginRecord& record, const std::shared_ptr<const void>& keep_alive);

}  // namespace plugin_detail
}  // namespace rxt
