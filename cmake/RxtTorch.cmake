# libtorch for the TorchScript importer plugin: Debian's libtorch-dev (PyTorch 1.13, its CMake
# package TorchConfig). Sets RXT_TORCH_FOUND; the plugin links ${TORCH_LIBRARIES}.
find_package(Torch QUIET)

# rxt_torchscript_cxx17(SOURCE): libtorch 1.13's headers do not compile with clang 14 in C++20
# (std::vector<c10::IValue> of an incomplete type in ivalue_inl.h): the one source that includes
# them is compiled as C++17 under clang (it needs nothing newer). GCC takes them in C++20.
function(rxt_torchscript_cxx17 source)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set_source_files_properties(${source} PROPERTIES COMPILE_OPTIONS -std=c++17)
  endif()
endfunction()
if(Torch_FOUND OR TORCH_FOUND)
  set(RXT_TORCH_FOUND TRUE)
else()
  set(RXT_TORCH_FOUND FALSE)
endif()
