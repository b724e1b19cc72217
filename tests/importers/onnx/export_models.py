#!/usr/bin/python3
"""Exports the real-model fixtures of the onnx importer from PyTorch (Debian's python3-torch and
python3-torchvision; random weights, no download): torchvision resnet18 and mobilenet_v2 (10
classes, 3x32x32 input), LeNet-5 (1x28x28, as bench/peers and examples/lenet.rxt) and a
transformer encoder (nn.TransformerEncoderLayer, d_model 64, 4 heads, seq 32) with a
classification head. Each is exported in eval mode, as users usually export, with a symbolic
batch. TrainingMode.PRESERVE (the module's mode, eval) without constant folding keeps
BatchNormalization a node: PyTorch's EVAL export folds it into the convolutions, where its
statistics could not train.

  export_models.py OUT_DIR [NAME ...]      # writes OUT_DIR/<name>.onnx

As a module: MODELS maps a name to (make_module, input_shape); export(name, out_dir)."""
import os
import sys

import torch
import torch.nn as nn
import torchvision


class LeNet5(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1, self.fc2, self.fc3 = nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10)

    def forward(self, x):
        x = torch.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = torch.max_pool2d(torch.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(64, 4, dim_feedforward=128, dropout=0.0, batch_first=True)
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        return self.head(self.layer(x).mean(dim=1))


class Resample(nn.Module):
    """Ops the importer lowers to others: Resize (bilinear with and without align_corners,
    nearest, bicubic, down to a size) and Pad in modes reflect and edge, after a convolution so
    that their gradients reach a parameter."""
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)
        self.head = nn.Linear(3 * (256 + 35 + 256 + 144 + 121 + 120), 10)

    def forward(self, x):
        y = self.conv(x)
        F = nn.functional
        parts = [F.interpolate(y, scale_factor=2.0, mode="bilinear", align_corners=False),
                 F.interpolate(y, size=(5, 7), mode="bilinear", align_corners=True),
                 F.interpolate(y, scale_factor=2.0, mode="nearest"),
                 F.interpolate(y, scale_factor=1.5, mode="bicubic", align_corners=False),
                 F.pad(y, (1, 2, 2, 1), mode="reflect"),
                 F.pad(y, (2, 0, 1, 3), mode="replicate")]
        return self.head(torch.cat([torch.flatten(p, 1) for p in parts], 1))


class EinsumAttention(nn.Module):
    """Attention written with torch.einsum (ONNX Einsum: batched products and a sum)."""
    def __init__(self):
        super().__init__()
        self.q, self.k, self.v = nn.Linear(16, 16), nn.Linear(16, 16), nn.Linear(16, 16)
        self.head = nn.Linear(16 * 6 + 16, 10)

    def forward(self, x):
        q, k, v = self.q(x), self.k(x), self.v(x)
        scores = torch.softmax(torch.einsum("bqd,bkd->bqk", q, k) / 4.0, dim=-1)
        mixed = torch.einsum("bqk,bkd->bqd", scores, v)
        pooled = torch.einsum("bsd->bd", mixed * x)
        return self.head(torch.cat([torch.flatten(mixed, 1), pooled], 1))


class Volume(nn.Module):
    """3-D convolution and pooling (the importer runs them as 2-D ones per depth tap)."""
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(2, 4, 3, stride=(2, 1, 1), padding=1)
        self.max = nn.MaxPool3d(2, stride=2)
        self.avg = nn.AvgPool3d(3, stride=1, padding=1, count_include_pad=False)
        self.head = nn.Linear(4 * 1 * 4 * 4 + 4 * 3 * 8 * 8, 10)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        return self.head(torch.cat([torch.flatten(self.max(y), 1), torch.flatten(self.avg(y), 1)], 1))


MODELS = {
    "lenet": (LeNet5, (1, 28, 28)),
    "resnet18": (lambda: torchvision.models.resnet18(num_classes=10), (3, 32, 32)),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(num_classes=10), (3, 32, 32)),
    "encoder": (Encoder, (32, 64)),
    "resample": (Resample, (2, 8, 8)),
    "einsum_attention": (EinsumAttention, (6, 16)),
    "volume": (Volume, (2, 6, 8, 8)),
}


def make(name, seed=0):
    """The module, with weights from |seed| (and non-trivial BatchNorm statistics)."""
    torch.manual_seed(seed)
    module = MODELS[name][0]()
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.1, 0.1)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.1, 0.1)
    return module


def export(name, out_dir, seed=0, input_shape=None, dtype=torch.float32, suffix=""):
    """OUT_DIR/<name><suffix>.onnx; |input_shape| (without the batch) replaces the default one;
    |dtype| float64 gives a model in double precision."""
    module = make(name, seed).to(dtype).eval()
    path = os.path.join(out_dir, f"{name}{suffix}.onnx")
    example = torch.randn(2, *(input_shape or MODELS[name][1]), dtype=dtype)
    torch.onnx.export(module, example, path, input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}}, opset_version=13,
                      do_constant_folding=False, training=torch.onnx.TrainingMode.PRESERVE)
    return path


if __name__ == "__main__":
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for name in sys.argv[2:] or list(MODELS):
        print(export(name, out_dir))
