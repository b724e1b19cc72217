"""rxt.Tensor: a tensor crossing between rxt and other libraries by DLPack, without copies.
Tensor.from_dlpack(x) takes a NumPy array, a torch tensor or any DLPack producer's memory as
it is; np.from_dlpack(t) and torch.from_dlpack(t) read an rxt.Tensor's memory as it is. Each
export is its own managed tensor that keeps this Tensor (and so the memory) alive until its
consumer lets go."""
import ctypes

from . import _dlpack

_DTYPE_NAMES = {(0, 8): "int8", (0, 16): "int16", (0, 32): "int32", (0, 64): "int64", (1, 8): "uint8",
                (1, 16): "uint16", (1, 32): "uint32", (1, 64): "uint64", (2, 16): "float16", (2, 32): "float32",
                (2, 64): "float64", (4, 16): "bfloat16", (6, 8): "bool"}

# Exports alive in consumers: the address of each export's ManagedTensor -> (it, its source).
_exports = {}


@_dlpack.Deleter
def _release_export(managed):
    _exports.pop(ctypes.addressof(managed.contents), None)


class Tensor:
    """A CPU tensor whose memory belongs to a DLPack managed tensor (rxt's or another library's)."""

    def __init__(self, managed):
        """Takes ownership of |managed| (a POINTER(_dlpack.ManagedTensor)): its deleter runs when
        this Tensor and every export of it are gone."""
        self._managed = managed
        self.address = ctypes.addressof(managed.contents)  # what rxt's C calls borrow

    @staticmethod
    def from_dlpack(x):
        """The memory of |x| (an object with __dlpack__, or a "dltensor" capsule), not copied."""
        capsule = x.__dlpack__() if hasattr(x, "__dlpack__") else x
        managed = _dlpack.take_capsule(capsule)
        device = managed.contents.dl_tensor.device.device_type
        if device != _dlpack.KDL_CPU:
            if managed.contents.deleter:
                managed.contents.deleter(managed)
            raise ValueError(f"rxt: tensors cross on the CPU only; this one is on DLPack device {device}")
        return Tensor(managed)

    @property
    def _dl(self):
        return self._managed.contents.dl_tensor

    @property
    def shape(self):
        t = self._dl
        return tuple(t.shape[i] for i in range(t.ndim))

    @property
    def dtype(self):
        d = self._dl.dtype
        return _DTYPE_NAMES.get((d.code, d.bits), f"{_dlpack.CODES.get(d.code, d.code)}{d.bits}")

    @property
    def data_ptr(self):
        """The address of the first element."""
        t = self._dl
        return (t.data or 0) + t.byte_offset

    @property
    def managed(self):
        """The DLPack managed tensor (POINTER(ManagedTensor)) that rxt's C functions borrow."""
        return self._managed

    def __dlpack_device__(self):
        return (_dlpack.KDL_CPU, 0)

    def __dlpack__(self, stream=None):
        if stream is not None:
            raise ValueError("rxt: CPU tensors take no stream")
        export = _dlpack.ManagedTensor()
        export.dl_tensor = self._dl  # the same memory, shape and strides (alive while this Tensor is)
        export.manager_ctx = None
        export.deleter = _release_export
        _exports[ctypes.addressof(export)] = (export, self)
        return _dlpack.to_capsule(ctypes.pointer(export))

    def numpy(self):
        """A NumPy array on the same memory."""
        import numpy as np
        return np.from_dlpack(self)

    def __repr__(self):
        return f"rxt.Tensor(shape={self.shape}, dtype={self.dtype})"

    def __del__(self):
        managed = getattr(self, "_managed", None)
        if managed and managed.contents.deleter:
            managed.contents.deleter(managed)
        self._managed = None


def as_tensor(x):
    """|x| as an rxt.Tensor without a copy where DLPack allows (NumPy, torch, rxt.Tensor); other
    arrays, lists and scalars become contiguous NumPy arrays first. (NumPy refuses to export a
    read-only array, such as np.from_dlpack's views of rxt's outputs: those are copied.)"""
    if isinstance(x, Tensor):
        return x
    if hasattr(x, "__dlpack__"):
        try:
            return Tensor.from_dlpack(x)
        except (BufferError, TypeError, ValueError):
            pass
    import numpy as np
    array = np.asarray(x)
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    array = np.require(array, requirements=("C", "W"))
    if array.dtype == np.bool_:  # NumPy < 1.25 exports no bool by DLPack: its bytes, relabeled
        tensor = Tensor.from_dlpack(array.view(np.uint8))
        tensor._managed.contents.dl_tensor.dtype.code = 6  # kDLBool
        return tensor
    return Tensor.from_dlpack(array)


def managed_array(tensors):
    """A C array of the managed tensors of |tensors| (rxt.Tensor), which rxt's calls borrow; pass
    ctypes.addressof of it."""
    return (ctypes.c_void_p * max(len(tensors), 1))(*[t.address for t in tensors])
