#include "rxt/exec/available_libraries.h"

#include <algorithm>

#include "rxt/exec/build.h"
#include "rxt/runtime/extern.h"

namespace rxt {

LibraryChoice ChooseLoadedLibraries(const std::string& backend, const std::vector<std::string>& requested) {
  LibraryChoice choice;
  std::vector<std::string> externs = ExternRegistry::Global().List();
  for (const std::string& library : ChooseLibraries(backend, requested)) {
    bool loaded = std::any_of(externs.begin(), externs.end(),
                              [&](const std::string& name) { return name.rfind(library + ".", 0) == 0; });
    (loaded ? choice.used : choice.missing).push_back(library);
  }
  return choice;
}

}  // namespace rxt
