"""Losses by name, with their options: the loss plugins' (rxt plugins lists them). The seed's
classes under its names; each maps to a loss of a loaded plugin and its options."""

from ._named import Named


class Loss(Named):
    """A loss by its plugin name (e.g. "cross_entropy") and options."""


class CrossEntropyLoss(Loss):
    """log_softmax + negative log-likelihood of class-index targets (torch.nn.CrossEntropyLoss)."""

    def __init__(self, reduction="mean", ignore_index=None, weight=None):
        super().__init__("cross_entropy", reduction=reduction, ignore_index=ignore_index, weight=weight)


class CategoricalCrossEntropyLoss(Loss):
    """Cross entropy of class-probability (one-hot) targets."""

    def __init__(self, reduction="mean", weight=None):
        super().__init__("categorical_cross_entropy", reduction=reduction, weight=weight)


class MSELoss(Loss):
    def __init__(self, reduction="mean"):
        super().__init__("mse", reduction=reduction)


class L1Loss(Loss):
    def __init__(self, reduction="mean"):
        super().__init__("l1", reduction=reduction)


class HuberLoss(Loss):
    def __init__(self, reduction="mean", delta=1.0):
        super().__init__("huber", reduction=reduction, delta=delta)


class NLLLoss(Loss):
    def __init__(self, reduction="mean", ignore_index=None, weight=None):
        super().__init__("nll", reduction=reduction, ignore_index=ignore_index, weight=weight)


class BCEWithLogitsLoss(Loss):
    def __init__(self, reduction="mean", weight=None, pos_weight=None):
        super().__init__("bce_with_logits", reduction=reduction, weight=weight, pos_weight=pos_weight)
