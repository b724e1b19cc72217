// The window of a 2-D convolution as the dnnl.conv2d* externs receive it (nine int scalars:
// sh, sw, pt, pl, pb, pr, dh, dw, groups), checked, plus the oneDNN descriptors built from it.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace rxt::lib_dnnl {

struct ConvWindow {
  int64_t stride[2], pad[4], dilation[2], groups;  // pad: top, left, bottom, right

  /// Reads the nine scalars at args[first..first+8]; throws ArgumentError for a stride,
  /// dilation or groups below 1 or a negative padding.
  static ConvWindow Read(void* const* args, int first);
  /// The output extent of spatial axis |axis| (0: height, 1: width) for input |in| and kernel |k|.
  int64_t OutSize(int axis, int64_t in, int64_t k) const;
  dnnl::memory::dims Strides() const { return {stride[0], stride[1]}; }
  dnnl::memory::dims Dilates() const { return {dilation[0] - 1, dilation[1] - 1}; }  // oneDNN counts the gaps
  dnnl::memory::dims PadL() const { return {pad[0], pad[1]}; }
  dnnl::memory::dims PadR() const { return {pad[2], pad[3]}; }
  auto Key() const {
    return std::make_tuple(stride[0], stride[1], pad[0], pad[1], pad[2], pad[3], dilation[0], dilation[1], groups);
  }
};

/// The tensors of one convolution: data (N, C, H, W), weight (O, C/groups, kH, kW), output
/// (N, O, oH, oW). Checks they fit |window|; |function| and the role names go into messages.
struct ConvShapes {
  std::vector<int64_t> data, weight, out;
  /// Throws ArgumentError naming |function| and the mismatch.
  void Check(const ConvWindow& window, const char* function, const char* data_name, const char* weight_name,
             const char* out_name) const;
};

dnnl::memory::desc PlainDesc(const std::vector<int64_t>& dims);  // nchw / oihw / x by rank
dnnl::memory::desc AnyDesc(const std::vector<int64_t>& dims);
/// A convolution's data (or data gradient): plain NCHW with fewer than 16 channels per group
/// (measured on LeNet: oneDNN's direct kernels read it as is, faster than its own choice),
/// else format_tag::any.
dnnl::memory::desc SourceDesc(const std::vector<int64_t>& nchw, int64_t groups);
/// OIHW weights, as goihw when grouped.
dnnl::memory::desc WeightDesc(const std::vector<int64_t>& oihw, int64_t groups, bool any);

}  // namespace rxt::lib_dnnl
