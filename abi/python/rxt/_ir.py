"""Building IR from Python through the C ABI: rxt_function_builder_* (rxt.h) and the IR table
rxt_ir_api_t (rxt/ir_builder.h), the one plugins' generators use. FunctionBuilder raises
rxt.Error at the first failed building call, with rxt's message (the op, the operands' struct
info), so that an importer can say which of its nodes it was converting."""
import ctypes

from . import _dlpack, _lib

expr_t = ctypes.c_void_p
builder_t = ctypes.c_void_p
_F = ctypes.CFUNCTYPE
_exprs = ctypes.POINTER(expr_t)
_unused = ctypes.c_void_p  # members this binding does not call (the table's layout needs them all)


class IRApi(ctypes.Structure):
    """rxt_ir_api_t, member for member (rxt/ir_builder.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        # Reading expressions.
        ("op_name", _unused), ("num_args", _unused), ("arg", _unused), ("attr_int", _unused),
        ("attr_float", _unused), ("attr_bool", _unused), ("attr_string", _unused), ("attr_ints", _unused),
        ("attr_text", _unused),
        ("is_tensor", _F(ctypes.c_int, builder_t, expr_t)),
        ("ndim", _F(ctypes.c_int, builder_t, expr_t)),
        ("dtype", _F(ctypes.c_char_p, builder_t, expr_t)),
        ("dim", _F(ctypes.c_int, builder_t, expr_t, ctypes.c_int, ctypes.POINTER(ctypes.c_int64))),
        ("tuple_size", _F(ctypes.c_int, builder_t, expr_t)),
        ("struct_info_text", _F(ctypes.c_char_p, builder_t, expr_t)),
        # Building.
        ("op", _F(expr_t, builder_t, ctypes.c_char_p, _exprs, ctypes.c_int, ctypes.c_char_p)),
        ("scalar", _F(expr_t, builder_t, ctypes.c_double, ctypes.c_char_p)),
        ("constant", _unused),
        ("shape_of", _F(expr_t, builder_t, expr_t)),
        ("shape", _F(expr_t, builder_t, ctypes.POINTER(ctypes.c_int64), ctypes.c_int)),
        ("tuple", _F(expr_t, builder_t, _exprs, ctypes.c_int)),
        ("get_item", _F(expr_t, builder_t, expr_t, ctypes.c_int)),
        # Functions.
        ("param", _F(expr_t, builder_t, ctypes.c_char_p, ctypes.c_char_p)),
        ("state", _unused), ("set_state", _unused),
        ("error", _F(ctypes.c_char_p, builder_t)),
        ("fail", _unused),
        ("dim_text", _F(ctypes.c_char_p, builder_t, expr_t, ctypes.c_int)),
        ("prim", _F(expr_t, builder_t, ctypes.c_double, ctypes.c_char_p)),
        ("option_int", _unused), ("option_float", _unused), ("option_bool", _unused), ("option_string", _unused),
        ("option_floats", _unused), ("check_options", _unused), ("set_struct_info", _unused),
        ("call_extern", _unused), ("constant_value", _unused),
        ("expr_kind", _unused), ("var_name", _unused), ("constant_tensor", _unused), ("num_fields", _unused),
        ("field", _unused), ("item_of", _unused), ("shape_ndim", _unused), ("shape_dim", _unused),
        ("shape_dim_text", _unused), ("prim_value", _unused),
    ]


_lib._declare("rxt_ir_api", ctypes.POINTER(IRApi))
_lib._declare("rxt_function_builder_create", _lib.status_t, ctypes.POINTER(ctypes.c_void_p))
_lib._declare("rxt_function_builder_ir", builder_t, ctypes.c_void_p)
_lib._declare("rxt_function_builder_constant", _lib.status_t, ctypes.c_void_p, ctypes.POINTER(_dlpack.DLTensor),
              ctypes.POINTER(expr_t))
_lib._declare("rxt_function_builder_finish", _lib.status_t, ctypes.c_void_p, ctypes.c_char_p, _exprs,
              ctypes.c_size_t, ctypes.POINTER(_lib.module_p))
_lib._declare("rxt_function_builder_free", None, ctypes.c_void_p)

api = _lib.lib.rxt_ir_api().contents
if api.struct_size < ctypes.sizeof(IRApi):
    raise ImportError(f"rxt: librxt's IR table has {api.struct_size} bytes, this package needs "
                      f"{ctypes.sizeof(IRApi)}: librxt is older than the package")


def attrs_text(attrs):
    """{"axis": [1], "keepdims": True, "layout": "NCHW"} in the text format's syntax
    ("axis=[1], keepdims=true, layout=\"NCHW\""). A dtype is given as rxt.DType("float32")."""
    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, DType):
            return v.name
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if v is None:
            return "none"
        if isinstance(v, float):
            return repr(v) if v == v and abs(v) != float("inf") else ("nan" if v != v else repr(v))
        return str(int(v))
    return ", ".join(f"{k}={value(v)}" for k, v in attrs.items())


class DType:
    """A dtype attribute value (written bare: dtype=float32)."""

    def __init__(self, name):
        self.name = name


class FunctionBuilder:
    """One function under construction (rxt_function_builder_t). Expressions are opaque ints,
    valid while the builder lives."""

    def __init__(self):
        handle = ctypes.c_void_p()
        _lib.check(_lib.lib.rxt_function_builder_create(ctypes.byref(handle)))
        self._handle = handle
        self._b = _lib.lib.rxt_function_builder_ir(handle)

    def _checked(self, expr, what):
        if not expr:
            message = api.error(self._b)
            raise _lib.Error("invalid argument", message.decode() if message else f"{what} failed")
        return expr

    # ---- Declaring and building.
    def param(self, name, struct_info):
        return self._checked(api.param(self._b, name.encode(), struct_info.encode()), f"param {name}")

    def op(self, name, args, **attrs):
        array = (expr_t * max(len(args), 1))(*args)
        text = attrs_text(attrs).encode() if attrs else None
        return self._checked(api.op(self._b, name.encode(), array, len(args), text), name)

    def scalar(self, value, dtype):
        """A 0-d tensor constant."""
        return self._checked(api.scalar(self._b, float(value), dtype.encode()), "scalar")

    def prim(self, value, dtype):
        """A scalar (Prim) value, for op inputs of type Prim."""
        return self._checked(api.prim(self._b, float(value), dtype.encode()), "prim")

    def shape(self, dims):
        values = (ctypes.c_int64 * max(len(dims), 1))(*dims)
        return self._checked(api.shape(self._b, values, len(dims)), "shape")

    def shape_of(self, tensor):
        return self._checked(api.shape_of(self._b, tensor), "shape_of")

    def tuple(self, fields):
        array = (expr_t * max(len(fields), 1))(*fields)
        return self._checked(api.tuple(self._b, array, len(fields)), "tuple")

    def get_item(self, tuple_expr, index):
        return self._checked(api.get_item(self._b, tuple_expr, index), "get_item")

    def constant(self, array):
        """A tensor constant holding a copy of |array| (NumPy, or anything with __dlpack__ on the CPU)."""
        from .tensor import Tensor
        tensor = Tensor.from_dlpack(array)
        out = expr_t()
        _lib.check(_lib.lib.rxt_function_builder_constant(self._handle, ctypes.byref(tensor._dl), ctypes.byref(out)))
        return out.value

    # ---- Reading struct info.
    def is_tensor(self, e):
        return bool(api.is_tensor(self._b, e))

    def ndim(self, e):
        return api.ndim(self._b, e)

    def dtype(self, e):
        return api.dtype(self._b, e).decode()

    def dims(self, e):
        """Each dim: an int when known, else its text ("n"), else None."""
        out = []
        for axis in range(api.ndim(self._b, e)):
            value = ctypes.c_int64()
            if api.dim(self._b, e, axis, ctypes.byref(value)):
                out.append(value.value)
            else:
                text = api.dim_text(self._b, e, axis)
                out.append(text.decode() if text else None)
        return out

    def tuple_size(self, e):
        return api.tuple_size(self._b, e)

    def struct_info(self, e):
        text = api.struct_info_text(self._b, e)
        return text.decode() if text else "?"

    # ---- Ending.
    def finish(self, name, results):
        """The module holding the function |name| returning |results| (several: a tuple)."""
        from .module import Module
        array = (expr_t * max(len(results), 1))(*results)
        out = _lib.module_p()
        _lib.check(_lib.lib.rxt_function_builder_finish(self._handle, name.encode(), array, len(results),
                                                        ctypes.byref(out)))
        return Module(out)

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle:
            _lib.lib.rxt_function_builder_free(handle)
        self._handle = None
