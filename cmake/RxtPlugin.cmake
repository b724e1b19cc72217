# Plugins: the install layout, the plugin host's view of it, and one helper to build a plugin.
#
#   rxt_add_plugin(optim_std SOURCES sgd.cc adam.cc)
#   rxt_add_plugin(test_bad SOURCES bad.c OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR} NO_INSTALL)
#
# A plugin is a MODULE library named <name>.so that sees only abi/include and links nothing of
# ours (the host hands it its API table); --no-undefined turns an accidental use of an rxt
# function into a link error. By default it is built into the build tree's plugin directory
# (which mirrors the install tree, so the rxt binaries find it there) and installed.
include_guard(DIRECTORY)  # its variables are per directory, like any include
include(GNUInstallDirs)

set(RXT_PLUGIN_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/rxt/plugins" CACHE STRING
    "Where plugins are installed, relative to the install prefix")
set(RXT_PLUGIN_BUILD_DIR "${CMAKE_BINARY_DIR}/${RXT_PLUGIN_INSTALL_DIR}")
set(RXT_ABI_INCLUDE_DIR "${CMAKE_SOURCE_DIR}/abi/include")

# Tells the plugin host in |target| where the install's plugin directory is, relative to the
# install's bin/ and lib/ directories (no absolute path of this machine is compiled in).
function(rxt_configure_plugin_host target)
  file(RELATIVE_PATH from_bindir "/prefix/${CMAKE_INSTALL_BINDIR}" "/prefix/${RXT_PLUGIN_INSTALL_DIR}")
  file(RELATIVE_PATH from_libdir "/prefix/${CMAKE_INSTALL_LIBDIR}" "/prefix/${RXT_PLUGIN_INSTALL_DIR}")
  set_property(SOURCE ${CMAKE_SOURCE_DIR}/core/src/plugin/search_path.cc
               TARGET_DIRECTORY ${target} APPEND PROPERTY COMPILE_DEFINITIONS
               RXT_PLUGIN_DIR_FROM_BINDIR="${from_bindir}" RXT_PLUGIN_DIR_FROM_LIBDIR="${from_libdir}")
endfunction()

function(rxt_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "NO_INSTALL" "OUTPUT_DIRECTORY" "SOURCES;LINK_LIBRARIES")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "rxt_add_plugin(${name}): SOURCES is required")
  endif()
  if(NOT ARG_OUTPUT_DIRECTORY)
    set(ARG_OUTPUT_DIRECTORY "${RXT_PLUGIN_BUILD_DIR}")
  endif()
  add_library(${name} MODULE ${ARG_SOURCES})
  target_include_directories(${name} PRIVATE "${RXT_ABI_INCLUDE_DIR}")
  target_link_libraries(${name} PRIVATE rxt_build_options ${ARG_LINK_LIBRARIES})
  target_link_options(${name} PRIVATE "LINKER:--no-undefined")
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIRECTORY}")
  if(NOT ARG_NO_INSTALL)
    install(TARGETS ${name} LIBRARY DESTINATION "${RXT_PLUGIN_INSTALL_DIR}")
  endif()
endfunction()
