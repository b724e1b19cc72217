// Which kernel libraries a build can use in this process: those a loaded plugin provides
// (rxt_library_t). The build session (exec/session.h) uses it so that a build never names a
// library nobody provides.
#pragma once

#include <string>
#include <vector>

#include "rxt/plugin/plugin_host.h"

namespace rxt {

struct LibraryChoice {
  std::vector<std::string> used;     ///< loaded, in ChooseLibraries order
  std::vector<std::string> missing;  ///< chosen, but no loaded plugin provides them
};

/// Splits ChooseLibraries(backend, requested, host) into those |host| provides and the
/// missing ones; the caller decides whether a missing one is an error.
LibraryChoice ChooseLoadedLibraries(const std::string& backend, const std::vector<std::string>& requested = {},
                                    const PluginHost& host = PluginHost::Global());

}  // namespace rxt
