"""Training an FX-imported model with rxt's Trainer, step for step against the same loop in
torch: LeNet-5, the same initial values (the backbone's, which are the module's), the same
batches, SGD with momentum; the losses agree within 1e-4 relative for 50 steps, and so do the
parameters at the end. A BatchNorm model's states train too (running statistics, counters)."""
import copy

import numpy as np
import torch

from rxt import frontend
from rxt.training import SetupTrainer, Trainer
from rxt.training.loss import CrossEntropyLoss
from rxt.training.optimizer import MomentumSGD

from models import make, relative_error


def batches(shape, count, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        yield rng.standard_normal(shape).astype(np.float32), rng.integers(0, 10, shape[0]).astype(np.int64)


def train_both(name, shape, steps):
    model = make(name).train()
    reference = copy.deepcopy(model)
    backbone = frontend.from_torch(model, torch.zeros(shape))
    setup = SetupTrainer(CrossEntropyLoss(), MomentumSGD(0.01, 0.9))
    trainer = Trainer(backbone, backbone.param_num, setup).build()
    trainer.load_params(backbone.params)
    if backbone.states:
        trainer.load_states(backbone.states)
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.01, momentum=0.9)
    ours, theirs = [], []
    for x, y in batches(shape, steps):
        ours.append(float(trainer.update_params(x, y)))
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(reference(torch.from_numpy(x)), torch.from_numpy(y))
        loss.backward()
        optimizer.step()
        theirs.append(loss.item())
    return trainer, reference, ours, theirs


def test_lenet_trains_as_torch_does_for_50_steps():
    trainer, reference, ours, theirs = train_both("lenet", (16, 1, 28, 28), 50)
    for step, (a, b) in enumerate(zip(ours, theirs)):
        assert abs(a - b) <= 1e-4 * abs(b), f"step {step}: rxt {a} torch {b}"
    assert ours[-1] < ours[0]  # it learned something (the batches repeat no pattern, but it fits them)
    params = {n: np.from_dlpack(v) for n, v in trainer.export_params().items()}
    for n, p in reference.named_parameters():
        assert relative_error(params[n], p.detach().numpy()) <= 1e-4, n


def test_batch_norm_states_train_as_torch_does():
    trainer, reference, ours, theirs = train_both("basic_block", (8, 8, 16, 16), 5)
    for a, b in zip(ours, theirs):
        assert abs(a - b) <= 1e-4 * abs(b)
    states = {n: np.from_dlpack(v) for n, v in trainer.export_states().items()}
    for n, buffer in reference.named_buffers():
        assert relative_error(states[n], buffer.numpy()) <= 1e-4, n
    assert int(states["block.bn1.num_batches_tracked"]) == 5
