"""Importers of PyTorch models: torch.fx graphs (from_fx, from_torch) become rxt backbones,
ready for SetupTrainer and the Trainer (docs/python.md, "PyTorch models")."""
from .backbone import Backbone
from .fx import UnsupportedError, from_fx, from_torch

__all__ = ["Backbone", "UnsupportedError", "from_fx", "from_torch"]
