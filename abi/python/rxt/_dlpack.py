"""DLPack (dlpack.h) in ctypes, and its Python protocol: capsules named "dltensor" that a consumer
renames "used_dltensor" when it takes the tensor over (then the consumer calls the deleter once);
a capsule that nobody took calls the deleter when it is collected."""
import ctypes


class Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", Device), ("ndim", ctypes.c_int32), ("dtype", DataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class ManagedTensor(ctypes.Structure):
    pass


Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(ManagedTensor))
ManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", Deleter)]

KDL_CPU = 1
CODES = {0: "int", 1: "uint", 2: "float", 4: "bfloat", 6: "bool"}

_NAME = b"dltensor"
_USED = b"used_dltensor"

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

# Called for a "dltensor" capsule that is collected: the managed tensor's deleter, unless a
# consumer took it (renamed the capsule). The capsule arrives as a PyObject* being destroyed: it
# is passed on as a plain address (a Python reference to it would resurrect it).
_CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_raw_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_IsValid", _api))
_raw_get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_GetPointer", _api))


@_CapsuleDestructor
def _capsule_destructor(capsule):
    if _raw_is_valid(capsule, _NAME):
        managed = ctypes.cast(_raw_get_pointer(capsule, _NAME), ctypes.POINTER(ManagedTensor))
        if managed.contents.deleter:
            managed.contents.deleter(managed)


_DESTRUCTOR_ADDRESS = ctypes.cast(_capsule_destructor, ctypes.c_void_p).value


def to_capsule(managed):
    """A "dltensor" capsule of |managed| (a POINTER(ManagedTensor)); its consumer owns it."""
    return _api.PyCapsule_New(ctypes.cast(managed, ctypes.c_void_p), _NAME, _DESTRUCTOR_ADDRESS)


def take_capsule(capsule):
    """The POINTER(ManagedTensor) of a producer's "dltensor" capsule, which is renamed
    "used_dltensor": the caller now owns it and calls its deleter once. A capsule taken before
    raises ValueError (DLPack's rule: consumed once)."""
    if not _api.PyCapsule_IsValid(capsule, _NAME):
        raise ValueError("rxt: not an unused DLPack capsule (a capsule is consumed once)")
    pointer = _api.PyCapsule_GetPointer(capsule, _NAME)
    _api.PyCapsule_SetName(capsule, _USED)
    return ctypes.cast(pointer, ctypes.POINTER(ManagedTensor))

