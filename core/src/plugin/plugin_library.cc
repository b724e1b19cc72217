// Opening a plugin library: every way a file can fail to be a plugin gets its own message
// naming the file, before and after dlopen.
#include <dlfcn.h>

#include <filesystem>
#include <system_error>

#include "plugin_record.h"
#include "rxt/runtime/shared_object_check.h"

namespace rxt::plugin_detail {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void Fail(ErrorCode code, const std::string& path, const std::string& problem) {
  Throw(code, "plugin ", path, ": ", problem);
}

}  // namespace

std::shared_ptr<PluginRecord> OpenPluginLibrary(const std::string& path) {
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) Fail(ErrorCode::kNotFound, path, "no such file");
  if (!fs::is_regular_file(status)) Fail(ErrorCode::kInvalidArgument, path, "not a regular file");
  // dlopen's own message for a text file or another architecture is cryptic; say what is wrong first.
  CheckSharedObjectFile(path, StrCat("plugin ", path));

  auto record = std::make_shared<PluginRecord>();
  record->path = path;
  record->log_name = fs::path(path).filename().string();
  dlerror();  // clear, so that the message below is dlopen's
  record->library.load(path, boost::dll::load_mode::rtld_lazy | boost::dll::load_mode::rtld_local, ec);
  if (ec || !record->library.is_loaded()) {
    const char* why = dlerror();
    Fail(ErrorCode::kInvalidArgument, path,
         StrCat("cannot be loaded as a shared library: ", why != nullptr ? why : ec.message()));
  }
  if (!record->library.has(RXT_PLUGIN_ENTRY_SYMBOL)) {
    Fail(ErrorCode::kNotFound, path,
         "has no entry point '" RXT_PLUGIN_ENTRY_SYMBOL "' (is it an rxt plugin? see docs/plugins.md)");
  }
  record->entry = &record->library.get<std::remove_pointer_t<rxt_plugin_entry_fn_t>>(RXT_PLUGIN_ENTRY_SYMBOL);
  return record;
}

}  // namespace rxt::plugin_detail
