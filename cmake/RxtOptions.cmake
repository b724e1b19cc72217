# Warnings, sanitizers and the shared compile options of every rxt target.
add_library(rxt_build_options INTERFACE)
target_compile_options(rxt_build_options INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-missing-field-initializers>
  $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra>)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  # GCC 12 reports false -Wrestrict warnings inside libstdc++'s string concatenation at -O2
  # (GCC bug 105329); they would break Release builds with -Werror.
  target_compile_options(rxt_build_options INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
endif()
if(RXT_WERROR)
  target_compile_options(rxt_build_options INTERFACE -Werror)
endif()
if(RXT_SANITIZE)
  add_compile_options(-fsanitize=${RXT_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${RXT_SANITIZE})
endif()
if(RXT_FUZZ)
  # libFuzzer's coverage instrumentation everywhere; the fuzz targets link its main
  # (-fsanitize=fuzzer, tests/fuzz/CMakeLists.txt). Only clang has libFuzzer.
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "RXT_FUZZ needs clang (libFuzzer), e.g. CC=clang-14 CXX=clang++-14; see scripts/fuzz.sh")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
find_program(RXT_CCACHE ccache)
if(RXT_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${RXT_CCACHE})
  set(CMAKE_C_COMPILER_LAUNCHER ${RXT_CCACHE})
endif()
