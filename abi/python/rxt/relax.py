"""The names the seed reaches through tvm.relax: struct info for SetupTrainer's loss_args and the
VirtualMachine."""
from .executable import VirtualMachine


class TensorStructInfo:
    """A tensor's shape (ints or names of symbolic dims) and dtype."""

    def __init__(self, shape, dtype="float32"):
        self.shape = tuple(shape)
        self.dtype = str(dtype)

    def __repr__(self):
        return f"TensorStructInfo({self.shape}, {self.dtype!r})"


__all__ = ["TensorStructInfo", "VirtualMachine"]
