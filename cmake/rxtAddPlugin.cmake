# rxt_add_plugin() for projects outside rxt's tree (installed with rxt's CMake package;
# rxtConfig.cmake includes it). The same name, arguments and body (rxtPluginModule.cmake) as the
# helper rxt's own plugins use (cmake/RxtPlugin.cmake):
#
#   find_package(rxt CONFIG REQUIRED)
#   rxt_add_plugin(lion SOURCES lion.cc LINK_LIBRARIES rxt::plugin_support)
#
# makes the MODULE library lion.so compiled with rxt's plugin headers (rxt::plugin), exporting
# only rxt_plugin_entry, linked with --no-undefined (rxtPluginModule.cmake says why). It
# installs into ${RXT_PLUGIN_INSTALL_DIR} (lib/rxt/plugins) under the project's install prefix:
# installed into rxt's own prefix, the rxt command finds it without --plugin.
#
# Options: OUTPUT_DIRECTORY dir (where the build puts it), NO_INSTALL, LINK_LIBRARIES libs...
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/rxtPluginModule.cmake")

function(rxt_add_plugin name)
  rxt_plugin_module(${name} HEADERS rxt::plugin ${ARGN})
endfunction()
