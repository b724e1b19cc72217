# rxt_add_plugin() for projects outside rxt's tree (installed with rxt's CMake package;
# rxtConfig.cmake includes it). The same name and arguments as the helper rxt's own plugins use
# (cmake/RxtPlugin.cmake):
#
#   find_package(rxt CONFIG REQUIRED)
#   rxt_add_plugin(lion SOURCES lion.cc LINK_LIBRARIES rxt::plugin_support)
#
# makes the MODULE library lion.so (no "lib" prefix: plugins are named by file), compiled with
# rxt's plugin headers (rxt::plugin), hidden visibility (only rxt_plugin_entry, marked
# RXT_PLUGIN_EXPORT, is exported: the linker version script rxtPlugin.map hides even what
# libstdc++'s headers mark visible) and linked with --no-undefined (a plugin links nothing of rxt:
# using an rxt function by mistake is a link error, not a load error). It installs into
# ${RXT_PLUGIN_INSTALL_DIR} (lib/rxt/plugins) under the project's install prefix: installed into
# rxt's own prefix, the rxt command finds it without --plugin.
#
# Options: OUTPUT_DIRECTORY dir (where the build puts it), NO_INSTALL, LINK_LIBRARIES libs...
include_guard(GLOBAL)

function(rxt_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "NO_INSTALL" "OUTPUT_DIRECTORY" "SOURCES;LINK_LIBRARIES")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "rxt_add_plugin(${name}): SOURCES is required")
  endif()
  set(version_script "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/rxtPlugin.map")  # next to this file
  add_library(${name} MODULE ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE rxt::plugin ${ARG_LINK_LIBRARIES})
  target_link_options(${name} PRIVATE "LINKER:--no-undefined" "LINKER:--version-script=${version_script}")
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    LINK_DEPENDS "${version_script}"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIRECTORY}")
  endif()
  if(NOT ARG_NO_INSTALL)
    install(TARGETS ${name} LIBRARY DESTINATION "${RXT_PLUGIN_INSTALL_DIR}")
  endif()
endfunction()
