#include "rxt/exec/available_libraries.h"

#include "rxt/exec/build.h"

namespace rxt {

LibraryChoice ChooseLoadedLibraries(const std::string& backend, const std::vector<std::string>& requested,
                                    const PluginHost& host) {
  LibraryChoice choice;
  for (const std::string& library : ChooseLibraries(backend, requested, host)) {
    (host.Find(PluginItemKind::kLibrary, library) ? choice.used : choice.missing).push_back(library);
  }
  return choice;
}

}  // namespace rxt
