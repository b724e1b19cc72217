# What a plugin exports: its entry point and nothing else (rxt_add_plugin, cmake/rxtPlugin.map).
# A symbol more would be a clash waiting to happen with another plugin or the host.
#
#   cmake -DPLUGINS="a.so|b.so" [-DWITHOUT_ENTRY="c.so"] -P plugin_exports.cmake
#
# checks that each of PLUGINS exports exactly rxt_plugin_entry and each of WITHOUT_ENTRY (a
# library built like a plugin but without entry point) nothing. install_and_build.cmake includes
# this file for rxt_check_plugin_exports().
cmake_minimum_required(VERSION 3.25)

# Fails (SEND_ERROR: every library is checked) unless |library|'s defined dynamic symbols are
# |expected|, a list of names.
function(rxt_check_plugin_exports library expected)
  find_program(NM nm REQUIRED)
  execute_process(COMMAND ${NM} -D --defined-only ${library}
                  RESULT_VARIABLE result OUTPUT_VARIABLE symbols ERROR_VARIABLE errors)
  if(NOT result EQUAL 0)
    message(SEND_ERROR "nm -D failed on ${library} (${result}): ${errors}")
    return()
  endif()
  # Lines "<address> <type> <name>"; the type does not matter, exporting at all does.
  string(REGEX MATCHALL "[^ \n]+\n" names "${symbols}")
  string(REPLACE "\n" "" names "${names}")
  if(NOT names STREQUAL expected)
    message(SEND_ERROR "${library} should export [${expected}], it exports [${names}]:\n${symbols}")
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  string(REPLACE "|" ";" PLUGINS "${PLUGINS}")
  string(REPLACE "|" ";" WITHOUT_ENTRY "${WITHOUT_ENTRY}")
  if(NOT PLUGINS)
    message(FATAL_ERROR "no plugins to check (PLUGINS is empty)")
  endif()
  foreach(library IN LISTS PLUGINS)
    if(library IN_LIST WITHOUT_ENTRY)
      rxt_check_plugin_exports(${library} "")
    else()
      rxt_check_plugin_exports(${library} rxt_plugin_entry)
    endif()
  endforeach()
  list(LENGTH PLUGINS count)
  message(STATUS "${count} plugins checked")
endif()
