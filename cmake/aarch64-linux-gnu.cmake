# Cross-compiling for 64-bit Arm Linux with Debian's cross compilers (g++-aarch64-linux-gnu):
#
#   cmake -S . -B build/aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DRXT_RUNTIME_ONLY=ON
#   cmake --build build/aarch64
#
# builds librxt_runtime.so for Arm (docs/deploy.md, "On another architecture"); trainer files
# for it come from `rxt build --trainer --target aarch64-linux-gnu` on the build machine. The
# programs it builds run there, or here under `qemu-aarch64 -L /usr/aarch64-linux-gnu`.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Libraries and packages come from the target's root only; programs (ccache) from this machine.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Programs built here run under qemu-user when CMake or CTest needs to run one.
find_program(RXT_QEMU_AARCH64 qemu-aarch64)
if(RXT_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${RXT_QEMU_AARCH64} -L /usr/aarch64-linux-gnu)
endif()
