"""rxt from Python, through librxt's C ABI (rxt.h) with ctypes: no compiled extension.

The package finds librxt next to itself, in an installation's lib directory, or at RXT_LIBRARY.
Tensors cross by DLPack without copies (rxt.Tensor.from_dlpack, np.from_dlpack(t),
torch.from_dlpack(t)); a failed call raises rxt.Error with rxt's message. docs/python.md."""
from ._lib import Error, lib as _lib_handle
from .arrays import aligned, empty, zeros
from .comm import Comm
from .module import Module
from .tensor import Tensor
from . import relax, training, transform
from .executable import Device, Executable, VirtualMachine, build, compile, cpu, device
from .plugins import load_plugin, load_search_path



def __getattr__(name):
    # rxt.frontend imports torch: loaded on first use only (import rxt needs neither torch nor NumPy).
    if name == "frontend":
        import importlib
        return importlib.import_module(".frontend", __name__)
    raise AttributeError(f"module 'rxt' has no attribute {name!r}")


__version__ = _lib_handle.rxt_version().decode()
abi_version = _lib_handle.rxt_abi_version()

__all__ = ["Comm", "Device", "Error", "Executable", "Module", "Tensor", "VirtualMachine", "aligned", "build", "compile", "cpu",
           "device", "empty", "frontend", "load_plugin", "load_search_path", "relax", "training", "transform", "zeros", "__version__",
           "abi_version"]
