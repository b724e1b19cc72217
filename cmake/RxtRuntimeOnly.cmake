# RXT_RUNTIME_ONLY: librxt_runtime.so alone (the core's runtime and the C ABI's runtime half),
# for a machine that only trains from trainer files — typically another architecture, with a
# toolchain file such as cmake/aarch64-linux-gnu.cmake (docs/deploy.md). No compiler, no LLVM,
# no plugins, no zlib: what it needs beyond the C and C++ libraries is headers only (DLPack,
# nlohmann-json, Boost.DLL). A cross build does not find their CMake packages (they sit under
# the build machine's multiarch directory), so their headers, the same on every architecture,
# are taken from the build machine through a directory of links that holds nothing else: its
# system headers (glibc's) must not shadow the target's.
include_guard(GLOBAL)

function(rxt_header_only_target target header)
  if(TARGET ${target})
    return()
  endif()
  string(REGEX REPLACE "/.*" "" top ${header})  # "dlpack/dlpack.h" -> "dlpack"
  find_path(RXT_HOST_${top}_DIR ${header} PATHS /usr/include /usr/local/include NO_CMAKE_FIND_ROOT_PATH NO_DEFAULT_PATH)
  if(NOT RXT_HOST_${top}_DIR)
    message(FATAL_ERROR "RXT_RUNTIME_ONLY: ${header} not found (install its Debian -dev package on this machine)")
  endif()
  set(staged ${CMAKE_BINARY_DIR}/host-headers)
  file(MAKE_DIRECTORY ${staged})
  file(CREATE_LINK ${RXT_HOST_${top}_DIR}/${top} ${staged}/${top} SYMBOLIC)
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${staged})
endfunction()

find_package(dlpack CONFIG QUIET)
find_package(Boost 1.74 QUIET)
find_package(nlohmann_json 3 QUIET)
rxt_header_only_target(dlpack::dlpack dlpack/dlpack.h)
rxt_header_only_target(Boost::headers boost/dll.hpp)
rxt_header_only_target(nlohmann_json::nlohmann_json nlohmann/json.hpp)

add_subdirectory(core)
add_subdirectory(abi)

include(GNUInstallDirs)
install(TARGETS rxt_abi_runtime LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT runtime)
install(FILES ${CMAKE_SOURCE_DIR}/abi/include/rxt/rxt.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rxt COMPONENT runtime)

if(RXT_BUILD_TESTS)
  # The program of the cross-architecture test (tests/abi/runtime/aarch64.cmake): it trains
  # from a trainer file on IDX files decompressed beforehand (no zlib for the target).
  add_executable(rxt_train_from_file ${CMAKE_SOURCE_DIR}/tests/abi/runtime/train_from_file.c)
  set_target_properties(rxt_train_from_file PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  target_compile_definitions(rxt_train_from_file PRIVATE RXT_TRAIN_RAW_IDX)
  target_link_libraries(rxt_train_from_file PRIVATE rxt_abi_runtime rxt_build_options)
endif()
