// Every core op, one line each: the index to read first. Each family registers its ops in
// its own file under core/src/op/; RegisterCoreOps (called once by OpRegistry::Global())
// calls the families in the order below. Legalizations are attached by LegalizeOps
// (core/src/transform/legalize/); gradient rules come from plugins (plugins/grad_std).
//
// Notation: op(inputs; attributes with their defaults). "float" means the op requires a
// floating-point dtype. Shapes may be symbolic (n, n * 2); dims or ndims that cannot be
// related give less precise struct info (known ndim, unknown shape), never an error;
// provably incompatible static shapes, dtype mismatches and bad axes are errors.
//
// Elementwise (core/src/op/elementwise.cc)
//   negative(x)                  -x
//   abs(x)                       |x|
//   exp(x)                       e^x, float
//   log(x)                       natural logarithm, float
//   sqrt(x)                      square root, float
//   rsqrt(x)                     1 / sqrt(x), float
//   tanh(x)                      hyperbolic tangent, float
//   sigmoid(x)                   1 / (1 + e^-x), float
//   erf(x)                       Gauss error function, float
//   floor(x)                     largest integer <= x, float
//   ceil(x)                      smallest integer >= x, float
//   round(x)                     nearest integer, halves to even, float
//   sign(x)                      -1, 0 or 1
//   sin(x)                       sine, float
//   cos(x)                       cosine, float
//   tan(x)                       tangent, float
//   asin(x)                      arcsine, float
//   acos(x)                      arccosine, float
//   atan(x)                      arctangent, float
//   sinh(x)                      hyperbolic sine, float
//   cosh(x)                      hyperbolic cosine, float
//   asinh(x)                     inverse hyperbolic sine, float
//   acosh(x)                     inverse hyperbolic cosine, float
//   atanh(x)                     inverse hyperbolic tangent, float
//   add(x1, x2)                  x1 + x2; NumPy broadcasting, both operands of one dtype
//   subtract(x1, x2)             x1 - x2, broadcasting
//   multiply(x1, x2)             x1 * x2, broadcasting
//   divide(x1, x2)               x1 / x2, broadcasting
//   power(x1, x2)                x1 ^ x2, broadcasting
//   maximum(x1, x2)              elementwise max, broadcasting
//   minimum(x1, x2)              elementwise min, broadcasting
//   mod(x1, x2)                  x1 - floor(x1 / x2) * x2 (the divisor's sign), broadcasting
//   fmod(x1, x2)                 x1 - trunc(x1 / x2) * x2 (the dividend's sign), broadcasting
//   equal(x1, x2)                x1 == x2, broadcasting, bool result
//   not_equal(x1, x2)            x1 != x2, broadcasting, bool result
//   less(x1, x2)                 x1 < x2, broadcasting, bool result
//   less_equal(x1, x2)           x1 <= x2, broadcasting, bool result
//   greater(x1, x2)              x1 > x2, broadcasting, bool result
//   greater_equal(x1, x2)        x1 >= x2, broadcasting, bool result
//   where(condition, x1, x2)     condition (bool) ? x1 : x2; all three broadcast
//   astype(x; dtype)             converts to dtype
//   clip(x; min, max)            min(max(x, min), max), min <= max (float attributes)
// Linear algebra (core/src/op/linalg.cc)
//   matmul(x1, x2; out_dtype=unknown)
//                                NumPy matmul: 1-D operands promoted then squeezed, batch
//                                dims broadcast; out_dtype unknown = the inputs' dtype
//   linear(x, weight, bias?)     x @ weight^T + bias: PyTorch's layout, weight (out, in),
//                                the bias optional; x (..., in) gives (..., out)
// Manipulation (core/src/op/manipulate.cc, manipulate_index.cc)
//   permute_dims(x; axes=none)   result dim i = x dim axes[i]; none reverses the dims
//   reshape(x, shape)            shape: a Shape value; one dim may be -1 (inferred)
//   broadcast_to(x, shape)       broadcasts x to shape
//   collapse_sum_to(x, shape)    sums the broadcast dims of x away to get shape
//   expand_dims(x; axis)         inserts size-1 dims at positions axis of the result
//   squeeze(x; axis=none)        removes size-1 dims (none: every static 1)
//   flatten(x)                   to 1-D (numel,)
//   concat(tensors; axis=0)      joins a Tuple of tensors along axis
//   split(x; indices=[], sections=0, axis=0)
//                                a Tuple of parts: sections > 0 cuts axis into that many
//                                equal parts, else indices are the cut points (NumPy
//                                array_split by indices; [] gives x whole); never both
//   strided_slice(x; axes, begin, end, strides=[])
//                                Python slicing x[begin:end:stride] on each of axes
//   take(x, indices; axis=none)  gathers along axis (none: from x flattened)
//   pad(x; pad_width, pad_value=0.0)
//                                constant padding; pad_width = [before_0, after_0,
//                                before_1, after_1, ...], 2 * ndim entries
//   one_hot(indices, on_value, off_value; depth, axis=-1)
//                                on_value, off_value: Prim values, giving the dtype
// Reductions (core/src/op/reduce.cc); axis=none reduces every axis
//   sum(x; axis=none, keepdims=false)        sum
//   mean(x; axis=none, keepdims=false)       arithmetic mean
//   max(x; axis=none, keepdims=false)        maximum
//   min(x; axis=none, keepdims=false)        minimum
//   prod(x; axis=none, keepdims=false)       product
//   variance(x; axis=none, keepdims=false)   population variance
//   argmax(x; axis=none, keepdims=false)     int64 index of the maximum
//   cumsum(x; axis=0, exclusive=false, reverse=false)
//                                running sum along axis (ONNX CumSum), same shape
//   softmax(x; axis=-1)          exp(x) / sum(exp(x)) along axis, float
//   log_softmax(x; axis=-1)      x - log(sum(exp(x))) along axis, float
// Creation (core/src/op/create.cc)
//   zeros(shape; dtype=float32)  filled with 0
//   ones(shape; dtype=float32)   filled with 1
//   full(shape, fill_value; dtype=unknown)
//                                filled with a scalar (0-d tensor or Prim value); dtype
//                                unknown = fill_value's
//   zeros_like(x; dtype=unknown) zeros shaped like x; dtype unknown = x's
//   ones_like(x; dtype=unknown)  ones shaped like x
//   full_like(x, fill_value; dtype=unknown)
//                                a scalar broadcast to the shape of x
// Neural networks (core/src/op/nn.cc, nn_conv.cc, nn_conv_backward.cc, nn_pool.cc, nn_norm.cc,
// nn_loss.cc)
//   nn.relu(x)                   max(x, 0)
//   nn.gelu(x)                   x * Phi(x) (erf form), float
//   nn.silu(x)                   x * sigmoid(x), float
//   nn.dropout(x[, seed]; rate=0.5)
//                                Tuple(out, mask), both shaped like x (as in TVM); with a
//                                seed (0-d int) drops at random, mask 1 where kept; without
//                                (inference): out = x, mask all 1
//   nn.conv2d(data, weight; strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1,
//             data_layout="NCHW", kernel_layout="OIHW", out_dtype=unknown)
//                                2-D convolution; data NCHW|NHWC, kernel OIHW|HWIO, result
//                                in data_layout; padding 1 int (all sides), 2 (top/bottom,
//                                left/right) or 4 (top, left, bottom, right)
//   nn.conv2d_transpose(data, weight; strides, padding, output_padding=[0, 0], dilation, groups,
//                       data_layout="NCHW", kernel_layout="IOHW", out_dtype=unknown)
//                                PyTorch's ConvTranspose2d, conv2d's data gradient; kernel
//                                IOHW (in, out / groups, kH, kW) or HWOI
//   nn.conv2d_backward_data(output_grad, weight; ... as nn.conv2d ..., data_size)
//                                conv2d's data gradient, (N, C, data_size) (nn_conv_backward.cc)
//   nn.conv2d_backward_weight(output_grad, data; ... as nn.conv2d ..., kernel_size)
//                                conv2d's weight gradient, (O, C / groups, kernel_size)
//   nn.max_pool2d(data; pool_size=[1, 1], strides=[1, 1], padding=[0, 0, 0, 0],
//                 dilation=[1, 1], ceil_mode=false, layout="NCHW")
//                                2-D max pooling; ceil_mode as in PyTorch (a window may
//                                not start in the right/bottom padding)
//   nn.avg_pool2d(data; ... as nn.max_pool2d ..., count_include_pad=false)
//                                2-D average pooling
//   nn.adaptive_avg_pool2d(data; output_size=none, layout="NCHW")
//                                average pooling to a given size (none: the input's)
//   nn.max_pool2d_backward(output_grad, data; ... as nn.max_pool2d ...)
//                                its data gradient: to each window's first maximum
//   nn.avg_pool2d_backward(output_grad, data; ... as nn.avg_pool2d ...)
//                                its data gradient: dz / count over each window
//   nn.adaptive_avg_pool2d_backward(output_grad, data; layout="NCHW")
//                                its data gradient (windows from the two shapes)
//   nn.batch_norm(data, gamma, beta, moving_mean, moving_var; axis=1, epsilon=1e-5,
//                 momentum=0.1, training=true)
//                                Tuple(out, new_mean, new_var)
//   nn.layer_norm(data, gamma, beta; axes, epsilon=1e-5)
//                                normalizes over axes; gamma, beta shaped like those axes
//   nn.nll_loss(predictions, targets[, weights]; reduction="mean", ignore_index=-100)
//                                predictions: log-probabilities (N, C, d...) or (C,)
//   nn.cross_entropy_with_logits(predictions, labels)
//                                -sum(labels * predictions) / N, a scalar (as in TVM)
// Gradient checkpointing (core/src/op/checkpoint.cc): identities marking a segment whose
// forward values the Gradient pass recomputes in the backward pass instead of keeping them
//   checkpoint_start(x)          x (a tensor or a tuple of them): a segment starts here
//   checkpoint_end(x)            x: the segment ends here
// Differentiation inside a function (core/src/op/differentiation.cc), lowered by the
// LowerGradientOf pass
//   gradient_of(y, wrt)          the gradient of sum(y) for each tensor of the Tuple wrt,
//                                through the bindings computing y from them; a Tuple like wrt
// Collectives of data-parallel training (core/src/op/collective.cc); a Trainer binds them to
// its communicator (docs/distributed.md)
//   ccl.allreduce(x; op="sum")   x summed over the ranks ("mean": divided by their number);
//                                float32/64, int32/64; legalized to call_extern of
//                                "ccl.allreduce_sum" / "ccl.allreduce_mean"
//   ccl.allreduce_start(x; op)   starts it: an int64 scalar request ("ccl.allreduce_start_sum"...)
//   ccl.allreduce_wait(request)  its result, of struct info sinfo_args[0] ("ccl.allreduce_wait")
// Builtins (core/src/op/builtin.cc)
//   call_kernel(kernel, args)    kernel: a GlobalVar, args: a Tuple; destination-passing;
//                                result = sinfo_args[0], or a Tuple of several
//   call_extern(name, args)      name: a StringImm resolved at run time; as call_kernel
//   print(values...; format="")  impure; returns ()
//   assert(condition, message)   impure; condition a bool scalar, message a StringImm;
//                                returns ()
//   view(x)                      x's storage with the shape of sinfo_args[0] (same dtype and
//                                element count): no copy; what reshape and its kin legalize to
#pragma once

#include <array>
#include <string_view>

#include "rxt/ir/op.h"

namespace rxt {

/// The name of every op RegisterCoreOps declares, in the order of the table above.
inline constexpr auto kCoreOpNames = std::to_array<std::string_view>({
    // elementwise
    "negative", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "floor", "ceil", "round", "sign",
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
    "add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "mod", "fmod",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "where", "astype", "clip",
    // linear algebra
    "matmul", "linear",
    // manipulation
    "permute_dims", "reshape", "broadcast_to", "collapse_sum_to", "expand_dims", "squeeze",
    "flatten", "concat", "split", "strided_slice", "take", "pad", "one_hot",
    // reductions
    "sum", "mean", "max", "min", "prod", "variance", "argmax", "cumsum", "softmax", "log_softmax",
    // creation
    "zeros", "ones", "full", "zeros_like", "ones_like", "full_like",
    // neural networks
    "nn.relu", "nn.gelu", "nn.silu", "nn.dropout", "nn.conv2d", "nn.conv2d_transpose",
    "nn.conv2d_backward_data", "nn.conv2d_backward_weight", "nn.max_pool2d",
    "nn.avg_pool2d", "nn.adaptive_avg_pool2d", "nn.max_pool2d_backward", "nn.avg_pool2d_backward",
    "nn.adaptive_avg_pool2d_backward", "nn.batch_norm", "nn.layer_norm", "nn.nll_loss",
    "nn.cross_entropy_with_logits",
    // checkpointing
    "checkpoint_start", "checkpoint_end",
    // differentiation
    "gradient_of",
    // collectives
    "ccl.allreduce", "ccl.allreduce_start", "ccl.allreduce_wait",
    // builtins
    "call_kernel", "call_extern", "print", "assert", "view",
});

/// Declares every core op in |registry| (OpRegistry::Global() calls it once).
void RegisterCoreOps(OpRegistry& registry);

// One function per family; RegisterCoreOps calls them all.
void RegisterElementwiseOps(OpRegistry& registry);
void RegisterLinalgOps(OpRegistry& registry);
void RegisterManipulateOps(OpRegistry& registry);
void RegisterReduceOps(OpRegistry& registry);
void RegisterCreateOps(OpRegistry& registry);
void RegisterNNOps(OpRegistry& registry);
void RegisterCheckpointOps(OpRegistry& registry);
void RegisterDifferentiationOps(OpRegistry& registry);
void RegisterCollectiveOps(OpRegistry& registry);
void RegisterBuiltinOps(OpRegistry& registry);

}  // namespace rxt
