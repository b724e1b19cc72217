#!/usr/bin/python3
"""Golden values for the training tests, computed with PyTorch (Debian's python3-torch 1.13).

Writes three JSON files under tests/data/golden/ (committed, so the tests need no torch):
  losses.json      every loss of plugins/loss_std vs. torch.nn.functional: loss value and the
                   gradient of the loss with respect to the prediction
  optimizers.json  every optimizer of plugins/optim_std vs. torch.optim: parameters after each
                   of several steps (weight decay, momentum variants, clipping, runtime learning
                   rates, mixed dtypes)
  seed_step.json   one step of the seed tutorial's MLP (784-128-128-10, batch 64, cross entropy
                   with reduction "sum", SGD lr=0.01 weight_decay=0.01): loss, gradients and
                   updated parameters, summarized (sums and sampled elements)

Run from anywhere:  /usr/bin/python3 tests/golden/make_training_golden.py
The tensors of the seed step come from DeterministicTensor (mirrored in C++ by
tests/test_util/deterministic_tensor.h), so the JSON holds only their summaries.
"""
import json
import math
import os

import numpy as np
import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT_DIR = os.path.join(ROOT, "tests", "data", "golden")

torch.set_num_threads(1)


def tensor_json(t):
    t = t.detach()
    dtype = str(t.dtype).replace("torch.", "")
    return {"dtype": dtype, "shape": list(t.shape), "data": [float(v) if t.is_floating_point() else int(v)
                                                            for v in t.reshape(-1).tolist()]}


def rng_tensor(rng, shape, dtype=torch.float32, lo=-1.0, hi=1.0):
    return torch.tensor(rng.uniform(lo, hi, size=shape), dtype=torch.float64).to(dtype)


# ---------------------------------------------------------------------------------------------
# Losses
# ---------------------------------------------------------------------------------------------

def loss_case(name, loss, options, prediction, targets, fn):
    """fn(prediction) -> loss; the gradient is taken of the loss (summed when it is a tensor)."""
    x = prediction.clone().requires_grad_(True)
    value = fn(x)
    case = {"name": name, "loss": loss, "options": options, "prediction": tensor_json(prediction),
            "targets": tensor_json(targets), "expected_loss": tensor_json(value)}
    if value.dim() == 0:
        value.backward()
        case["expected_grad"] = tensor_json(x.grad)
    return case


def make_losses():
    rng = np.random.RandomState(1)
    cases = []
    pred = rng_tensor(rng, (4, 3), lo=-2, hi=2)
    target = rng_tensor(rng, (4, 3), lo=-2, hi=2)
    for reduction in ["mean", "sum", "none"]:
        opts = 'reduction="%s"' % reduction
        cases.append(loss_case("l1_" + reduction, "l1", opts, pred, target,
                               lambda x, r=reduction: F.l1_loss(x, target, reduction=r)))
        cases.append(loss_case("mse_" + reduction, "mse", opts, pred, target,
                               lambda x, r=reduction: F.mse_loss(x, target, reduction=r)))
        cases.append(loss_case("huber_" + reduction, "huber", opts, pred, target,
                               lambda x, r=reduction: F.huber_loss(x, target, reduction=r)))
    cases.append(loss_case("huber_delta", "huber", 'reduction="sum", delta=0.5', pred, target,
                           lambda x: F.huber_loss(x, target, reduction="sum", delta=0.5)))
    pred64 = rng_tensor(rng, (2, 5), torch.float64)
    target64 = rng_tensor(rng, (2, 5), torch.float64)
    cases.append(loss_case("mse_float64", "mse", "", pred64, target64, lambda x: F.mse_loss(x, target64)))

    # Class-index targets: (N, C) logits.
    logits = rng_tensor(rng, (5, 4), lo=-3, hi=3)
    labels = torch.tensor([0, 3, 1, 1, 2])
    weight = torch.tensor([0.5, 2.0, 1.0, 1.5])
    weight_text = "[0.5, 2.0, 1.0, 1.5]"
    for reduction in ["mean", "sum", "none"]:
        opts = 'reduction="%s"' % reduction
        cases.append(loss_case("cross_entropy_" + reduction, "cross_entropy", opts, logits, labels,
                               lambda x, r=reduction: F.cross_entropy(x, labels, reduction=r)))
        cases.append(loss_case("nll_" + reduction, "nll", opts, F.log_softmax(logits, 1), labels,
                               lambda x, r=reduction: F.nll_loss(x, labels, reduction=r)))
    cases.append(loss_case("cross_entropy_weight", "cross_entropy", "weight=" + weight_text, logits, labels,
                           lambda x: F.cross_entropy(x, labels, weight=weight)))
    ignored = torch.tensor([0, -100, 1, 2, -100])
    cases.append(loss_case("cross_entropy_ignore_default", "cross_entropy", "", logits, ignored,
                           lambda x: F.cross_entropy(x, ignored)))
    cases.append(loss_case("cross_entropy_ignore_weight", "cross_entropy",
                           'reduction="mean", ignore_index=1, weight=' + weight_text, logits, labels,
                           lambda x: F.cross_entropy(x, labels, weight=weight, ignore_index=1)))
    cases.append(loss_case("cross_entropy_ignore_sum", "cross_entropy", 'reduction="sum", ignore_index=1',
                           logits, labels, lambda x: F.cross_entropy(x, labels, ignore_index=1, reduction="sum")))
    cases.append(loss_case("nll_weight_ignore", "nll", "weight=%s, ignore_index=3" % weight_text,
                           F.log_softmax(logits, 1), labels,
                           lambda x: F.nll_loss(x, labels, weight=weight, ignore_index=3)))
    # K-dim (N, C, d) and one sample (C,).
    logits3 = rng_tensor(rng, (2, 3, 4), lo=-2, hi=2)
    labels3 = torch.tensor([[0, 2, 1, 1], [2, 0, 0, 1]])
    cases.append(loss_case("cross_entropy_kdim", "cross_entropy", "", logits3, labels3,
                           lambda x: F.cross_entropy(x, labels3)))
    logits1 = rng_tensor(rng, (4,), lo=-2, hi=2)
    label1 = torch.tensor(2)
    cases.append(loss_case("cross_entropy_one_sample", "cross_entropy", "", logits1, label1,
                           lambda x: F.cross_entropy(x, label1)))

    # Probability targets: one-hot and soft.
    one_hot = F.one_hot(labels, 4).float()
    soft = torch.softmax(rng_tensor(rng, (5, 4)), 1)
    for reduction in ["mean", "sum", "none"]:
        cases.append(loss_case("categorical_one_hot_" + reduction, "categorical_cross_entropy",
                               'reduction="%s"' % reduction, logits, one_hot,
                               lambda x, r=reduction: F.cross_entropy(x, one_hot, reduction=r)))
    cases.append(loss_case("categorical_soft", "categorical_cross_entropy", "", logits, soft,
                           lambda x: F.cross_entropy(x, soft)))
    cases.append(loss_case("categorical_weight", "categorical_cross_entropy", "weight=" + weight_text, logits, soft,
                           lambda x: F.cross_entropy(x, soft, weight=weight)))
    soft3 = torch.softmax(rng_tensor(rng, (2, 3, 4)), 1)
    cases.append(loss_case("categorical_kdim_weight", "categorical_cross_entropy",
                           'reduction="sum", weight=[1.0, 0.5, 2.0]', logits3, soft3,
                           lambda x: F.cross_entropy(x, soft3, weight=torch.tensor([1.0, 0.5, 2.0]),
                                                     reduction="sum")))

    # Binary: logits with large magnitudes, targets in [0, 1].
    logits_b = torch.tensor([[8.0, -7.5, 0.3], [-0.2, 2.5, -3.0], [0.0, 15.0, -12.0], [1.0, -1.0, 4.0]])
    targets_b = torch.tensor([[1.0, 0.0, 0.5], [0.0, 1.0, 1.0], [0.3, 1.0, 0.0], [1.0, 0.0, 0.2]])
    pos_weight = torch.tensor([2.0, 0.5, 1.5])
    for reduction in ["mean", "sum", "none"]:
        cases.append(loss_case("bce_with_logits_" + reduction, "bce_with_logits", 'reduction="%s"' % reduction,
                               logits_b, targets_b,
                               lambda x, r=reduction: F.binary_cross_entropy_with_logits(x, targets_b, reduction=r)))
    cases.append(loss_case("bce_with_logits_pos_weight", "bce_with_logits", "pos_weight=[2.0, 0.5, 1.5]",
                           logits_b, targets_b,
                           lambda x: F.binary_cross_entropy_with_logits(x, targets_b, pos_weight=pos_weight)))
    cases.append(loss_case("bce_with_logits_weights", "bce_with_logits",
                           'reduction="sum", weight=[1.0, 3.0, 0.5], pos_weight=[3.0]', logits_b, targets_b,
                           lambda x: F.binary_cross_entropy_with_logits(
                               x, targets_b, weight=torch.tensor([1.0, 3.0, 0.5]), pos_weight=torch.tensor([3.0]),
                               reduction="sum")))
    return {"generator": "tests/golden/make_training_golden.py", "torch": torch.__version__, "cases": cases}


# ---------------------------------------------------------------------------------------------
# Optimizers
# ---------------------------------------------------------------------------------------------

def make_optimizer(name, params, kw):
    kw = dict(kw)
    kw.pop("max_grad_norm", None)
    table = {"sgd": torch.optim.SGD, "momentum": torch.optim.SGD, "adam": torch.optim.Adam,
             "adamw": torch.optim.AdamW, "rmsprop": torch.optim.RMSprop, "adagrad": torch.optim.Adagrad}
    if name == "momentum":
        kw.setdefault("momentum", 0.9)
    if name == "sgd":
        kw.setdefault("lr", 0.01)
    return table[name](params, **kw)


def options_text(kw):
    parts = []
    for key, value in kw.items():
        if isinstance(value, bool):
            parts.append("%s=%s" % (key, "true" if value else "false"))
        elif isinstance(value, (list, tuple)):
            parts.append("%s=[%s]" % (key, ", ".join(repr(float(v)) for v in value)))
        else:
            parts.append("%s=%r" % (key, float(value)))
    return ", ".join(parts)


def optimizer_case(name, optimizer, kw, shapes, dtypes=None, steps=3, lr_per_step=None, grad_scale=1.0,
                   half=False, seed=0):
    """Runs torch.optim for |steps| steps with fixed random gradients. half: the parameters are float16,
    updated as rxt does (in float32, optimizer state float32, the result rounded to float16)."""
    rng = np.random.RandomState(seed)
    dtypes = dtypes or [torch.float32] * len(shapes)
    storage = [torch.float32 if half else d for d in dtypes]
    start = [rng_tensor(rng, s, d) for s, d in zip(shapes, dtypes)]
    if half:
        start = [t.half() for t in start]
    grads = [[rng_tensor(rng, s, d) * grad_scale for s, d in zip(shapes, dtypes)] for _ in range(steps)]
    if half:
        grads = [[g.half() for g in step] for step in grads]
    params = [torch.nn.Parameter(t.to(d).clone()) for t, d in zip(start, storage)]
    opt = make_optimizer(optimizer, params, kw)
    expected = []
    for k in range(steps):
        if lr_per_step is not None:
            for group in opt.param_groups:
                group["lr"] = lr_per_step[k]
        for p, g in zip(params, grads[k]):
            p.grad = g.to(p.dtype).clone()
        if "max_grad_norm" in kw:
            torch.nn.utils.clip_grad_norm_(params, kw["max_grad_norm"])
        opt.step()
        if half:
            with torch.no_grad():
                for p in params:
                    p.copy_(p.half().float())
        expected.append([tensor_json(p.half() if half else p) for p in params])
    case = {"name": name, "optimizer": optimizer, "options": options_text(kw), "params": [tensor_json(t) for t in start],
            "grads": [[tensor_json(g) for g in step] for step in grads], "expected": expected}
    if lr_per_step is not None:
        case["lr_per_step"] = lr_per_step
    return case


def make_optimizers():
    shapes = [(3, 2), (2,), (1, 4)]
    c = []
    c.append(optimizer_case("sgd", "sgd", {"lr": 0.1}, shapes))
    c.append(optimizer_case("sgd_weight_decay", "sgd", {"lr": 0.1, "weight_decay": 0.05}, shapes))
    c.append(optimizer_case("sgd_lr_schedule", "sgd", {"lr": 0.1, "weight_decay": 0.01}, shapes,
                            lr_per_step=[0.1, 0.05, 0.025]))
    c.append(optimizer_case("momentum", "momentum", {"lr": 0.1, "momentum": 0.9}, shapes, steps=4))
    c.append(optimizer_case("momentum_dampening_decay", "momentum",
                            {"lr": 0.05, "momentum": 0.8, "dampening": 0.3, "weight_decay": 0.01}, shapes, steps=4))
    c.append(optimizer_case("momentum_nesterov", "momentum",
                            {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 0.05}, shapes, steps=4))
    c.append(optimizer_case("momentum_zero", "momentum", {"lr": 0.1, "momentum": 0.0, "dampening": 0.5}, shapes))
    c.append(optimizer_case("adam", "adam", {"lr": 0.01}, shapes, steps=4))
    c.append(optimizer_case("adam_decay_betas", "adam",
                            {"lr": 0.02, "betas": [0.8, 0.99], "eps": 1e-6, "weight_decay": 0.1}, shapes, steps=4))
    c.append(optimizer_case("adam_amsgrad", "adam", {"lr": 0.01, "amsgrad": True}, shapes, steps=4))
    c.append(optimizer_case("adamw", "adamw", {"lr": 0.01, "weight_decay": 0.1}, shapes, steps=4))
    c.append(optimizer_case("adamw_default_decay_amsgrad", "adamw", {"lr": 0.01, "amsgrad": True}, shapes, steps=3))
    c.append(optimizer_case("rmsprop", "rmsprop", {"lr": 0.01}, shapes))
    c.append(optimizer_case("rmsprop_centered_momentum", "rmsprop",
                            {"lr": 0.01, "alpha": 0.9, "momentum": 0.9, "centered": True, "weight_decay": 0.1},
                            shapes, steps=4))
    c.append(optimizer_case("adagrad", "adagrad", {"lr": 0.1}, shapes))
    c.append(optimizer_case("adagrad_decay", "adagrad",
                            {"lr": 0.1, "lr_decay": 0.05, "weight_decay": 0.1, "initial_accumulator_value": 0.1,
                             "eps": 1e-8}, shapes, steps=4))
    c.append(optimizer_case("sgd_clipped", "sgd", {"lr": 0.1, "max_grad_norm": 0.5}, shapes, grad_scale=3.0))
    c.append(optimizer_case("sgd_clip_inactive", "sgd", {"lr": 0.1, "max_grad_norm": 100.0}, shapes))
    c.append(optimizer_case("adam_clipped", "adam", {"lr": 0.01, "weight_decay": 0.01, "max_grad_norm": 1.0}, shapes,
                            grad_scale=5.0))
    c.append(optimizer_case("momentum_clipped_nesterov", "momentum",
                            {"lr": 0.05, "momentum": 0.9, "nesterov": True, "max_grad_norm": 0.3}, shapes, steps=4))
    c.append(optimizer_case("adam_mixed_dtypes", "adam", {"lr": 0.01, "weight_decay": 0.1}, shapes,
                            dtypes=[torch.float32, torch.float64, torch.float32]))
    c.append(optimizer_case("momentum_mixed_dtypes", "momentum", {"lr": 0.1, "momentum": 0.9}, shapes,
                            dtypes=[torch.float64, torch.float32, torch.float64]))
    c.append(optimizer_case("adam_float16", "adam", {"lr": 0.01}, shapes, half=True))
    c.append(optimizer_case("sgd_float16", "sgd", {"lr": 0.1, "weight_decay": 0.1}, shapes, half=True))
    return {"generator": "tests/golden/make_training_golden.py", "torch": torch.__version__, "cases": c}


# ---------------------------------------------------------------------------------------------
# The seed tutorial's step
# ---------------------------------------------------------------------------------------------

def deterministic_tensor(shape, seed, lo, hi):
    """Element i = lo + (hi - lo) * u_i, u_i = ((i * 2654435761 + seed * 40503) mod 2^32) / 2^32,
    computed in float64 and rounded to float32 (tests/test_util/deterministic_tensor.h)."""
    n = int(np.prod(shape)) if len(shape) else 1
    i = np.arange(n, dtype=np.uint64)
    u = ((i * np.uint64(2654435761) + np.uint64(seed * 40503)) % np.uint64(2 ** 32)).astype(np.float64) / 2.0 ** 32
    return torch.tensor((lo + (hi - lo) * u).astype(np.float32).reshape(shape))


def summary(t, samples=48):
    flat = t.detach().reshape(-1).double()
    n = flat.numel()
    idx = sorted(set([0, n - 1] + [(k * 7919 + 13) % n for k in range(samples)]))
    return {"shape": list(t.shape), "sum": float(flat.sum()), "abs_sum": float(flat.abs().sum()),
            "samples": [[int(j), float(flat[j])] for j in idx]}


SEED_MLP_TENSORS = [  # name, shape, seed, lo, hi (the MLP's input and parameters)
    ("x", (64, 784), 1, 0.0, 1.0),
    ("w0", (784, 128), 2, -0.08, 0.08), ("b0", (128,), 3, -0.05, 0.05),
    ("w1", (128, 128), 4, -0.15, 0.15), ("b1", (128,), 5, -0.05, 0.05),
    ("w2", (128, 10), 6, -0.2, 0.2), ("b2", (10,), 7, -0.05, 0.05),
]


def make_seed_step():
    t = {name: deterministic_tensor(shape, seed, lo, hi) for name, shape, seed, lo, hi in SEED_MLP_TENSORS}
    labels = torch.tensor([(i * 7) % 10 for i in range(64)])
    params = [torch.nn.Parameter(t[n].clone()) for n in ["w0", "b0", "w1", "b1", "w2", "b2"]]
    w0, b0, w1, b1, w2, b2 = params
    out = torch.relu(torch.relu(t["x"] @ w0 + b0) @ w1 + b1) @ w2 + b2
    loss = F.cross_entropy(out, labels, reduction="sum")
    loss.backward()
    grads = [p.grad.clone() for p in params]
    torch.optim.SGD(params, lr=0.01, weight_decay=0.01).step()
    return {"generator": "tests/golden/make_training_golden.py", "torch": torch.__version__,
            "tensors": [{"name": n, "shape": list(s), "seed": seed, "lo": lo, "hi": hi}
                        for n, s, seed, lo, hi in SEED_MLP_TENSORS],
            "labels": labels.tolist(), "loss": "cross_entropy", "loss_options": 'reduction="sum"',
            "optimizer": "sgd", "optimizer_options": "lr=0.01, weight_decay=0.01",
            "expected_loss": float(loss), "expected_grads": [summary(g) for g in grads],
            "expected_params": [summary(p) for p in params]}


def write_json(value, f):
    """One line per top-level key, one line per case: diffs stay readable."""
    f.write("{\n")
    items = list(value.items())
    for k, (key, v) in enumerate(items):
        if key == "cases":
            f.write(' "cases": [\n' + ",\n".join("  " + json.dumps(c) for c in v) + "\n ]")
        else:
            f.write(" %s: %s" % (json.dumps(key), json.dumps(v)))
        f.write(",\n" if k + 1 < len(items) else "\n")
    f.write("}\n")


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    for name, make in [("losses.json", make_losses), ("optimizers.json", make_optimizers),
                       ("seed_step.json", make_seed_step)]:
        path = os.path.join(OUT_DIR, name)
        with open(path, "w") as f:
            write_json(make(), f)
        print("wrote", os.path.relpath(path, ROOT))


if __name__ == "__main__":
    main()
