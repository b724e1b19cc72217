"""The arguments of one call as DLPack tensors rxt borrows. rxt's calls (a training step, a VM
function) read their inputs during the call and keep nothing, so nothing needs to own them
across it: an array's own DLPack capsule (NumPy's or torch's __dlpack__, made in C) is read for
its managed tensor, which rxt borrows, and the capsule goes with the call (its producer frees it,
as for any capsule nobody consumed). An rxt.Tensor lends its own. What a producer will not
export — a read-only or bool NumPy array (NumPy 1.24 refuses both) — is described in place in a
reusable slot (address, shape, strides, dtype); anything else becomes a tensor through
tensor.as_tensor (a copy when it must).

This keeps the binding's work per call to a few C-level operations: measured against the bare
C call, Python's own cost is what remains (bench/python_overhead.py). An ArgumentSlots belongs to
one caller (a Trainer, a VirtualMachine) and serves one call at a time; like the trainer it
belongs to, it is not for two threads at once."""
import ctypes

from . import _dlpack
from .tensor import Tensor, as_tensor

_MAX_NDIM = 16
_CODES = {"f": 2, "i": 0, "u": 1, "b": 6}  # DLPack type codes by NumPy kind (b: kDLBool, as librxt reads it)
_NAME = b"dltensor"
_capsule_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))
_EXPORT_REFUSED = (BufferError, TypeError, ValueError, RuntimeError)


class _Slot(ctypes.Structure):
    _fields_ = [("managed", _dlpack.ManagedTensor), ("shape", ctypes.c_int64 * _MAX_NDIM),
                ("strides", ctypes.c_int64 * _MAX_NDIM)]


class ArgumentSlots:
    def __init__(self):
        self._pointers = None  # c_void_p array: the managed tensors' addresses, what the C call takes
        self._base = 0         # its address
        self._slots = None     # in-place descriptions, made on first need
        self._views = None
        self._capacity = 0
        self._dtypes = {}      # NumPy dtype -> (code, bits), or None when rxt has no such dtype

    def _grow(self, count):
        self._pointers = (ctypes.c_void_p * count)()
        self._base = ctypes.addressof(self._pointers)
        self._slots, self._views = None, None
        self._capacity = count

    def fill(self, args):
        """(address of the C array of |args| as borrowed managed tensors, what must live until the
        call returns). The caller keeps the second while it calls."""
        if len(args) > self._capacity:
            self._grow(max(len(args), 4))
        pointers, keep = self._pointers, []
        for i, a in enumerate(args):
            if isinstance(a, Tensor):
                pointers[i] = a.address
                continue
            export = getattr(a, "__dlpack__", None)
            if export is not None:
                try:
                    capsule = export()
                except _EXPORT_REFUSED:
                    capsule = None
                if capsule is not None:
                    pointers[i] = _capsule_pointer(capsule, _NAME)
                    keep.append(capsule)
                    continue
            if self._describe(i, a):
                keep.append(a)
                continue
            tensor = as_tensor(a)
            keep.append(tensor)
            pointers[i] = tensor.address
        return self._base, keep

    def at(self, index):
        """The address of the C array from argument |index| on (the targets after the inputs)."""
        return self._base + index * ctypes.sizeof(ctypes.c_void_p)

    # ---- in-place descriptions (arrays a producer will not export)

    def _dtype(self, dtype):
        found = self._dtypes.get(dtype, False)
        if found is False:
            code = _CODES.get(dtype.kind)
            found = None if code is None or not dtype.isnative else (code, dtype.itemsize * 8)
            self._dtypes[dtype] = found
        return found

    def _describe(self, i, array):
        """Fills slot |i| with a NumPy |array|'s memory; False if it cannot be described in place."""
        if not hasattr(array, "__array_interface__") or not hasattr(array, "dtype"):
            return False
        dtype = self._dtype(array.dtype)
        ndim = array.ndim
        if dtype is None or ndim > _MAX_NDIM:
            return False
        if self._slots is None:
            self._slots = (_Slot * self._capacity)()
            self._views = []
            for slot in self._slots:
                dl = slot.managed.dl_tensor
                dl.device.device_type = _dlpack.KDL_CPU
                dl.dtype.lanes = 1
                dl.shape = slot.shape
                self._views.append((dl, dl.dtype, slot.shape, slot.strides, ctypes.addressof(slot.managed)))
        dl, dl_dtype, shape, strides, address = self._views[i]
        dl.data = array.__array_interface__["data"][0]
        dl_dtype.code, dl_dtype.bits = dtype
        dl.ndim = ndim
        shape[0:ndim] = array.shape
        if array.flags.c_contiguous:
            dl.strides = None
        else:
            itemsize = array.itemsize
            if any(step % itemsize for step in array.strides):
                return False
            strides[0:ndim] = [step // itemsize for step in array.strides]
            dl.strides = strides
        self._pointers[i] = address
        return True
