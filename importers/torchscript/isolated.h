// Running the import in a child process. libtorch 1.13 is not hardened against malformed files:
// fuzzing found its loader freeing a pointer it did not allocate when it formats an error about
// a module's code with malformed debug info (tests/importers/torchscript/fixtures/libtorch_crash.pt),
// which corrupts the heap. A crash of the child refuses the file, never ends the host.
#pragma once

#include <functional>

#include "torchscript_module.h"

namespace rxt::import_torchscript {

/// |work| in a child process (fork), its result sent back through a pipe; an ImportError
/// thrown there is rethrown here, and a crash of the child is an ImportError. Without fork (it
/// fails), |work| runs here.
ImportedModule RunIsolated(const std::function<ImportedModule()>& work);

}  // namespace rxt::import_torchscript
