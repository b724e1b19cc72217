#!/usr/bin/python3
"""Traces the real-model fixtures of the torchscript importer with torch.jit.trace, in train()
mode (random weights, no download): the models of ../onnx/export_models.py (LeNet-5, resnet18,
mobilenet_v2, a transformer encoder, ...) plus an MLP and one ResNet basic block.

  trace_models.py OUT_DIR [NAME ...]      # writes OUT_DIR/<name>.pt

As a module: make(name), trace(name, out_dir, input_shape, dtype, suffix)."""
import os
import sys

import torch
import torch.nn as nn
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "onnx"))
import export_models  # noqa: E402


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(784, 64), nn.Linear(64, 32), nn.Linear(32, 10)

    def forward(self, x):
        x = torch.flatten(x, 1)
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


class BasicBlock(nn.Module):
    """One ResNet basic block (torchvision's, with a downsampling shortcut) and a head."""
    def __init__(self):
        super().__init__()
        shortcut = nn.Sequential(nn.Conv2d(4, 8, 1, stride=2, bias=False), nn.BatchNorm2d(8))
        self.block = torchvision.models.resnet.BasicBlock(4, 8, stride=2, downsample=shortcut)
        self.head = nn.Linear(8, 10)

    def forward(self, x):
        return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(self.block(x), 1), 1))


class Ops(nn.Module):
    """The common ops the other models lack, each on the way from a parameter to the logits."""
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 6, 3, padding=1)
        self.group_norm = nn.GroupNorm(3, 6)
        self.fc = nn.Linear(6, 6)
        self.norm = nn.LayerNorm(6, elementwise_affine=False)
        self.head = nn.Linear(6 * 8 * 8 + 6 + 8 + 4 * 6 + 3 * 3 + 8, 10)

    def forward(self, x):  # x: (batch, 4, 8)
        F = nn.functional
        y = self.group_norm(self.conv(x)).permute(0, 2, 1)      # (batch, 8, 6)
        a, b = self.fc(y).chunk(2, dim=-1)                       # (batch, 8, 3) each
        gates = [torch.sigmoid(a), torch.tanh(b), F.gelu(a), F.silu(b), F.leaky_relu(a, 0.2), F.hardswish(b),
                 F.softplus(b), torch.exp(-a * a), 1.0 / (1.0 + b * b)]
        mean = torch.stack(gates[2:4], 3).sum(3)
        z = torch.cat(gates[:2], dim=2) * 0.5 - torch.cat([mean, mean], 2) / 3.0
        z = z + torch.cat([gates[4], gates[5]], -1) + torch.cat([gates[6], gates[7] + gates[8]], -1) ** 2
        z = self.norm(z)                                         # (batch, 8, 6)
        attn = torch.softmax(torch.matmul(z, z.transpose(1, 2)) / 2.0, dim=-1)           # (batch, 8, 8)
        mixed = torch.log_softmax(attn @ z, -1).unsqueeze(1).squeeze(1)                   # (batch, 8, 6)
        outer = (mixed.unsqueeze(-1) * attn.unsqueeze(2)).flatten(1)                      # (batch, 6*8*8)
        pooled = [mixed.mean(1), z.amax(2), mixed[:, 2:6].reshape(x.size(0), -1), z[:, 5:, ::2].flatten(1), z.select(2, 1) - z[:, :, -1].clamp(-0.5, 0.5)]
        return self.head(torch.cat([outer] + pooled, 1))


class Embed(nn.Module):
    """Token ids (int64) through an embedding with a padding index, masked_fill, elu, ones_like,
    a constant pad and a nearest upsampling."""
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(20, 8, padding_idx=0)
        self.fc = nn.Linear(8, 8)
        self.head = nn.Linear(8 * 14 + 2 * 4 * 6, 10)

    def forward(self, ids):  # (batch, 12)
        mask = (ids == 1).unsqueeze(-1)
        h = self.embed(ids)
        h = nn.functional.elu(self.fc(h)).masked_fill(mask, -0.5) + torch.ones_like(h) * h
        h = nn.functional.pad(h.transpose(1, 2), (1, 1), value=0.25)  # (batch, 8, 14)
        image = nn.functional.interpolate(h[:, :2, :6].reshape(-1, 2, 2, 3), scale_factor=2.0, mode="nearest")
        return self.head(torch.cat([h.flatten(1), image.flatten(1)], 1))


MODELS = dict(export_models.MODELS)
INT_INPUTS = {"embed": 20}  # models whose input is token ids below this
MODELS.update({"mlp": (MLP, (1, 28, 28)), "basic_block": (BasicBlock, (4, 8, 8)), "ops": (Ops, (4, 8)), "embed": (Embed, (12,))})


def make(name, seed=0):
    """The module, with weights from |seed| (and non-trivial BatchNorm statistics)."""
    if name in export_models.MODELS:
        return export_models.make(name, seed)
    torch.manual_seed(seed)
    module = MODELS[name][0]()
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.1, 0.1)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.1, 0.1)
    return module


def trace(name, out_dir, input_shape=None, dtype=torch.float32, suffix="", batch=2):
    """OUT_DIR/<name><suffix>.pt: the module in train() mode traced on a random batch (the
    trace runs forward once: the BatchNorm statistics it updates are put back first); a name
    ending in @script (basic_block@script) is compiled with torch.jit.script instead."""
    name, _, how = name.partition("@")
    module = make(name).to(dtype).train()
    if how == "script":
        path = os.path.join(out_dir, f"{name}_script{suffix}.pt")
        torch.jit.script(module).save(path)
        return path
    state = {k: v.clone() for k, v in module.state_dict().items()}
    shape = (batch, *(input_shape or MODELS[name][1]))
    example = torch.randint(0, INT_INPUTS[name], shape) if name in INT_INPUTS else torch.randn(*shape, dtype=dtype)
    traced = torch.jit.trace(module, example, check_trace=False)
    traced.load_state_dict(state)
    path = os.path.join(out_dir, f"{name}{suffix}.pt")
    traced.save(path)
    return path


if __name__ == "__main__":
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for name in sys.argv[2:] or list(MODELS):  # NAME or NAME@script
        print(trace(name, out_dir))
