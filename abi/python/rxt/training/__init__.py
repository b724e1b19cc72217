"""The seed's training API (relax.training): losses, optimizers, SetupTrainer and Trainer."""
from . import loss, optimizer
from .setup_trainer import SetupTrainer
from .value_and_grad import value_and_grad
from .trainer import Trainer

__all__ = ["loss", "optimizer", "SetupTrainer", "Trainer", "value_and_grad"]
