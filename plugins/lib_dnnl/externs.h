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
/// dnnl.conv2d_pool(data, weight, sh, sw, pt, pl, pb, pr, dh, dw, groups, relu,
///                  ph, pw, psh, psw, ppt, ppl, ppb, ppr, out): the convolution, then max pooling
void Conv2dPool(void* const* args, int num_args);
/// dnnl.conv2d_bias_pool(data, weight, bias, ...as dnnl.conv2d_pool..., out)
void Conv2dBiasPool(void* const* args, int num_args);
/// dnnl.conv2d_backward_data(dz, weight, sh, sw, pt, pl, pb, pr, dh, dw, groups, ddata)
void Conv2dBackwardData(void* const* args, int num_args);
/// dnnl.conv2d_backward_weights(data, dz, sh, sw, pt, pl, pb, pr, dh, dw, groups, dweight)
void Conv2dBackwardWeights(void* const* args, int num_args);
/// dnnl.conv2d_backward_weights_bias(data, dz, ...window..., dweight, dbias)
void Conv2dBackwardWeightsBias(void* const* args, int num_args);
/// dnnl.max_pool2d(x, kh, kw, out): a max pooling whose windows tile x (window = stride)
void MaxPool2d(void* const* args, int num_args);
/// dnnl.max_pool2d_strided(x, kh, kw, sh, sw, pt, pl, out): a max pooling with any undilated
/// windows (padding smaller than the window; the bottom and right padding from out's shape)
void MaxPool2dStrided(void* const* args, int num_args);
/// dnnl.max_pool2d_backward(dz, x, kh, kw, relu, dx): the gradient of a max pooling whose
/// windows tile x (window = stride), with the ReLU gradient folded in when relu = 1
void MaxPool2dBackward(void* const* args, int num_args);
/// dnnl.max_pool2d_backward_strided(dz, x, kh, kw, sh, sw, pt, pl, relu, dx): the same for any
/// undilated windows (strides, padding top and left; dz's dims give the windows)
void MaxPool2dBackwardStrided(void* const* args, int num_args);
/// dnnl.softmax(x, axis, out): softmax along axis (counted from the front)
void Softmax(void* const* args, int num_args);

}  // namespace rxt::lib_dnnl
