# libtorch for the TorchScript importer plugin: Debian's libtorch-dev (PyTorch 1.13, its CMake
# package TorchConfig). Sets RXT_TORCH_FOUND; the plugin links ${TORCH_LIBRARIES}.
find_package(Torch QUIET)
if(Torch_FOUND OR TORCH_FOUND)
  set(RXT_TORCH_FOUND TRUE)
else()
  set(RXT_TORCH_FOUND FALSE)
endif()
