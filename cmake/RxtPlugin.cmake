# Plugins: the install layout, the plugin host's view of it, and one helper to build a plugin.
#
#   rxt_add_plugin(optim_std SOURCES sgd.cc adam.cc)
#   rxt_add_plugin(test_bad SOURCES bad.c OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR} NO_INSTALL)
#
# The plugin is built exactly as one built against the installed package is (the shared body
# rxtPluginModule.cmake: hidden symbols, the version script rxtPlugin.map exporting only
# rxt_plugin_entry, --no-undefined); in this tree it also gets rxt's warning flags and, by
# default, lands in the build tree's plugin directory (which mirrors the install tree, so the
# rxt binaries find it there).
include_guard(DIRECTORY)  # its variables are per directory, like any include
include(GNUInstallDirs)

set(RXT_PLUGIN_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/rxt/plugins" CACHE STRING
    "Where plugins are installed, relative to the install prefix")
set(RXT_PLUGIN_BUILD_DIR "${CMAKE_BINARY_DIR}/${RXT_PLUGIN_INSTALL_DIR}")

# Tells the plugin host in |target| where the install's plugin directory is, relative to the
# install's bin/ and lib/ directories (no absolute path of this machine is compiled in).
function(rxt_configure_plugin_host target)
  file(RELATIVE_PATH from_bindir "/prefix/${CMAKE_INSTALL_BINDIR}" "/prefix/${RXT_PLUGIN_INSTALL_DIR}")
  file(RELATIVE_PATH from_libdir "/prefix/${CMAKE_INSTALL_LIBDIR}" "/prefix/${RXT_PLUGIN_INSTALL_DIR}")
  set_property(SOURCE ${CMAKE_SOURCE_DIR}/core/src/runtime/plugin_search_path.cc
               TARGET_DIRECTORY ${target} APPEND PROPERTY COMPILE_DEFINITIONS
               RXT_PLUGIN_DIR_FROM_BINDIR="${from_bindir}" RXT_PLUGIN_DIR_FROM_LIBDIR="${from_libdir}")
endfunction()

include(${CMAKE_CURRENT_LIST_DIR}/rxtPluginModule.cmake)

# Also records each plugin in the global property RXT_IN_TREE_PLUGINS, for the test that checks
# what every one exports (tests/plugins/exported_symbols.cmake).
function(rxt_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "OUTPUT_DIRECTORY" "LINK_LIBRARIES")
  if(NOT ARG_OUTPUT_DIRECTORY)
    set(ARG_OUTPUT_DIRECTORY "${RXT_PLUGIN_BUILD_DIR}")
  endif()
  # rxt_plugin_headers (cmake/RxtInstall.cmake) is what the package exports as rxt::plugin.
  rxt_plugin_module(${name} HEADERS rxt_plugin_headers ${ARG_UNPARSED_ARGUMENTS}
                    OUTPUT_DIRECTORY "${ARG_OUTPUT_DIRECTORY}"
                    LINK_LIBRARIES rxt_build_options ${ARG_LINK_LIBRARIES})
  set_property(GLOBAL APPEND PROPERTY RXT_IN_TREE_PLUGINS ${name})
endfunction()
