"""The arguments of one call as DLPack tensors rxt borrows, without building an rxt.Tensor per
array: rxt's calls (a training step, a VM function) read their inputs during the call and keep
nothing, so a NumPy array is described in place in a reusable slot (its address, shape, strides
and dtype), with no capsule, no object to delete afterwards and nothing allocated per call. This
is what keeps a step's cost from Python close to the C call's. Other arguments (torch tensors,
rxt.Tensor, lists) go through DLPack as usual (tensor.as_tensor).

One ArgumentSlots belongs to one caller (a Trainer, a VirtualMachine) and serves one call at a
time: like the trainer it belongs to, it is not for two threads at once."""
import ctypes
import sys

from . import _dlpack
from .tensor import Tensor, as_tensor

_MAX_NDIM = 16
_CODES = {"f": 2, "i": 0, "u": 1, "b": 6}  # DLPack type codes by NumPy kind (b: kDLBool, as librxt reads it)


_POINTERS = ctypes.POINTER(ctypes.POINTER(_dlpack.ManagedTensor))


class _Slot(ctypes.Structure):
    _fields_ = [("managed", _dlpack.ManagedTensor), ("shape", ctypes.c_int64 * _MAX_NDIM),
                ("strides", ctypes.c_int64 * _MAX_NDIM)]


class ArgumentSlots:
    def __init__(self):
        self._slots = None      # ctypes array of _Slot
        self._pointers = None   # ctypes array of POINTER(ManagedTensor), what the C call takes
        self._slot_pointers = []  # POINTER(ManagedTensor) to each slot
        self._tails = []        # _POINTERS to each element of _pointers (and one past the end)
        self._capacity = 0
        self._keep = []         # arguments converted through DLPack, alive until the next call
        self._dtypes = {}       # NumPy dtype -> (code, bits), or None when rxt has no such dtype

    def _grow(self, count):
        self._slots = (_Slot * count)()
        # Views of each slot's parts, made once (a ctypes attribute access builds a new object).
        self._views = []
        for slot in self._slots:
            dl = slot.managed.dl_tensor
            dl.device.device_type = _dlpack.KDL_CPU
            dl.dtype.lanes = 1
            dl.shape = slot.shape
            self._views.append((dl, dl.dtype, slot.shape, slot.strides, ctypes.pointer(slot.managed)))
        self._pointers = (ctypes.POINTER(_dlpack.ManagedTensor) * count)()
        base, step = ctypes.addressof(self._pointers), ctypes.sizeof(ctypes.c_void_p)
        self._tails = [ctypes.cast(base + i * step, _POINTERS) for i in range(count + 1)]
        self._capacity = count

    def _dtype(self, dtype):
        found = self._dtypes.get(dtype, False)
        if found is False:
            code = _CODES.get(dtype.kind)
            found = None if code is None or not dtype.isnative else (code, dtype.itemsize * 8)
            self._dtypes[dtype] = found
        return found

    def _describe(self, i, array):
        """Fills slot |i| with |array|'s memory; False if it cannot be described in place."""
        dtype = self._dtype(array.dtype)
        ndim = array.ndim
        if dtype is None or ndim > _MAX_NDIM:
            return False
        dl, dl_dtype, shape, strides, pointer = self._views[i]
        contiguous = array.flags.c_contiguous
        if contiguous and array.flags.writeable and array.size:
            dl.data = ctypes.addressof(ctypes.c_char.from_buffer(array))  # (cheaper than array.ctypes)
        else:
            dl.data = array.ctypes.data
        dl_dtype.code, dl_dtype.bits = dtype
        dl.ndim = ndim
        shape[0:ndim] = array.shape
        if contiguous:
            dl.strides = None
        else:
            itemsize = array.itemsize
            if any(step % itemsize for step in array.strides):
                return False
            strides[0:ndim] = [step // itemsize for step in array.strides]
            dl.strides = strides
        self._pointers[i] = pointer
        return True

    def fill(self, args):
        """The C array of |args| as borrowed managed tensors (valid until the next fill)."""
        if len(args) > self._capacity:
            self._grow(max(len(args), 4))
        self._keep.clear()
        numpy = sys.modules.get("numpy")
        ndarray = numpy.ndarray if numpy is not None else None
        for i, a in enumerate(args):
            if type(a) is ndarray and self._describe(i, a):
                continue
            tensor = a if isinstance(a, Tensor) else as_tensor(a)
            self._keep.append(tensor)
            self._pointers[i] = tensor.managed
        return self._pointers

    def at(self, index):
        """The C array from argument |index| on (the targets after the inputs)."""
        return self._tails[index]
