// The entry of the companion rxt_torchscript_libtorch.so (libtorch_part.h): the import, with
// its exceptions turned into an error kind and message.
#include <exception>
#include <type_traits>

#include "libtorch_part.h"

extern "C" __attribute__((visibility("default"))) void rxt_torchscript_import(
    const std::string& path, const rxt::import_torchscript::ImportOptions& options,
    rxt::import_torchscript::ImportedModule* out, char* error_kind, std::string* error) {
  static_assert(std::is_same_v<decltype(&rxt_torchscript_import), rxt::import_torchscript::LibtorchImportFn*>);
  *error_kind = 0;
  try {
    *out = rxt::import_torchscript::ImportTorchScript(path, options);
  } catch (const rxt::import_torchscript::ImportError& e) {
    *error_kind = 'E';
    *error = e.what();
  } catch (const std::exception& e) {
    *error_kind = 'I';
    *error = e.what();
  }
}
