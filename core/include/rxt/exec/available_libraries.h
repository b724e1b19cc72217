// Which kernel libraries a build can use in this process (a loaded plugin registered their
// extern functions: "dnnl" -> "dnnl.*"). The build session (exec/session.h) uses it so that a
// build never names functions nobody provides.
#pragma once

#include <string>
#include <vector>

namespace rxt {

struct LibraryChoice {
  std::vector<std::string> used;     ///< loaded, in ChooseLibraries order
  std::vector<std::string> missing;  ///< defaults of the backend that no plugin provides
};

/// Splits ChooseLibraries(backend, requested) into the loaded and the missing ones. Requested
/// libraries that are missing are reported too; the caller decides whether that is an error.
LibraryChoice ChooseLoadedLibraries(const std::string& backend, const std::vector<std::string>& requested = {});

}  // namespace rxt
