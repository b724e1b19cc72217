"""Importers: torch.fx graphs (from_fx, from_torch) and model files (.onnx, TorchScript .pt:
import_file) become rxt backbones with their values, ready for SetupTrainer and the Trainer
(docs/python.md, "PyTorch models"). The torch.fx importer loads torch on first use."""
from .backbone import Backbone
from .files import from_onnx, from_torchscript, import_file

_FX = ("UnsupportedError", "from_fx", "from_torch")


def __getattr__(name):
    if name in _FX:
        from . import fx
        return getattr(fx, name)
    raise AttributeError(f"module 'rxt.frontend' has no attribute {name!r}")


__all__ = ["Backbone", "UnsupportedError", "from_fx", "from_onnx", "from_torch", "from_torchscript", "import_file"]
