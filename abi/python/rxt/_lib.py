"""librxt through ctypes: finding the library, declaring the C functions used, and turning a
failed call's status into rxt.Error. Nothing here links the C++ core: only the C ABI of rxt.h."""
import ctypes
import os
import pathlib

from . import _dlpack

_NAMES = ("librxt.so.2", "librxt.so")


def _candidates():
    env = os.environ.get("RXT_LIBRARY")
    if env:
        yield pathlib.Path(env)
        return
    here = pathlib.Path(__file__).resolve().parent
    for directory in (here, here.parent, here.parent / "lib"):
        for name in _NAMES:
            yield directory / name
    # An installation: <prefix>/lib/python3/dist-packages/rxt -> <prefix>/lib.
    for parent in here.parents:
        for name in _NAMES:
            yield parent / name
            yield parent / "lib" / name
    for name in _NAMES:
        yield pathlib.Path(name)  # the dynamic loader's own search path


def _load():
    tried = []
    for path in _candidates():
        if path.is_absolute() and not path.exists():
            tried.append(str(path))
            continue
        try:
            return ctypes.CDLL(str(path))
        except OSError as e:
            tried.append(f"{path} ({e})")
    raise ImportError("rxt: librxt not found; set RXT_LIBRARY to its path. Tried: " + "; ".join(tried[:6]))


lib = _load()

# Opaque handles and the status.
status_t = ctypes.c_void_p
module_p = ctypes.c_void_p


def _declare(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_declare("rxt_version", ctypes.c_char_p)
_declare("rxt_abi_version", ctypes.c_uint32)
_declare("rxt_status_code", ctypes.c_int, status_t)
_declare("rxt_status_message", ctypes.c_char_p, status_t)
_declare("rxt_status_free", None, status_t)
_declare("rxt_code_name", ctypes.c_char_p, ctypes.c_int)
_declare("rxt_string_free", None, ctypes.c_void_p)
_declare("rxt_module_parse", status_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.POINTER(module_p))
_declare("rxt_module_print", status_t, module_p, ctypes.POINTER(ctypes.c_void_p))
_declare("rxt_module_verify", status_t, module_p)
_declare("rxt_module_release", None, module_p)
_declare("rxt_module_retain", module_p, module_p)
ParamVisitor = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p)
_declare("rxt_module_function_params", status_t, module_p, ctypes.c_char_p, ParamVisitor, ctypes.c_void_p)
_declare("rxt_module_function_num_results", status_t, module_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_size_t))
_declare("rxt_module_import", status_t, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
         ctypes.POINTER(module_p))
_declare("rxt_module_attr_kind", status_t, module_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int))
_declare("rxt_module_attr_get_int", status_t, module_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int64))
_declare("rxt_module_attr_get_float", status_t, module_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_double))
_declare("rxt_module_attr_get_string", status_t, module_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p))
_declare("rxt_module_attr_set_int", status_t, module_p, ctypes.c_char_p, ctypes.c_int64)
_declare("rxt_module_attr_set_float", status_t, module_p, ctypes.c_char_p, ctypes.c_double)
_declare("rxt_module_attr_set_string", status_t, module_p, ctypes.c_char_p, ctypes.c_char_p)


class Error(Exception):
    """A failed rxt call: |code| is the rxt_code_t name ("invalid argument", "not found", ...) and
    the message is rxt's own (it names the file:line:col, op or argument)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def check(status):
    """Raises Error for a failed status (and frees it); returns None for success."""
    if not status:
        return
    try:
        code = lib.rxt_status_code(status)
        message = lib.rxt_status_message(status).decode("utf-8", "replace")
        name = lib.rxt_code_name(code).decode()
    finally:
        lib.rxt_status_free(status)
    raise Error(name, message)


def take_string(pointer):
    """The text of a char* rxt returned, freed with rxt_string_free."""
    try:
        return ctypes.string_at(pointer.value).decode("utf-8")
    finally:
        lib.rxt_string_free(pointer)


# ---- Passes and trainers (rxt.h) ----------------------------------------------------------


class PassOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("opt_level", ctypes.c_int32), ("verify_each", ctypes.c_int32),
                ("disabled", ctypes.POINTER(ctypes.c_char_p)), ("num_disabled", ctypes.c_size_t),
                ("config_keys", ctypes.POINTER(ctypes.c_char_p)), ("config_values", ctypes.POINTER(ctypes.c_char_p)),
                ("num_config", ctypes.c_size_t)]


class TrainerOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("backend", ctypes.c_char_p), ("loss", ctypes.c_char_p),
                ("loss_options", ctypes.c_char_p), ("optimizer", ctypes.c_char_p),
                ("optimizer_options", ctypes.c_char_p), ("opt_level", ctypes.c_int32), ("libraries", ctypes.c_char_p),
                ("context", ctypes.c_void_p), ("data_parallel", ctypes.c_int32), ("bucket_bytes", ctypes.c_int64),
                ("accumulation", ctypes.c_int32)]


trainer_p = ctypes.c_void_p
managed_pp = ctypes.POINTER(ctypes.POINTER(_dlpack.ManagedTensor))

_declare("rxt_pass_options_init", None, ctypes.POINTER(PassOptions))
_declare("rxt_module_run_passes", status_t, module_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t,
         ctypes.POINTER(PassOptions), ctypes.POINTER(module_p))
_declare("rxt_trainer_options_init", None, ctypes.POINTER(TrainerOptions))
_declare("rxt_trainer_create", status_t, module_p, ctypes.POINTER(TrainerOptions), ctypes.POINTER(trainer_p))
_declare("rxt_trainer_release", None, trainer_p)
_declare("rxt_trainer_count", status_t, trainer_p, ctypes.c_int, ctypes.POINTER(ctypes.c_size_t))
_declare("rxt_trainer_name", status_t, trainer_p, ctypes.c_int, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p))
_declare("rxt_trainer_num_outputs", status_t, trainer_p, ctypes.POINTER(ctypes.c_size_t))
_declare("rxt_trainer_get_by_name", status_t, trainer_p, ctypes.c_int, ctypes.c_char_p, managed_pp)
_declare("rxt_trainer_set_by_name", status_t, trainer_p, ctypes.c_int, ctypes.c_char_p,
         ctypes.POINTER(_dlpack.ManagedTensor))
_declare("rxt_trainer_init_xavier_uniform", status_t, trainer_p, ctypes.c_uint64)
_declare("rxt_trainer_init_zero", status_t, trainer_p, ctypes.c_int)
# Input arrays are passed as addresses (c_void_p): the binding fills them with the addresses of
# borrowed managed tensors (_borrow.py).
inputs_p = ctypes.c_void_p
_declare("rxt_trainer_predict", status_t, trainer_p, inputs_p, ctypes.c_size_t, managed_pp, ctypes.c_size_t,
         ctypes.POINTER(ctypes.c_size_t))
_declare("rxt_trainer_update", status_t, trainer_p, inputs_p, ctypes.c_size_t, inputs_p, ctypes.c_size_t,
         ctypes.POINTER(ctypes.c_double))
_declare("rxt_trainer_evaluate", status_t, trainer_p, inputs_p, ctypes.c_size_t, inputs_p, ctypes.c_size_t,
         ctypes.POINTER(ctypes.c_double))
_declare("rxt_trainer_learning_rate", status_t, trainer_p, ctypes.POINTER(ctypes.c_double))
_declare("rxt_trainer_set_learning_rate", status_t, trainer_p, ctypes.c_double)
_declare("rxt_trainer_set_schedule", status_t, trainer_p, ctypes.c_char_p, ctypes.c_double)
_declare("rxt_trainer_save_checkpoint", status_t, trainer_p, ctypes.c_char_p)
_declare("rxt_trainer_load_checkpoint", status_t, trainer_p, ctypes.c_char_p)
_declare("rxt_trainer_save", status_t, trainer_p, ctypes.c_char_p)
_declare("rxt_trainer_save_for_target", status_t, trainer_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
         ctypes.c_char_p)
_declare("rxt_trainer_load", status_t, ctypes.c_char_p, ctypes.c_void_p, ctypes.POINTER(trainer_p))
_declare("rxt_trainer_profile_step", status_t, trainer_p, inputs_p, ctypes.c_size_t, inputs_p, ctypes.c_size_t,
         ctypes.POINTER(ctypes.c_void_p))
_declare("rxt_trainer_accumulate", status_t, trainer_p, inputs_p, ctypes.c_size_t, inputs_p, ctypes.c_size_t,
         ctypes.POINTER(ctypes.c_double))
_declare("rxt_trainer_apply_accumulated", status_t, trainer_p, ctypes.POINTER(ctypes.c_double))
comm_p = ctypes.c_void_p
_declare("rxt_comm_create", status_t, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p,
         ctypes.POINTER(comm_p))
_declare("rxt_comm_release", None, comm_p)
_declare("rxt_comm_rank", status_t, comm_p, ctypes.POINTER(ctypes.c_int32))
_declare("rxt_comm_size", status_t, comm_p, ctypes.POINTER(ctypes.c_int32))
_declare("rxt_trainer_set_comm", status_t, trainer_p, comm_p)

INPUTS, TARGETS, PARAMS, STATES, OPTIMIZER_STATE = range(5)


def strings(values):
    """A C array of char* for |values| (the bytes objects must outlive it: returned too)."""
    encoded = [v.encode() for v in values]
    return (ctypes.c_char_p * max(len(encoded), 1))(*encoded), encoded

_declare("rxt_plugins_load_search_path", status_t)
_declare("rxt_plugin_load", status_t, ctypes.c_char_p)

_search_path_loaded = False


def load_search_path():
    """Loads the plugins of the search path (RXT_PLUGIN_PATH, then the installation's) once."""
    global _search_path_loaded
    if not _search_path_loaded:
        check(lib.rxt_plugins_load_search_path())
        _search_path_loaded = True

# ---- Executables and the VM (rxt.h) --------------------------------------------------------

executable_p = ctypes.c_void_p
vm_p = ctypes.c_void_p
_declare("rxt_executable_build", status_t, module_p, ctypes.c_char_p, ctypes.POINTER(executable_p))
_declare("rxt_executable_save", status_t, executable_p, ctypes.c_char_p)
_declare("rxt_executable_load", status_t, ctypes.c_char_p, ctypes.POINTER(executable_p))
_declare("rxt_executable_release", None, executable_p)
_declare("rxt_vm_create", status_t, executable_p, ctypes.c_char_p, ctypes.POINTER(vm_p))
_declare("rxt_vm_release", None, vm_p)
_declare("rxt_vm_invoke", status_t, vm_p, ctypes.c_char_p, inputs_p, ctypes.c_size_t, managed_pp, ctypes.c_size_t,
         ctypes.POINTER(ctypes.c_size_t))
_declare("rxt_vm_set_profiling", status_t, vm_p, ctypes.c_int)
_declare("rxt_vm_profile", status_t, vm_p, ctypes.POINTER(ctypes.c_void_p))
