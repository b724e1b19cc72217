"""Models in other formats, read by rxt's importer plugins (rxt_module_import, as `rxt import`
does): .onnx (importers/onnx), TorchScript .pt (importers/torchscript). The result is the same
Backbone from_torch gives, its values those the importer read."""
import collections
import os
import tempfile

from .. import _lib, _safetensors
from ..module import Module
from .backbone import Backbone


def import_file(path, options=None):
    """The backbone of the model file at |path|, with the importer's |options| ("training=false,
    freeze=fc.*": each importer's, docs/onnx.md and docs/torchscript.md)."""
    import ctypes
    _lib.load_search_path()
    fd, values_path = tempfile.mkstemp(suffix=".safetensors")
    os.close(fd)
    try:
        handle = _lib.module_p()
        _lib.check(_lib.lib.rxt_module_import(None, str(path).encode(), options.encode() if options else None,
                                              values_path.encode(), ctypes.byref(handle)))
        module = Module(handle)
        values = _safetensors.read(values_path) if os.path.getsize(values_path) else {}
    finally:
        os.unlink(values_path)
    names = [name for name, _ in module.function_params("backbone")]
    param_num, state_num = module.attr("param_num") or 0, module.attr("state_num") or 0
    first = len(names) - param_num - state_num
    params = collections.OrderedDict((n, values[n]) for n in names[first:first + param_num])
    states = collections.OrderedDict((n, values[n]) for n in names[first + param_num:])
    return Backbone(module, params, states, names[:first], module.function_num_results("backbone") - state_num)


def from_onnx(path, options=None):
    """An .onnx model's backbone (import_file)."""
    return import_file(path, options)


def from_torchscript(path, options=None):
    """A TorchScript .pt file's backbone (import_file; the torchscript importer plugin)."""
    return import_file(path, options)
