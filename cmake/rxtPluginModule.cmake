# The body of rxt_add_plugin(), shared by rxt's own plugins (cmake/RxtPlugin.cmake) and by
# plugins built against the installed package (rxtAddPlugin.cmake), so that both are built the
# same way and export the same thing: installed with the package, next to rxtPlugin.map.
#
#   rxt_plugin_module(name HEADERS <target with rxt's plugin headers> SOURCES ...
#                     [LINK_LIBRARIES ...] [OUTPUT_DIRECTORY dir] [NO_INSTALL] [COMPONENT name])
#
# makes the MODULE library name.so (no "lib" prefix: plugins are named by file) with hidden
# visibility and the linker version script rxtPlugin.map, so that only rxt_plugin_entry (marked
# RXT_PLUGIN_EXPORT) is exported: the script also hides what hidden visibility leaves visible
# (libstdc++'s std:: template instances, code of static libraries built without it). Linked with
# --no-undefined: a plugin links nothing of rxt, so using an rxt function by mistake is a link
# error, not a load error. Installed into ${RXT_PLUGIN_INSTALL_DIR} unless NO_INSTALL (in the install component
# COMPONENT if given).
include_guard(GLOBAL)

function(rxt_plugin_module name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "NO_INSTALL" "HEADERS;OUTPUT_DIRECTORY;COMPONENT" "SOURCES;LINK_LIBRARIES")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "rxt_add_plugin(${name}): SOURCES is required")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "rxt_add_plugin(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  set(version_script "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/rxtPlugin.map")  # next to this file
  add_library(${name} MODULE ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_HEADERS} ${ARG_LINK_LIBRARIES})
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
    set(component "")
    if(ARG_COMPONENT)
      set(component COMPONENT ${ARG_COMPONENT})
    endif()
    install(TARGETS ${name} LIBRARY DESTINATION "${RXT_PLUGIN_INSTALL_DIR}" ${component})
  endif()
endfunction()
