#include "libtorch_part.h"

#include <dlfcn.h>

#include <filesystem>
#include <stdexcept>

namespace rxt::import_torchscript {
namespace {

/// The directory of the shared library this code is in (the plugin), from the dynamic loader.
std::filesystem::path PluginDirectory() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<const void*>(&ImportWithLibtorchPart), &info) == 0 || info.dli_fname == nullptr) {
    throw ImportError("the torchscript importer cannot find its own file (dladdr failed)");
  }
  return std::filesystem::path(info.dli_fname).parent_path();
}

}  // namespace

ImportedModule ImportWithLibtorchPart(const std::string& path, const ImportOptions& options) {
  const std::filesystem::path part = PluginDirectory() / kLibtorchPartPath;
  // Kept loaded: the process is the import's child, which exits when the import is done.
  void* library = ::dlopen(part.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = ::dlerror();
    throw ImportError("the torchscript importer's libtorch part could not be loaded (is libtorch installed?): " +
                      std::string(why != nullptr ? why : part.string()));
  }
  auto* import = reinterpret_cast<LibtorchImportFn*>(::dlsym(library, kLibtorchImportSymbol));
  if (import == nullptr) {
    throw ImportError(part.string() + " does not export " + kLibtorchImportSymbol + ": it is not rxt's libtorch part");
  }
  ImportedModule imported;
  char error_kind = 0;
  std::string error;
  import(path, options, &imported, &error_kind, &error);
  if (error_kind == 'E') throw ImportError(error);
  if (error_kind != 0) throw std::runtime_error(error);
  return imported;
}

}  // namespace rxt::import_torchscript
