"""Converters of torch's tensor functions and Tensor methods: arithmetic, shapes, reductions,
indexing. Python values (shapes, sizes, scalars) are computed in Python, as torch does while
tracing would have; tensors become rxt ops."""
import builtins
import math
import operator

import torch

from .._ir import DType
from ._context import SymDim, Unsupported, Var, dtype_name
from ._registry import converts

_BIG = (1 << 31) - 1  # strided_slice's "to the end of the axis"


def _is_number(v):
    return isinstance(v, (bool, int, float)) and not isinstance(v, Var)


def _axis(axis, ndim):
    return axis + ndim if axis < 0 else axis


def _binary(cx, name, a, b, python_op):
    if _is_number(a) and _is_number(b):
        return python_op(a, b)
    if isinstance(a, SymDim) or isinstance(b, SymDim):
        raise Unsupported(f"arithmetic on the symbolic dim {a if isinstance(a, SymDim) else b}")
    if not isinstance(a, Var) and not isinstance(b, Var):
        raise Unsupported(f"{name} of {type(a).__name__} and {type(b).__name__}")
    a = cx.tensor(a, like=b if isinstance(b, Var) else None)
    b = cx.tensor(b, like=a)
    return cx.op(name, [a, b])


@converts(operator.add, operator.iadd, torch.add, methods=("add", "add_", "__add__", "__iadd__"))
def add(cx, input, other, alpha=1):  # noqa: A002 (torch's names)
    if alpha != 1:
        other = _binary(cx, "multiply", other, alpha, operator.mul)
    return _binary(cx, "add", input, other, operator.add)


@converts(operator.sub, operator.isub, torch.sub, methods=("sub", "sub_", "__sub__", "__isub__"))
def sub(cx, input, other, alpha=1):  # noqa: A002
    if alpha != 1:
        other = _binary(cx, "multiply", other, alpha, operator.mul)
    return _binary(cx, "subtract", input, other, operator.sub)


@converts(torch.rsub, methods=("__rsub__",))
def rsub(cx, input, other, alpha=1):  # noqa: A002
    return sub(cx, other, input, alpha)


@converts(operator.mul, operator.imul, torch.mul, methods=("mul", "mul_", "__mul__", "__imul__"))
def mul(cx, input, other):  # noqa: A002
    return _binary(cx, "multiply", input, other, operator.mul)


@converts(operator.truediv, operator.itruediv, torch.div, torch.true_divide,
          methods=("div", "div_", "__truediv__", "true_divide"))
def div(cx, input, other, rounding_mode=None):  # noqa: A002
    if rounding_mode is not None:
        if _is_number(input) and _is_number(other):
            return math.floor(input / other) if rounding_mode == "floor" else int(input / other)
        if rounding_mode != "floor":
            raise Unsupported(f"div with rounding_mode={rounding_mode!r}")
        return cx.op("floor", [_binary(cx, "divide", input, other, operator.truediv)])
    return _binary(cx, "divide", input, other, operator.truediv)


@converts(operator.floordiv)
def floordiv(cx, a, b):
    if _is_number(a) and _is_number(b):
        return a // b
    return div(cx, a, b, rounding_mode="floor")


@converts(operator.pow, torch.pow, methods=("pow", "__pow__"))
def pow(cx, input, exponent):  # noqa: A001,A002
    if _is_number(input) and _is_number(exponent):
        return input ** exponent
    if isinstance(input, Var) and _is_number(exponent):
        if exponent == 2:
            return cx.op("multiply", [input, input])
        if exponent == 0.5:
            return cx.op("sqrt", [input])
    return _binary(cx, "power", input, exponent, operator.pow)


@converts(operator.neg, torch.neg, methods=("neg", "__neg__"))
def neg(cx, input):  # noqa: A002
    return -input if _is_number(input) else cx.op("negative", [input])


@converts(operator.matmul, torch.matmul, torch.bmm, torch.mm, methods=("matmul", "bmm", "mm", "__matmul__"))
def matmul(cx, input, other):  # noqa: A002
    return cx.op("matmul", [input, other])


def _unary(op_name, *functions, methods=()):
    @converts(*functions, methods=methods)
    def convert(cx, input, *args, **kwargs):  # noqa: A002 (inplace=..., out=None ignored)
        return cx.op(op_name, [input])
    return convert


for _name, _ops in {"exp": (torch.exp,), "log": (torch.log,), "sqrt": (torch.sqrt,), "rsqrt": (torch.rsqrt,),
                    "abs": (torch.abs, operator.abs), "sin": (torch.sin,), "cos": (torch.cos,),
                    "tanh": (torch.tanh,), "sigmoid": (torch.sigmoid,), "erf": (torch.erf,),
                    "floor": (torch.floor,), "ceil": (torch.ceil,), "round": (torch.round,),
                    "sign": (torch.sign,)}.items():
    _unary(_name, *_ops, methods=(_name, _name + "_"))


@converts(methods=("contiguous", "clone"))
def identity(cx, input, *args, **kwargs):  # noqa: A002
    return input


@converts(torch.clone)
def clone(cx, input, memory_format=None):  # noqa: A002
    return input


# ---- shapes

def _shape_args(shape):
    """view(2, 3) and view((2, 3)) alike."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, torch.Size)):
        return list(shape[0])
    return list(shape)


def _reshape(cx, x, dims):
    """reshape to |dims|, where symbolic dims (their text, from size()) may stand: reshape takes
    static dims and one inferred (-1), so a symbolic dim becomes the inferred one, after an
    explicit -1 is worked out when the symbols cancel (view(x.size(0), -1) of an (n, 3, 4) x is
    (n, 12): reshape to (-1, 12))."""
    symbolic = [d for d in dims if not isinstance(d, int)]
    if symbolic and -1 in dims:
        source = cx.dims(x)
        source_symbols = sorted(str(d) for d in source if not isinstance(d, int))
        if sorted(str(d) for d in symbolic) == source_symbols:
            known = math.prod(d for d in dims if isinstance(d, int) and d != -1)
            total = math.prod(d for d in source if isinstance(d, int))
            if known and total % known == 0:
                dims = [total // known if d == -1 else d for d in dims]
    out = [d if isinstance(d, int) else -1 for d in dims]
    if out.count(-1) > 1:
        raise Unsupported(f"reshape to {list(dims)}: more than one dim unknown at import")
    return cx.op("reshape", [x, cx.shape_value(out)])


@converts(methods=("view", "reshape"))
def view(cx, input, *shape):  # noqa: A002
    if len(shape) == 1 and not isinstance(shape[0], (tuple, list, torch.Size, int)):
        raise Unsupported(f"view as {shape[0]}")
    return _reshape(cx, input, _shape_args(shape))


@converts(torch.reshape)
def reshape(cx, input, shape):  # noqa: A002
    return _reshape(cx, input, list(shape))


@converts(torch.flatten, methods=("flatten",))
def flatten(cx, input, start_dim=0, end_dim=-1):  # noqa: A002
    return cx.op("flatten", [input], start_dim=start_dim, end_dim=end_dim)


@converts(torch.unsqueeze, methods=("unsqueeze",))
def unsqueeze(cx, input, dim):  # noqa: A002
    return cx.op("expand_dims", [input], axis=[_axis(dim, cx.ndim(input) + 1)])


@converts(torch.squeeze, methods=("squeeze",))
def squeeze(cx, input, dim=None):  # noqa: A002
    if dim is None:
        return cx.op("squeeze", [input])
    dims = [dim] if isinstance(dim, int) else list(dim)
    shape = cx.dims(input)
    keep = [_axis(d, len(shape)) for d in dims if shape[_axis(d, len(shape))] == 1]
    return cx.op("squeeze", [input], axis=keep) if keep else input


@converts(torch.permute, methods=("permute",))
def permute(cx, input, *dims):  # noqa: A002
    return cx.op("permute_dims", [input], axes=[_axis(d, cx.ndim(input)) for d in _shape_args(dims)])


@converts(torch.transpose, methods=("transpose",))
def transpose(cx, input, dim0, dim1):  # noqa: A002
    n = cx.ndim(input)
    axes = list(range(n))
    a, b = _axis(dim0, n), _axis(dim1, n)
    axes[a], axes[b] = axes[b], axes[a]
    return cx.op("permute_dims", [input], axes=axes)


@converts(torch.t, methods=("t",))
def t(cx, input):  # noqa: A002
    return cx.op("permute_dims", [input]) if cx.ndim(input) == 2 else input


@converts(methods=("size",))
def size(cx, input, dim=None):  # noqa: A002
    dims = cx.dims(input)
    # Symbolic dims as SymDim: reshape takes one as its inferred dim; arithmetic on it is refused.
    dims = [d if isinstance(d, int) else SymDim(str(d)) for d in dims]
    if dim is None:
        return torch.Size(dims) if all(isinstance(d, int) for d in dims) else tuple(dims)
    return dims[dim]


@converts(methods=("dim",))
def dim(cx, input):  # noqa: A002
    return cx.ndim(input)


@converts(builtins.getattr)
def getattr_(cx, obj, name, *default):
    if isinstance(obj, Var):
        if name == "shape":
            return size(cx, obj)
        if name == "ndim":
            return cx.ndim(obj)
        if name == "dtype":
            return getattr(torch, cx.dtype(obj))
        if name == "T":
            return cx.op("permute_dims", [obj])
        raise Unsupported(f"Tensor attribute {name}")
    return getattr(obj, name, *default)


@converts(methods=("expand",))
def expand(cx, input, *sizes):  # noqa: A002
    sizes = _shape_args(sizes)
    dims = cx.dims(input)
    offset = len(sizes) - len(dims)
    out = [dims[i - offset] if s == -1 else s for i, s in enumerate(sizes)]
    if any(not isinstance(d, int) for d in out):
        raise Unsupported(f"expand to symbolic dims {out}")
    return cx.op("broadcast_to", [input, cx.shape_value(out)])


@converts(methods=("expand_as",))
def expand_as(cx, input, other):  # noqa: A002
    return cx.op("broadcast_to", [input, cx.b.shape_of(other.expr)])


@converts(torch.cat, torch.concat, torch.concatenate if hasattr(torch, "concatenate") else torch.cat)
def cat(cx, tensors, dim=0, axis=None):
    tensors = list(tensors)
    axis = dim if axis is None else axis
    return cx.op("concat", [cx.b.tuple([t.expr for t in tensors])], axis=_axis(axis, cx.ndim(tensors[0])))


@converts(torch.stack)
def stack(cx, tensors, dim=0):
    tensors = list(tensors)
    axis = _axis(dim, cx.ndim(tensors[0]) + 1)
    expanded = [cx.op("expand_dims", [t], axis=[axis]) for t in tensors]
    return cx.op("concat", [cx.b.tuple([t.expr for t in expanded])], axis=axis)


def _split_by_sizes(cx, x, sizes, axis):
    cuts, total = [], 0
    for s in sizes[:-1]:
        total += s
        cuts.append(total)
    parts = cx.op("split", [x], indices=cuts, axis=axis)
    return tuple(cx.item(parts, i) for i in range(len(sizes)))


@converts(torch.split, methods=("split",))
def split(cx, tensor, split_size_or_sections, dim=0):
    axis = _axis(dim, cx.ndim(tensor))
    length = cx.static_dims(tensor, "split")[axis]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        sizes = [min(step, length - i) for i in range(0, length, step)]
    else:
        sizes = list(split_size_or_sections)
    return _split_by_sizes(cx, tensor, sizes, axis)


@converts(torch.chunk, methods=("chunk",))
def chunk(cx, input, chunks, dim=0):  # noqa: A002
    axis = _axis(dim, cx.ndim(input))
    length = cx.static_dims(input, "chunk")[axis]
    step = -(-length // chunks)
    return _split_by_sizes(cx, input, [min(step, length - i) for i in range(0, length, step)], axis)


@converts(torch.unbind, methods=("unbind",))
def unbind(cx, input, dim=0):  # noqa: A002
    axis = _axis(dim, cx.ndim(input))
    parts = _split_by_sizes(cx, input, [1] * cx.static_dims(input, "unbind")[axis], axis)
    return tuple(cx.op("squeeze", [p], axis=[axis]) for p in parts)


# ---- reductions

def _reduce(cx, op_name, x, dim, keepdim):
    axes = None if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    if axes is not None:
        axes = [_axis(a, cx.ndim(x)) for a in axes]
    return cx.op(op_name, [x], axis=axes, keepdims=bool(keepdim))


def astype(cx, x, dtype_name_):
    return x if cx.dtype(x) == dtype_name_ else cx.op("astype", [x], dtype=DType(dtype_name_))


@converts(torch.sum, methods=("sum",))
def sum_(cx, input, dim=None, keepdim=False, dtype=None):  # noqa: A002
    if dtype is not None:
        input = astype(cx, input, dtype_name(dtype))
    return _reduce(cx, "sum", input, dim, keepdim)


@converts(torch.mean, methods=("mean",))
def mean(cx, input, dim=None, keepdim=False, dtype=None):  # noqa: A002
    if dtype is not None:
        input = astype(cx, input, dtype_name(dtype))
    return _reduce(cx, "mean", input, dim, keepdim)


@converts(torch.cumsum, methods=("cumsum",))
def cumsum(cx, input, dim, dtype=None):  # noqa: A002
    if dtype is not None:
        input = astype(cx, input, dtype_name(dtype))
    return cx.op("cumsum", [input], axis=_axis(dim, cx.ndim(input)))


@converts(torch.amax, methods=("amax",))
def amax(cx, input, dim=(), keepdim=False):  # noqa: A002
    return _reduce(cx, "max", input, None if dim == () else dim, keepdim)


@converts(torch.amin, methods=("amin",))
def amin(cx, input, dim=(), keepdim=False):  # noqa: A002
    return _reduce(cx, "min", input, None if dim == () else dim, keepdim)


@converts(torch.var, methods=("var",))
def var(cx, input, dim=None, unbiased=True, keepdim=False, correction=None):  # noqa: A002
    axes = None if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    n = 1
    dims = cx.static_dims(input, "var")
    for a in (range(len(dims)) if axes is None else axes):
        n *= dims[a]
    population = _reduce(cx, "variance", input, dim, keepdim)
    correction = (1 if unbiased else 0) if correction is None else correction
    if correction == 0:
        return population
    return cx.op("multiply", [population, cx.scalar(n / (n - correction), cx.dtype(input))])


@converts(torch.std, methods=("std",))
def std(cx, input, dim=None, unbiased=True, keepdim=False, correction=None):  # noqa: A002
    return cx.op("sqrt", [var(cx, input, dim, unbiased, keepdim, correction)])


# ---- dtypes

@converts(methods=("to", "type"))
def to(cx, input, *args, **kwargs):  # noqa: A002
    dtype = kwargs.get("dtype")
    for a in args:
        if isinstance(a, torch.dtype):
            dtype = a
        elif isinstance(a, Var):
            dtype = getattr(torch, cx.dtype(a))
    return input if dtype is None else astype(cx, input, dtype_name(dtype))


for _method, _dtype in {"float": "float32", "double": "float64", "half": "float16", "long": "int64",
                        "int": "int32", "bool": "bool", "bfloat16": "bfloat16"}.items():
    converts(methods=(_method,))(lambda cx, input, memory_format=None, _d=_dtype: astype(cx, input, _d))  # noqa: A002


@converts(methods=("type_as",))
def type_as(cx, input, other):  # noqa: A002
    return astype(cx, input, cx.dtype(other))


# ---- comparisons and logic

def _comparison(op_name, python_op, functions, methods):
    converts(*functions, methods=methods)(lambda cx, input, other: _binary(cx, op_name, input, other, python_op))  # noqa


_comparison("greater", operator.gt, (operator.gt, torch.gt, torch.greater), ("gt", "greater", "__gt__"))
_comparison("greater_equal", operator.ge, (operator.ge, torch.ge, torch.greater_equal), ("ge", "greater_equal", "__ge__"))
_comparison("less", operator.lt, (operator.lt, torch.lt, torch.less), ("lt", "less", "__lt__"))
_comparison("less_equal", operator.le, (operator.le, torch.le, torch.less_equal), ("le", "less_equal", "__le__"))
_comparison("equal", operator.eq, (operator.eq, torch.eq), ("eq", "__eq__"))
_comparison("not_equal", operator.ne, (operator.ne, torch.ne, torch.not_equal), ("ne", "not_equal", "__ne__"))


@converts(torch.logical_not, operator.invert, methods=("logical_not", "__invert__"))
def logical_not(cx, input):  # noqa: A002
    if _is_number(input):
        return not input if isinstance(input, bool) else ~input
    return cx.op("equal", [input, cx.tensor(False if cx.dtype(input) == "bool" else 0, like=input)])


# ---- new tensors

def _fill_like(cx, x, value, dtype):
    dtype = cx.dtype(x) if dtype is None else dtype_name(dtype)
    return cx.op("full", [cx.b.shape_of(x.expr), cx.b.scalar(float(value), dtype)], dtype=DType(dtype))


@converts(torch.zeros_like)
def zeros_like(cx, input, dtype=None, **kwargs):  # noqa: A002
    return _fill_like(cx, input, 0, dtype)


@converts(torch.ones_like)
def ones_like(cx, input, dtype=None, **kwargs):  # noqa: A002
    return _fill_like(cx, input, 1, dtype)


@converts(torch.full_like)
def full_like(cx, input, fill_value, dtype=None, **kwargs):  # noqa: A002
    return _fill_like(cx, input, fill_value, dtype)


# ---- selection

@converts(torch.where)
def where(cx, condition, input, other):  # noqa: A002
    like = input if isinstance(input, Var) else other
    return cx.op("where", [condition, cx.tensor(input, like=like), cx.tensor(other, like=like)])


@converts(methods=("masked_fill", "masked_fill_"))
def masked_fill(cx, input, mask, value):  # noqa: A002
    return cx.op("where", [mask, cx.tensor(value, like=input), input])


@converts(torch.clamp, torch.clip, methods=("clamp", "clamp_", "clip"))
def clamp(cx, input, min=None, max=None):  # noqa: A002
    if min is not None and max is not None and _is_number(min) and _is_number(max):
        return cx.op("clip", [input], min=float(min), max=float(max))
    out = input
    if min is not None:
        out = cx.op("maximum", [out, cx.tensor(min, like=input)])
    if max is not None:
        out = cx.op("minimum", [out, cx.tensor(max, like=input)])
    return out


@converts(operator.getitem)
def getitem(cx, obj, index):
    if not isinstance(obj, Var):
        return obj[index]
    return _index(cx, obj, index if isinstance(index, tuple) else (index,))


def _index(cx, x, index):
    """x[index] for ints, slices, None and Ellipsis (tensor indices are not supported)."""
    dims = cx.dims(x)
    if any(isinstance(i, Var) for i in index):
        raise Unsupported("indexing with a tensor")
    if Ellipsis in index:
        at = index.index(Ellipsis)
        used = sum(1 for i in index if i is not None and i is not Ellipsis)
        index = index[:at] + (slice(None),) * (len(dims) - used) + index[at + 1:]
    axes, begin, end, strides, drop, new_axes = [], [], [], [], [], []
    axis = 0
    out_axis = 0
    for i in index:
        if i is None:
            new_axes.append(out_axis)
            out_axis += 1
            continue
        if isinstance(i, int):
            axes.append(axis)
            begin.append(i)
            end.append(i + 1 if i != -1 else _BIG)
            strides.append(1)
            drop.append(axis)
        elif isinstance(i, slice):
            if i != slice(None):
                axes.append(axis)
                begin.append(0 if i.start is None else i.start)
                end.append(_BIG if i.stop is None else i.stop)
                strides.append(1 if i.step is None else i.step)
            out_axis += 1
        else:
            raise Unsupported(f"indexing with {type(i).__name__}")
        axis += 1
    out = cx.op("strided_slice", [x], axes=axes, begin=begin, end=end, strides=strides) if axes else x
    if drop:
        out = cx.op("squeeze", [out], axis=drop)
    if new_axes:
        out = cx.op("expand_dims", [out], axis=new_axes)
    return out
