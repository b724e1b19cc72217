"""Converters of torch.nn's layers: as functions (torch.nn.functional, torch.*) and as modules
(nn.Conv2d, nn.BatchNorm2d...), the module form reading its parameters by qualified name so
that they are the backbone's parameters and states."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from ._context import Unsupported
from ._registry import converts, converts_module


def _pair(v):
    return [int(v), int(v)] if isinstance(v, int) else [int(x) for x in v]


def _optional_param(cx, module, qualified_name, attr):
    return None if getattr(module, attr, None) is None else cx.value_of(f"{qualified_name}.{attr}")


# ---- dense and convolution

@converts(F.linear)
def linear(cx, input, weight, bias=None):  # noqa: A002
    return cx.op("linear", [input, weight] + ([bias] if bias is not None else []))


@converts_module(nn.Linear)
def linear_module(cx, module, name, input):  # noqa: A002
    return linear(cx, input, cx.value_of(f"{name}.weight"), _optional_param(cx, module, name, "bias"))


def _conv_padding(padding, kernel, dilation, stride):
    """padding (an int, a pair, "valid" or "same") as [top, left, bottom, right]."""
    if padding == "valid":
        return [0, 0, 0, 0]
    if padding == "same":
        if any(s != 1 for s in stride):
            raise Unsupported("padding='same' with a stride")
        total = [d * (k - 1) for d, k in zip(dilation, kernel)]
        return [total[0] // 2, total[1] // 2, total[0] - total[0] // 2, total[1] - total[1] // 2]
    p = _pair(padding)
    return [p[0], p[1], p[0], p[1]]


def _conv2d(cx, x, weight, bias, stride, padding, dilation, groups):
    kernel = cx.static_dims(weight, "conv2d's weight")[2:]
    stride, dilation = _pair(stride), _pair(dilation)
    out = cx.op("nn.conv2d", [x, weight], strides=stride, padding=_conv_padding(padding, kernel, dilation, stride),
                dilation=dilation, groups=int(groups))
    if bias is not None:
        channels = cx.static_dims(bias, "a bias")[0]
        out = cx.op("add", [out, cx.op("reshape", [bias, cx.shape_value([1, channels, 1, 1])])])
    return out


@converts(F.conv2d, torch.conv2d)
def conv2d(cx, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    return _conv2d(cx, input, weight, bias, stride, padding, dilation, groups)


def _conv_module(cx, module, name, x, convert):
    if module.padding_mode != "zeros":
        raise Unsupported(f"padding_mode={module.padding_mode!r}")
    return convert(cx, x, cx.value_of(f"{name}.weight"), _optional_param(cx, module, name, "bias"), module.stride,
                   module.padding, module.dilation, module.groups)


converts_module(nn.Conv2d)(lambda cx, module, name, input: _conv_module(cx, module, name, input, _conv2d))  # noqa


def _conv1d(cx, x, weight, bias, stride, padding, dilation, groups):
    """As a 2-D convolution of height 1."""
    if isinstance(padding, str):
        padding = {"valid": 0}.get(padding, padding)
        if padding == "same":
            k = cx.static_dims(weight, "conv1d's weight")[2]
            d = dilation if isinstance(dilation, int) else dilation[0]
            total = d * (k - 1)
            padding = (total // 2, total - total // 2)
    pad = [padding, padding] if isinstance(padding, int) else ([padding[0], padding[0]] if len(padding) == 1
                                                                else list(padding))
    one = lambda v: int(v) if isinstance(v, int) else int(v[0])  # noqa: E731
    x2 = cx.op("expand_dims", [x], axis=[2])
    w2 = cx.op("expand_dims", [weight], axis=[2])
    out = cx.op("nn.conv2d", [x2, w2], strides=[1, one(stride)], padding=[0, pad[0], 0, pad[1]],
                dilation=[1, one(dilation)], groups=int(groups))
    out = cx.op("squeeze", [out], axis=[2])
    if bias is not None:
        out = cx.op("add", [out, cx.op("expand_dims", [bias], axis=[1])])
    return out


@converts(F.conv1d, torch.conv1d)
def conv1d(cx, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    return _conv1d(cx, input, weight, bias, stride, padding, dilation, groups)


converts_module(nn.Conv1d)(lambda cx, module, name, input: _conv_module(cx, module, name, input, _conv1d))  # noqa


# ---- pooling

def _max_pool2d(cx, x, kernel_size, stride, padding, dilation, ceil_mode, return_indices=False):
    if return_indices:
        raise Unsupported("max pooling with return_indices=True")
    kernel = _pair(kernel_size)
    stride = kernel if stride is None or stride == [] or stride == () else _pair(stride)
    p = _pair(padding)
    return cx.op("nn.max_pool2d", [x], pool_size=kernel, strides=stride, padding=[p[0], p[1], p[0], p[1]],
                 dilation=_pair(dilation), ceil_mode=bool(ceil_mode))


@converts(F.max_pool2d, torch.max_pool2d)
def max_pool2d(cx, input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    return _max_pool2d(cx, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


@converts_module(nn.MaxPool2d)
def max_pool2d_module(cx, module, name, input):  # noqa: A002
    return _max_pool2d(cx, input, module.kernel_size, module.stride, module.padding, module.dilation,
                       module.ceil_mode, module.return_indices)


def _avg_pool2d(cx, x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    if divisor_override is not None:
        raise Unsupported("average pooling with divisor_override")
    kernel = _pair(kernel_size)
    stride = kernel if stride is None or stride == [] or stride == () else _pair(stride)
    p = _pair(padding)
    return cx.op("nn.avg_pool2d", [x], pool_size=kernel, strides=stride, padding=[p[0], p[1], p[0], p[1]],
                 ceil_mode=bool(ceil_mode), count_include_pad=bool(count_include_pad))


@converts(F.avg_pool2d, torch._C._nn.avg_pool2d)
def avg_pool2d(cx, input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,  # noqa: A002
               divisor_override=None):
    return _avg_pool2d(cx, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


@converts_module(nn.AvgPool2d)
def avg_pool2d_module(cx, module, name, input):  # noqa: A002
    return _avg_pool2d(cx, input, module.kernel_size, module.stride, module.padding, module.ceil_mode,
                       module.count_include_pad, module.divisor_override)


@converts(F.adaptive_avg_pool2d)
def adaptive_avg_pool2d(cx, input, output_size):  # noqa: A002
    size = _pair(output_size) if not isinstance(output_size, (tuple, list)) or None not in output_size else None
    if size is None:
        dims = cx.dims(input)
        size = [dims[2 + i] if s is None else s for i, s in enumerate(output_size)]
    return cx.op("nn.adaptive_avg_pool2d", [input], output_size=size)


@converts_module(nn.AdaptiveAvgPool2d)
def adaptive_avg_pool2d_module(cx, module, name, input):  # noqa: A002
    return adaptive_avg_pool2d(cx, input, module.output_size)


# ---- normalization

def _batch_norm(cx, x, running_mean, running_var, weight, bias, training, momentum, eps, mean_tensor=None,
                var_tensor=None, count_tensor=None):
    channels = cx.static_dims(x, "batch_norm")[1]
    dtype = cx.dtype(x)
    ones = lambda v: cx.constant(np.full((channels,), v, dtype=dtype))  # noqa: E731
    gamma = weight if weight is not None else ones(1)
    beta = bias if bias is not None else ones(0)
    stats_given = running_mean is not None
    if not stats_given and not training:
        raise Unsupported("batch_norm without running statistics in eval mode")
    if momentum is None and training and stats_given:
        raise Unsupported("batch_norm with momentum=None (a cumulative moving average)")
    mean = running_mean if stats_given else ones(0)
    var = running_var if stats_given else ones(1)
    out = cx.op("nn.batch_norm", [x, gamma, beta, mean, var], axis=1, epsilon=float(eps),
                momentum=float(momentum if momentum is not None else 0.1), training=bool(training))
    if stats_given and training:
        if mean_tensor is not None and cx.is_state(mean_tensor):
            cx.set_state(mean_tensor, cx.item(out, 1))
        if var_tensor is not None and cx.is_state(var_tensor):
            cx.set_state(var_tensor, cx.item(out, 2))
        if count_tensor is not None and cx.is_state(count_tensor):
            cx.set_state(count_tensor, cx.op("add", [cx.value_of_tensor(count_tensor), cx.scalar(1, "int64")]))
    return cx.item(out, 0)


@converts(F.batch_norm)
def batch_norm(cx, input, running_mean, running_var, weight=None, bias=None, training=False,  # noqa: A002
               momentum=0.1, eps=1e-5):
    # The running statistics' tensors are known when they are a module's buffers (get_attr).
    return _batch_norm(cx, input, running_mean, running_var, weight, bias, training and cx.training, momentum, eps,
                       cx.tensor_of_var(running_mean), cx.tensor_of_var(running_var))


@converts_module(nn.BatchNorm1d, nn.BatchNorm2d)
def batch_norm_module(cx, module, name, input):  # noqa: A002
    training = cx.training  # the import's mode (from_fx's training=), which defaults to the module's
    uses_batch_stats = training or not module.track_running_stats
    stats = module.running_mean is not None and (not training or module.track_running_stats)
    return _batch_norm(cx, input, cx.value_of(f"{name}.running_mean") if stats else None,
                       cx.value_of(f"{name}.running_var") if stats else None,
                       _optional_param(cx, module, name, "weight"), _optional_param(cx, module, name, "bias"),
                       uses_batch_stats, module.momentum, module.eps,
                       module.running_mean, module.running_var, module.num_batches_tracked)


def _layer_norm(cx, x, normalized_shape, weight, bias, eps):
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    n = cx.ndim(x)
    dtype = cx.dtype(x)
    gamma = weight if weight is not None else cx.constant(np.ones(shape, dtype=dtype))
    beta = bias if bias is not None else cx.constant(np.zeros(shape, dtype=dtype))
    return cx.op("nn.layer_norm", [x, gamma, beta], axes=list(range(n - len(shape), n)), epsilon=float(eps))


@converts(F.layer_norm)
def layer_norm(cx, input, normalized_shape, weight=None, bias=None, eps=1e-5):  # noqa: A002
    return _layer_norm(cx, input, normalized_shape, weight, bias, eps)


@converts_module(nn.LayerNorm)
def layer_norm_module(cx, module, name, input):  # noqa: A002
    return _layer_norm(cx, input, module.normalized_shape, _optional_param(cx, module, name, "weight"),
                       _optional_param(cx, module, name, "bias"), module.eps)


# ---- dropout

@converts(F.dropout, torch.dropout)
def dropout(cx, input, p=0.5, training=True, inplace=False):  # noqa: A002
    return cx.dropout(input, p, active=training)


@converts_module(nn.Dropout, nn.Dropout1d if hasattr(nn, "Dropout1d") else nn.Dropout, nn.Dropout2d)
def dropout_module(cx, module, name, input):  # noqa: A002
    if type(module) is not nn.Dropout and cx.training and cx.options["dropout"] and module.p > 0:
        raise Unsupported("channel dropout in training")
    return cx.dropout(input, module.p)


def _stochastic_depth(cx, input, p, mode, training=True):  # noqa: A002
    """torchvision.ops.stochastic_depth: drops whole samples (mode "row") or the whole batch
    ("batch") with probability p, scaling the kept by 1 / (1 - p): nn.dropout of a ones tensor
    of the sample or batch shape, times the input."""
    if not (training and cx.training and cx.options["dropout"]) or p == 0:
        return input
    if mode not in ("row", "batch"):
        raise Unsupported(f"stochastic_depth mode {mode!r}")
    dims = cx.static_dims(input, "stochastic_depth")
    shape = [dims[0] if mode == "row" else 1] + [1] * (len(dims) - 1)
    ones = cx.constant(np.ones(shape, dtype=cx.dtype(input)))
    return cx.op("multiply", [input, cx.dropout(ones, p)])


try:  # torchvision is optional: its functions convert when it is there
    from torchvision.ops import stochastic_depth as _torchvision_stochastic_depth
    converts(_torchvision_stochastic_depth)(_stochastic_depth)
except ImportError:
    pass


# ---- activations

def _activation(name, op_name, functions, modules, methods=()):
    converts(*functions, methods=methods)(lambda cx, input, *args, **kwargs: cx.op(op_name, [input]))  # noqa: A002
    converts_module(*modules)(lambda cx, module, qualified, input: cx.op(op_name, [input]))  # noqa: A002


_activation("relu", "nn.relu", (F.relu, torch.relu, torch.relu_, F.relu_), (nn.ReLU,), ("relu", "relu_"))
_activation("sigmoid", "sigmoid", (F.sigmoid,), (nn.Sigmoid,))
_activation("tanh", "tanh", (F.tanh,), (nn.Tanh,))
_activation("silu", "nn.silu", (F.silu,), (nn.SiLU,))


def _gelu(cx, x, approximate="none"):
    if approximate == "none":
        return cx.op("nn.gelu", [x])
    # tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    dtype = cx.dtype(x)
    cube = cx.op("multiply", [cx.op("multiply", [x, x]), x])
    inner = cx.op("add", [x, cx.op("multiply", [cx.scalar(0.044715, dtype), cube])])
    t = cx.op("tanh", [cx.op("multiply", [cx.scalar(float(np.sqrt(2 / np.pi)), dtype), inner])])
    return cx.op("multiply", [cx.op("multiply", [cx.scalar(0.5, dtype), x]), cx.op("add", [cx.scalar(1, dtype), t])])


@converts(F.gelu)
def gelu(cx, input, approximate="none"):  # noqa: A002
    return _gelu(cx, input, approximate)


@converts_module(nn.GELU)
def gelu_module(cx, module, name, input):  # noqa: A002
    return _gelu(cx, input, getattr(module, "approximate", "none"))


def _hardtanh(cx, x, lo, hi):
    return cx.op("clip", [x], min=float(lo), max=float(hi))


@converts(F.hardtanh, F.hardtanh_)
def hardtanh(cx, input, min_val=-1.0, max_val=1.0, inplace=False):  # noqa: A002
    return _hardtanh(cx, input, min_val, max_val)


@converts(F.relu6)
def relu6(cx, input, inplace=False):  # noqa: A002
    return _hardtanh(cx, input, 0.0, 6.0)


@converts_module(nn.ReLU6, nn.Hardtanh)
def hardtanh_module(cx, module, name, input):  # noqa: A002
    return _hardtanh(cx, input, module.min_val, module.max_val)


def _hardsigmoid(cx, x):
    dtype = cx.dtype(x)
    return cx.op("divide", [_hardtanh(cx, cx.op("add", [x, cx.scalar(3, dtype)]), 0.0, 6.0), cx.scalar(6, dtype)])


@converts(F.hardsigmoid)
def hardsigmoid(cx, input, inplace=False):  # noqa: A002
    return _hardsigmoid(cx, input)


@converts(F.hardswish)
def hardswish(cx, input, inplace=False):  # noqa: A002
    return cx.op("multiply", [input, _hardsigmoid(cx, input)])


converts_module(nn.Hardsigmoid)(lambda cx, module, name, input: _hardsigmoid(cx, input))  # noqa: A002
converts_module(nn.Hardswish)(lambda cx, module, name, input: hardswish(cx, input))  # noqa: A002


def _leaky_relu(cx, x, slope):
    scaled = cx.op("multiply", [x, cx.scalar(slope, cx.dtype(x))])
    return cx.op("where", [cx.op("greater", [x, cx.scalar(0, cx.dtype(x))]), x, scaled])


@converts(F.leaky_relu)
def leaky_relu(cx, input, negative_slope=0.01, inplace=False):  # noqa: A002
    return _leaky_relu(cx, input, negative_slope)


converts_module(nn.LeakyReLU)(lambda cx, module, name, input: _leaky_relu(cx, input, module.negative_slope))  # noqa


def _softmax(cx, op_name, x, dim, dtype=None):
    if dim is None:
        raise Unsupported(f"{op_name} without dim")
    if dtype is not None:
        from ._tensor_ops import astype
        from ._context import dtype_name
        x = astype(cx, x, dtype_name(dtype))
    return cx.op(op_name, [x], axis=dim + cx.ndim(x) if dim < 0 else dim)


@converts(F.softmax, torch.softmax, methods=("softmax",))
def softmax(cx, input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002
    return _softmax(cx, "softmax", input, dim, dtype)


@converts(F.log_softmax, torch.log_softmax, methods=("log_softmax",))
def log_softmax(cx, input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002
    return _softmax(cx, "log_softmax", input, dim, dtype)


converts_module(nn.Softmax)(lambda cx, module, name, input: _softmax(cx, "softmax", input, module.dim))  # noqa
converts_module(nn.LogSoftmax)(lambda cx, module, name, input: _softmax(cx, "log_softmax", input, module.dim))  # noqa


# ---- shape modules, embeddings

converts_module(nn.Identity)(lambda cx, module, name, input, *args, **kwargs: input)  # noqa: A002
converts_module(nn.Flatten)(lambda cx, module, name, input: cx.op(  # noqa: A002
    "flatten", [input], start_dim=module.start_dim, end_dim=module.end_dim))


def _embedding(cx, indices, weight, padding_idx, max_norm):
    if padding_idx is not None or max_norm is not None:
        raise Unsupported("embedding with padding_idx or max_norm")
    return cx.op("take", [weight, indices], axis=0)


@converts(F.embedding)
def embedding(cx, input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,  # noqa
              sparse=False):
    return _embedding(cx, input, weight, padding_idx, max_norm)


@converts_module(nn.Embedding)
def embedding_module(cx, module, name, input):  # noqa: A002
    return _embedding(cx, input, cx.value_of(f"{name}.weight"), module.padding_idx, module.max_norm)

