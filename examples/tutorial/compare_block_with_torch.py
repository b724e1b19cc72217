"""Compares resnet_block.rxt's gradients from rxt (block_grads/*.npy) and from PyTorch in
float32 with PyTorch in float64 on the same inputs: how far each float32 result is from the
float64 one. Exits 1 if rxt is further than twice PyTorch's float32 (or than 1e-5)."""
import sys

import numpy as np
import torch
import torch.nn.functional as F

names = ["w1", "g1", "be1", "w2", "g2", "be2"]


def gradients(dtype):
    load = lambda name: torch.from_numpy(np.load(f"{name}.npy")).to(dtype)
    x, r, c1 = load("x"), load("r"), load("c1")  # c1: no gradient (batch norm removes it)
    p = {name: load(name).requires_grad_() for name in names}
    h1 = F.conv2d(x, p["w1"], padding=1) + c1
    a1 = torch.relu(F.batch_norm(h1, None, None, p["g1"], p["be1"], training=True, eps=1e-5))
    h2 = F.conv2d(a1, p["w2"], padding=1)
    y = torch.relu(F.batch_norm(h2, None, None, p["g2"], p["be2"], training=True, eps=1e-5) + x)
    loss = (y * r).sum()
    loss.backward()
    return [p[name].grad.double().numpy() for name in names]


exact, torch32 = gradients(torch.float64), gradients(torch.float32)
ok = True
print("gradient  rxt float32   PyTorch float32   (max error relative to the float64 result)")
for i, name in enumerate(names):
    ours = np.load(f"block_grads/1_{i}.npy").astype(np.float64)
    scale = np.max(np.abs(exact[i])) + 1e-30
    e_rxt = float(np.max(np.abs(ours - exact[i])) / scale)
    e_torch = float(np.max(np.abs(torch32[i] - exact[i])) / scale)
    ok = ok and e_rxt <= max(2 * e_torch, 1e-5)
    print(f"d_{name:4}    {e_rxt:.1e}       {e_torch:.1e}")
print("as accurate as PyTorch" if ok else "LESS ACCURATE than PyTorch")
sys.exit(0 if ok else 1)
