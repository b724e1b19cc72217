// The importer's libtorch part: a companion shared library, rxt_torchscript_libtorch.so, in the
// directory torchscript/ beside the plugin. The plugin itself links no libtorch, because loading
// libtorch costs a process ~1.5 s and every process that loads the plugin search path (rxt build,
// the Python binding) would pay it; the companion is loaded only by an import, in the child
// process that runs it (isolated.h), so the host never maps libtorch at all.
#pragma once

#include <string>

#include "options.h"
#include "torchscript_module.h"

namespace rxt::import_torchscript {

/// The companion's one export. Both sides are built together, by the same compiler, so C++ types
/// cross; exceptions do not (each side has its own hidden type info): |error_kind| is 0 on
/// success, 'E' for an ImportError, 'I' for another exception, with |error| its message.
using LibtorchImportFn = void(const std::string& path, const ImportOptions& options, ImportedModule* out,
                              char* error_kind, std::string* error);
inline constexpr const char* kLibtorchImportSymbol = "rxt_torchscript_import";
/// The companion's path, relative to the plugin's directory.
inline constexpr const char* kLibtorchPartPath = "torchscript/rxt_torchscript_libtorch.so";

/// Loads the companion (from the plugin's own directory) and imports |path| with it; throws
/// ImportError when it cannot be loaded (saying which file and why) or the file is refused.
ImportedModule ImportWithLibtorchPart(const std::string& path, const ImportOptions& options);

}  // namespace rxt::import_torchscript
