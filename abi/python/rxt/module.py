"""rxt.Module: an IR module, parsed from its text form and printed back (print(mod) shows it)."""
import ctypes

from . import _lib


class Module:
    def __init__(self, handle):
        """Owns |handle| (an rxt_module_t*, a reference of its own)."""
        self._handle = handle

    @staticmethod
    def parse(text, file_name="<string>"):
        """The module of |text| (.rxt syntax); rxt.Error naming file:line:col for bad text."""
        data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        handle = _lib.module_p()
        _lib.check(_lib.lib.rxt_module_parse(data, len(data), file_name.encode(), ctypes.byref(handle)))
        return Module(handle)

    @staticmethod
    def load(path):
        """The module of the .rxt file at |path|."""
        with open(path, "rb") as f:
            return Module.parse(f.read(), str(path))

    def function_params(self, function):
        """[(name, struct info text)] of |function|'s parameters, in order."""
        params = []

        def visit(_, name, struct_info):
            params.append((name.decode(), struct_info.decode()))
            return 0
        _lib.check(_lib.lib.rxt_module_function_params(self._handle, function.encode(), _lib.ParamVisitor(visit), None))
        return params

    def function_num_results(self, function):
        """How many results |function| returns (a tuple's fields, else 1)."""
        count = ctypes.c_size_t()
        _lib.check(_lib.lib.rxt_module_function_num_results(self._handle, function.encode(), ctypes.byref(count)))
        return count.value

    def verify(self):
        """Raises rxt.Error listing every problem if the module is not well formed."""
        _lib.check(_lib.lib.rxt_module_verify(self._handle))

    def attr(self, name):
        """The module attribute |name| (param_num, state_num...) as an int, float or str; None if absent."""
        kind = ctypes.c_int()
        try:
            _lib.check(_lib.lib.rxt_module_attr_kind(self._handle, name.encode(), ctypes.byref(kind)))
        except _lib.Error as e:
            if e.code == "not found":
                return None
            raise
        if kind.value in (1, 2):  # bool, int
            value = ctypes.c_int64()
            _lib.check(_lib.lib.rxt_module_attr_get_int(self._handle, name.encode(), ctypes.byref(value)))
            return value.value
        if kind.value == 3:
            value = ctypes.c_double()
            _lib.check(_lib.lib.rxt_module_attr_get_float(self._handle, name.encode(), ctypes.byref(value)))
            return value.value
        text = ctypes.c_void_p()
        _lib.check(_lib.lib.rxt_module_attr_get_string(self._handle, name.encode(), ctypes.byref(text)))
        return _lib.take_string(text)

    def set_attr(self, name, value):
        """Sets module attribute |name| to an int, float or str (this module changes)."""
        if isinstance(value, bool) or isinstance(value, int):
            _lib.check(_lib.lib.rxt_module_attr_set_int(self._handle, name.encode(), int(value)))
        elif isinstance(value, float):
            _lib.check(_lib.lib.rxt_module_attr_set_float(self._handle, name.encode(), value))
        else:
            _lib.check(_lib.lib.rxt_module_attr_set_string(self._handle, name.encode(), str(value).encode()))

    def _lib_retain(self):
        """A new reference to this module's handle (for a wrapper that owns its own)."""
        return _lib.lib.rxt_module_retain(self._handle)

    @property
    def handle(self):
        return self._handle

    def show(self):
        """Prints the module (the seed's and the MLC course's mod.show())."""
        print(self)

    def __str__(self):
        text = ctypes.c_void_p()
        _lib.check(_lib.lib.rxt_module_print(self._handle, ctypes.byref(text)))
        return _lib.take_string(text)

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle:
            _lib.lib.rxt_module_release(handle)
        self._handle = None
