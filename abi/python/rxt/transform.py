"""Passes as callables on modules, as the seed's relax.transform: LegalizeOps()(module). Each
runs rxt's pass of that name (rxt passes lists them, with their options) on a copy."""
import ctypes

from . import _lib
from .module import Module
from .training._named import quoted


def _value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return str(v)


class Pass:
    def __init__(self, name, **options):
        self.name = name
        self.options = {k: v for k, v in options.items() if v is not None}

    def spec(self):
        if not self.options:
            return self.name
        return self.name + "(" + ", ".join(f"{k}={_value(v)}" for k, v in self.options.items()) + ")"

    def __call__(self, module):
        _lib.load_search_path()  # gradient rules, losses, optimizers, kernel libraries
        names, keep = _lib.strings([self.spec()])
        out = _lib.module_p()
        _lib.check(_lib.lib.rxt_module_run_passes(module.handle, names, 1, None, ctypes.byref(out)))
        return Module(out)


def LegalizeOps():  # noqa: N802 (the seed's names)
    return Pass("LegalizeOps")


def Gradient(func_name="main", require_grads=None, target_index=0):  # noqa: N802
    return Pass("Gradient", func_name=func_name, require_grads=require_grads, target_index=target_index)


def AppendLoss(func_name, loss, num_backbone_outputs=1, new_func_name=None):  # noqa: N802
    """Appends |loss| (training.loss) to function |func_name|."""
    options = {"func_name": func_name, "loss": loss.name, "num_backbone_outputs": num_backbone_outputs,
               "new_func_name": new_func_name}
    if loss.options_text():
        options["loss_options"] = quoted(loss.options_text())
    return Pass("AppendLoss", **options)


class _BindArrays(Pass):
    """BindParams with the values in memory: written to a temporary .safetensors file for the
    pass, removed after."""

    def __init__(self, func_name, params):
        super().__init__("BindParams", func_name=func_name)
        self.params = params

    def __call__(self, module):
        import os
        import tempfile
        from ._safetensors import write
        fd, path = tempfile.mkstemp(suffix=".safetensors")
        os.close(fd)
        try:
            write(path, self.params)
            return Pass("BindParams", func_name=self.options["func_name"], params=quoted(path))(module)
        finally:
            os.unlink(path)


def BindParams(func_name, params):  # noqa: N802
    """Binds the parameters of |func_name| to constants: |params| is {name: array} (the seed's
    form: NumPy arrays, torch tensors, rxt.Tensor) or the path of a .safetensors file."""
    if isinstance(params, dict):
        return _BindArrays(func_name, params)
    return Pass("BindParams", func_name=func_name, params=quoted(str(params)))


def DeadCodeElimination():  # noqa: N802
    return Pass("DeadCodeElimination")
