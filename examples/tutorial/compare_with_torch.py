"""Compares rxt's loss and gradients (grads/*.npy, from `rxt run ... -o grads/`) with PyTorch's
autograd on the same inputs. Exits 1 if any differs by more than the tolerance."""
import sys

import numpy as np
import torch

names = ["w1", "b1", "w2", "b2"]
x = torch.from_numpy(np.load("x.npy"))
labels = torch.from_numpy(np.load("labels.npy"))
params = {name: torch.from_numpy(np.load(f"{name}.npy")).requires_grad_() for name in names}

hidden = torch.relu(x @ params["w1"] + params["b1"])
logits = hidden @ params["w2"] + params["b2"]
loss = torch.nn.functional.nll_loss(torch.log_softmax(logits, dim=-1), labels)
loss.backward()

# main_adjoint returns (loss, (d_w1, d_b1, d_w2, d_b2)): grads/0.npy, then grads/1_0.npy ...
results = [("loss", np.load("grads/0.npy"), loss.detach().numpy())]
results += [(f"d_{name}", np.load(f"grads/1_{i}.npy"), params[name].grad.numpy()) for i, name in enumerate(names)]
worst = 0.0
for name, ours, theirs in results:
    error = float(np.max(np.abs(ours - theirs)) / (np.max(np.abs(theirs)) + 1e-12))
    worst = max(worst, error)
    print(f"{name:5} shape {str(ours.shape):8} max relative difference {error:.1e}")
print("agree with PyTorch" if worst < 1e-5 else "DIFFERENT from PyTorch")
sys.exit(0 if worst < 1e-5 else 1)
