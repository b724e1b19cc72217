"""Real models through torch.fx (rxt.frontend.from_torch), against PyTorch in training mode:
the forward pass (logits within 1e-5 relative, BatchNorm's updated running statistics and
counters equal to what the same step leaves in the torch module), and every parameter's
gradient (rxt.training.value_and_grad) within 1e-4 relative of torch autograd in float64.
mobilenet_v2 runs in float64 (its float32 gradient is ill-conditioned: ReLU6's kinks, see
tests/importers/onnx/models_test.py) and must agree within 1e-9. Dropout is the identity on
both sides (dropout=False; torch's masks are its own)."""
import copy

import numpy as np
import pytest
import torch

from rxt import frontend
from rxt.training import value_and_grad

from models import SHAPES, forward, make, relative_error

FLOAT64 = {"mobilenet_v2"}


def without_dropout(model):
    for m in model.modules():
        if isinstance(m, torch.nn.Dropout):
            m.eval()
    return model


@pytest.mark.parametrize("name", list(SHAPES))
def test_forward_states_and_gradients_match_torch(name):
    dtype = torch.float64 if name in FLOAT64 else torch.float32
    model = make(name).to(dtype).train()
    rng = np.random.default_rng(0)
    x = rng.standard_normal(SHAPES[name]).astype(np.float64 if name in FLOAT64 else np.float32)
    targets = rng.integers(0, 10, SHAPES[name][0]).astype(np.int64)
    backbone = frontend.from_torch(model, torch.from_numpy(x), dropout=False)

    # The values are the module's, named as it names them.
    assert list(backbone.params) == [n for n, _ in model.named_parameters()]
    batch_norm_buffers = [n for n, _ in model.named_buffers()
                          if n.rsplit(".", 1)[-1] in ("running_mean", "running_var", "num_batches_tracked")]
    assert list(backbone.states) == batch_norm_buffers

    # Forward: the logits, then each state's next value.
    reference = without_dropout(copy.deepcopy(model))
    with torch.no_grad():
        want = reference(torch.from_numpy(x)).double().numpy()
    outputs = forward(backbone, x)
    assert len(outputs) == 1 + backbone.state_num
    assert relative_error(outputs[0], want) <= 1e-5
    buffers = dict(reference.named_buffers())
    for (state, _), got in zip(backbone.states.items(), outputs[1:]):
        assert relative_error(got, buffers[state].double().numpy()) <= 1e-5, state

    # Gradients against float64 autograd.
    loss, grads = value_and_grad(backbone, x, targets)
    exact = without_dropout(copy.deepcopy(model).double().train())
    ref_loss = torch.nn.functional.cross_entropy(exact(torch.from_numpy(x).double()), torch.from_numpy(targets))
    ref_loss.backward()
    assert loss == pytest.approx(ref_loss.item(), rel=1e-5)
    expected = {n: p.grad.numpy() for n, p in exact.named_parameters()}
    # A gradient that is 0 in exact arithmetic (the bias of a BatchNorm the next one normalizes)
    # has no relative error: the scale is at least 1e-3 of the largest gradient.
    floor = 1e-3 * max(np.max(np.abs(g)) for g in expected.values())
    limit = 1e-9 if name in FLOAT64 else 1e-4
    worst = max((float(np.max(np.abs(grads[n] - g)) / max(np.max(np.abs(g)), floor)), n) for n, g in expected.items())
    assert worst[0] <= limit, f"worst gradient {worst[1]}: {worst[0]:.2e}"
