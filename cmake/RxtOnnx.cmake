# ONNX's library for the ONNX importer and exporter plugins: Debian's libonnx-dev (ONNX 1.12, its
# CMake package) and libprotobuf-dev. Sets RXT_ONNX_FOUND; the plugins link onnx, onnx_proto and
# protobuf::libprotobuf.
find_package(Protobuf QUIET)  # before ONNX: its config names protobuf's targets
if(Protobuf_FOUND)
  find_package(ONNX QUIET CONFIG)
endif()
if(Protobuf_FOUND AND ONNX_FOUND)
  set(RXT_ONNX_FOUND TRUE)
else()
  set(RXT_ONNX_FOUND FALSE)
endif()
