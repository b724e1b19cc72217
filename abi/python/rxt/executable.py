"""Building a module into an executable, and running its functions on the VM: the seed's
tvm.compile and relax.VirtualMachine."""
import ctypes

from . import _dlpack, _lib
from ._borrow import ArgumentSlots
from .tensor import Tensor

_TARGETS = {"llvm": "cpu", "cpu": "cpu", "reference": "reference"}


class Device:
    """Where tensors live: the CPU (the only device rxt runs on for now)."""

    def __init__(self, kind="cpu", index=0):
        if kind not in ("cpu", "llvm"):
            raise ValueError(f"rxt: no device '{kind}': rxt runs on the CPU")
        self.kind, self.index = "cpu", index

    def __repr__(self):
        return f"rxt.Device(cpu, {self.index})"


def cpu(index=0):
    return Device("cpu", index)


def device(target="cpu", index=0):
    return Device(target, index)


class Executable:
    """A compiled module (every function; rxt_executable_build)."""

    def __init__(self, handle):
        self._handle = handle

    @property
    def handle(self):
        return self._handle

    def save(self, path):
        """Writes it to |path| (.rxtx), which Executable.load (or `rxt run`) reads."""
        _lib.check(_lib.lib.rxt_executable_save(self._handle, str(path).encode()))

    @staticmethod
    def load(path):
        handle = _lib.executable_p()
        _lib.check(_lib.lib.rxt_executable_load(str(path).encode(), ctypes.byref(handle)))
        return Executable(handle)

    def __del__(self):
        if getattr(self, "_handle", None):
            _lib.lib.rxt_executable_release(self._handle)
        self._handle = None


class BuildOptions(ctypes.Structure):
    """rxt_build_options_t (rxt.h)."""
    _fields_ = [("struct_size", ctypes.c_size_t), ("backend", ctypes.c_char_p), ("opt_level", ctypes.c_int32),
                ("libraries", ctypes.c_char_p), ("emit_library", ctypes.c_char_p), ("context", ctypes.c_void_p)]


_lib._declare("rxt_build_options_init", None, ctypes.POINTER(BuildOptions))
_lib._declare("rxt_executable_build_with_options", _lib.status_t, _lib.module_p, ctypes.POINTER(BuildOptions),
              ctypes.POINTER(_lib.executable_p))


def compile(module, target="llvm", opt_level=None, libraries=None, emit_library=None):  # noqa: A001
    """|module| built for |target| ("llvm": rxt's cpu backend; "reference": the interpreter), the
    seed's tvm.compile. |opt_level| (0: legalize only; default 2: fusion, memory planning),
    |libraries| (kernel libraries for GEMMs and convolutions, "dnnl" or "none"; default: the
    backend's) and |emit_library| (a path: the kernels are also compiled ahead of time into this
    shared library, which the executable names) are `rxt build`'s options."""
    _lib.load_search_path()
    options = BuildOptions()
    _lib.lib.rxt_build_options_init(ctypes.byref(options))
    options.backend = _TARGETS.get(str(target), str(target)).encode()
    if opt_level is not None:
        options.opt_level = int(opt_level)
    if libraries is not None:
        options.libraries = (",".join(libraries) if isinstance(libraries, (list, tuple)) else str(libraries)).encode()
    if emit_library is not None:
        options.emit_library = str(emit_library).encode()
    handle = _lib.executable_p()
    _lib.check(_lib.lib.rxt_executable_build_with_options(module.handle, ctypes.byref(options), ctypes.byref(handle)))
    return Executable(handle)


build = compile


class VirtualMachine:
    """Runs an executable's functions: vm["main"](x, w) returns an rxt.Tensor or a tuple."""

    def __init__(self, executable, device=None, profile=False, backend=None):
        self._executable = executable
        handle = _lib.vm_p()
        _lib.check(_lib.lib.rxt_vm_create(executable.handle, backend.encode() if backend else None,
                                          ctypes.byref(handle)))
        self._handle = handle
        self._slots = ArgumentSlots()
        if profile:
            _lib.check(_lib.lib.rxt_vm_set_profiling(self._handle, 1))

    def invoke(self, function, *args):
        inputs, keep = self._slots.fill(args)  # (keep: alive until the call returns)
        needed = ctypes.c_size_t()
        capacity = 8
        while True:
            outputs = (ctypes.POINTER(_dlpack.ManagedTensor) * capacity)()
            status = _lib.lib.rxt_vm_invoke(self._handle, function.encode(), inputs, len(args), outputs, capacity,
                                            ctypes.byref(needed))
            if status and _lib.lib.rxt_status_code(status) == 11 and needed.value > capacity:  # RXT_OUT_OF_RANGE
                _lib.lib.rxt_status_free(status)
                capacity = needed.value
                continue
            _lib.check(status)
            break
        results = [Tensor(outputs[i]) for i in range(needed.value)]
        return results[0] if len(results) == 1 else tuple(results)

    def __getitem__(self, function):
        return lambda *args: self.invoke(function, *args)

    def profile(self):
        """The profile collected since profiling started, as a text table."""
        text = ctypes.c_void_p()
        _lib.check(_lib.lib.rxt_vm_profile(self._handle, ctypes.byref(text)))
        return _lib.take_string(text)

    def __del__(self):
        if getattr(self, "_handle", None):
            _lib.lib.rxt_vm_release(self._handle)
        self._handle = None
