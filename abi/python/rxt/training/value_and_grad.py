"""value_and_grad: a backbone's loss and every parameter's gradient for one batch, the first
check of an import against PyTorch's autograd. AppendLoss + Gradient + LegalizeOps, built once
per backbone and loss and cached on the backbone; each call runs the adjoint on the VM."""
from .. import transform
from ..executable import VirtualMachine, compile as build
from .loss import Loss
from ._named import quoted

_CACHE_ATTRIBUTE = "_rxt_value_and_grad"


def _loss_of(loss):
    return loss if isinstance(loss, Loss) else Loss(str(loss))


def _compiled(backbone, loss):
    cache = backbone.__dict__.setdefault(_CACHE_ATTRIBUTE, {})
    key = (loss.name, loss.options_text())
    if key not in cache:
        names = list(backbone.params)
        module = transform.AppendLoss("backbone", loss, num_backbone_outputs=backbone.num_outputs)(backbone)
        module = transform.Gradient("backbone_loss", require_grads=[quoted(n) for n in names])(module)
        cache[key] = VirtualMachine(build(transform.LegalizeOps()(module)))
    return cache[key]


def value_and_grad(backbone, inputs, targets, loss="cross_entropy", params=None, states=None):
    """(loss, {parameter name: gradient}) of |backbone| (rxt.frontend.Backbone) on |inputs| (an
    array or a tuple of them, one per backbone input) and |targets|, with |loss| (a loss name such
    as "cross_entropy" or "mse", or an rxt.training.loss object). The parameters and states are the
    backbone's values unless |params| / |states| (name -> array) replace some. The gradients are
    NumPy arrays in the backbone's order; the loss a float."""
    import numpy as np  # (numpy is optional for the package, needed here)
    loss = _loss_of(loss)
    vm = _compiled(backbone, loss)
    if not isinstance(inputs, (tuple, list)):
        inputs = (inputs,)
    param_values = [np.asarray((params or {}).get(n, v)) for n, v in backbone.params.items()]
    state_values = [np.asarray((states or {}).get(n, v)) for n, v in backbone.states.items()]
    targets = targets if isinstance(targets, (tuple, list)) else (targets,)
    args = [np.require(np.asarray(a), requirements="C") for a in (*inputs, *param_values, *state_values, *targets)]
    outputs = vm["backbone_loss_adjoint"](*args)
    value = float(np.from_dlpack(outputs[0]))
    grads = outputs[len(outputs) - len(param_values):]
    return value, {n: np.from_dlpack(g).copy() for n, g in zip(backbone.params, grads)}
