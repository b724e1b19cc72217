"""Optimizers by name, with their options: the optimizer plugins' (rxt plugins lists them). The
learning rate and its schedule are run-time state of a built trainer (Trainer.learning_rate,
Trainer.set_schedule): changing them recompiles nothing."""
from ._named import Named


class Optimizer(Named):
    """An optimizer by its plugin name (e.g. "sgd") and options."""


class SGD(Optimizer):
    def __init__(self, lr, weight_decay=0.0, max_grad_norm=None):
        super().__init__("sgd", lr=float(lr), weight_decay=float(weight_decay), max_grad_norm=max_grad_norm)


class MomentumSGD(Optimizer):
    def __init__(self, lr, momentum, dampening=0.0, weight_decay=0.0, nesterov=False, max_grad_norm=None):
        super().__init__("momentum", lr=float(lr), momentum=float(momentum), dampening=float(dampening),
                         weight_decay=float(weight_decay), nesterov=bool(nesterov), max_grad_norm=max_grad_norm)


class Adam(Optimizer):
    def __init__(self, lr=0.001, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, max_grad_norm=None):
        super().__init__("adam", lr=float(lr), betas=[float(b) for b in betas], eps=float(eps),
                         weight_decay=float(weight_decay), amsgrad=bool(amsgrad), max_grad_norm=max_grad_norm)


class AdamW(Optimizer):
    def __init__(self, lr=0.001, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01, amsgrad=False, max_grad_norm=None):
        super().__init__("adamw", lr=float(lr), betas=[float(b) for b in betas], eps=float(eps),
                         weight_decay=float(weight_decay), amsgrad=bool(amsgrad), max_grad_norm=max_grad_norm)


class RMSprop(Optimizer):
    def __init__(self, lr=0.01, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False,
                 max_grad_norm=None):
        super().__init__("rmsprop", lr=float(lr), alpha=float(alpha), eps=float(eps), weight_decay=float(weight_decay),
                         momentum=float(momentum), centered=bool(centered), max_grad_norm=max_grad_norm)


class Adagrad(Optimizer):
    def __init__(self, lr=0.01, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0, eps=1e-10,
                 max_grad_norm=None):
        super().__init__("adagrad", lr=float(lr), lr_decay=float(lr_decay), weight_decay=float(weight_decay),
                         initial_accumulator_value=float(initial_accumulator_value), eps=float(eps),
                         max_grad_norm=max_grad_norm)
