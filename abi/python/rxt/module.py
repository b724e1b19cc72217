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

    def verify(self):
        """Raises rxt.Error listing every problem if the module is not well formed."""
        _lib.check(_lib.lib.rxt_module_verify(self._handle))

    @property
    def handle(self):
        return self._handle

    def __str__(self):
        text = ctypes.c_void_p()
        _lib.check(_lib.lib.rxt_module_print(self._handle, ctypes.byref(text)))
        return _lib.take_string(text)

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle:
            _lib.lib.rxt_module_release(handle)
        self._handle = None
