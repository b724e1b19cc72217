// Where plugins are looked for: RXT_PLUGIN_PATH, then the installation's plugin directory,
// located relative to the binary that holds this code (the rxt executable in bin/, librxt.so or
// librxt_runtime.so in lib/), so an installation can be moved as a whole.
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <boost/dll/runtime_symbol_info.hpp>

#include "rxt/runtime/plugin_search_path.h"

// Configured by cmake/RxtPlugin.cmake (rxt_configure_plugin_host) from the install layout; these defaults match it.
#ifndef RXT_PLUGIN_DIR_FROM_BINDIR
#define RXT_PLUGIN_DIR_FROM_BINDIR "../lib/rxt/plugins"
#endif
#ifndef RXT_PLUGIN_DIR_FROM_LIBDIR
#define RXT_PLUGIN_DIR_FROM_LIBDIR "rxt/plugins"
#endif

namespace rxt {
namespace {

namespace fs = std::filesystem;

void AddOnce(std::vector<std::string>& dirs, const std::string& dir) {
  for (const std::string& existing : dirs) {
    if (existing == dir) return;
  }
  dirs.push_back(dir);
}

/// The plugin directory of the installation this binary belongs to. The binary may be in
/// the install's bin/ or lib/ directory; the candidate that exists wins (bin/'s if neither).
std::string InstallPluginDir() {
  std::error_code ec;
  fs::path location = boost::dll::this_line_location(ec);
  // dladdr names the main program as it was started: "rxt" when found on PATH. Ask the kernel.
  if (!ec && !location.has_parent_path()) location = boost::dll::program_location(ec);
  if (ec) return "";
  fs::path binary_dir = fs::absolute(location).parent_path();
  fs::path from_bin = (binary_dir / RXT_PLUGIN_DIR_FROM_BINDIR).lexically_normal();
  fs::path from_lib = (binary_dir / RXT_PLUGIN_DIR_FROM_LIBDIR).lexically_normal();
  if (!fs::is_directory(from_bin, ec) && fs::is_directory(from_lib, ec)) return from_lib.string();
  return from_bin.string();
}

}  // namespace

std::vector<std::string> PluginSearchPath() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("RXT_PLUGIN_PATH")) {
    std::stringstream list(env);
    std::string dir;
    while (std::getline(list, dir, ':')) {
      if (!dir.empty()) AddOnce(dirs, dir);
    }
  }
  std::string install_dir = InstallPluginDir();
  if (!install_dir.empty()) AddOnce(dirs, install_dir);
  return dirs;
}

}  // namespace rxt
