// What a build can use in this process: the default backend (the fastest one a loaded plugin
// provides) and which kernel libraries are usable (a loaded plugin registered their extern
// functions: "dnnl" -> "dnnl.*"). `rxt build`, `rxt train` and the C ABI use it so that a build
// never names functions nobody provides.
#pragma once

#include <string>
#include <vector>

namespace rxt {

struct LibraryChoice {
  std::vector<std::string> used;     ///< loaded, in ChooseLibraries order
  std::vector<std::string> missing;  ///< defaults of the backend that no plugin provides
};

/// "cpu" when a loaded plugin provides it, else "reference" (the interpreter every build has).
std::string DefaultBackend();

/// Splits ChooseLibraries(backend, requested) into the loaded and the missing ones. Requested
/// libraries that are missing are reported too; the caller decides whether that is an error.
LibraryChoice ChooseLoadedLibraries(const std::string& backend, const std::vector<std::string>& requested = {});

}  // namespace rxt
