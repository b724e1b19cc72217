// The extern functions of rxt_lib_dnnl (docs/libraries.md has their conventions). Each takes
// the call's DLTensor* arguments, output last, and throws ArgumentError (tensor_args.h) or
// std::runtime_error on failure; plugin_entry.cc turns that into the C error contract.
#pragma once

namespace rxt::lib_dnnl {

/// dnnl.matmul(a, b, flags, out)
void Matmul(void* const* args, int num_args);
/// dnnl.matmul_bias(a, b, bias, flags, out)
void MatmulBias(void* const* args, int num_args);
/// dnnl.conv2d(data, weight, sh, sw, pt, pl, pb, pr, dh, dw, groups, relu, out)
void Conv2d(void* const* args, int num_args);
/// dnnl.conv2d_bias(data, weight, bias, sh, sw, pt, pl, pb, pr, dh, dw, groups, relu, out)
void Conv2dBias(void* const* args, int num_args);

}  // namespace rxt::lib_dnnl
