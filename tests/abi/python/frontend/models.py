"""The models of the importer's proofs: the ONNX importer's fixtures (LeNet-5, the transformer
encoder, torchvision resnet18 and mobilenet_v2) plus an MLP and one ResNet basic block, with the
input shapes they are checked at, and how a backbone's forward runs on rxt."""
import numpy as np
import torch
import torch.nn as nn
import torchvision

import export_models
import rxt


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(784, 128), nn.Linear(128, 64), nn.Linear(64, 10)

    def forward(self, x):
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(torch.flatten(x, 1))))))


class BasicBlockNet(nn.Module):
    """torchvision's ResNet basic block with a downsampling shortcut, then a classifier."""

    def __init__(self):
        super().__init__()
        down = nn.Sequential(nn.Conv2d(8, 16, 1, stride=2, bias=False), nn.BatchNorm2d(16))
        self.block = torchvision.models.resnet.BasicBlock(8, 16, stride=2, downsample=down)
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(self.block(x), 1), 1))


# Batch statistics over few values are ill-conditioned (see tests/importers/onnx/models_test.py):
# the BatchNorm models run at batch 8.
SHAPES = {"mlp": (4, 1, 28, 28), "lenet": (2, 1, 28, 28), "basic_block": (8, 8, 16, 16), "resnet18": (8, 3, 64, 64),
          "mobilenet_v2": (8, 3, 64, 64), "encoder": (2, 32, 64)}


def make(name):
    torch.manual_seed(0)
    if name == "mlp":
        return MLP()
    if name == "basic_block":
        return BasicBlockNet()
    return export_models.make(name)


def forward(backbone, *inputs):
    """The backbone's outputs (and updated states) for |inputs|, with its own values."""
    vm = rxt.VirtualMachine(rxt.build(rxt.transform.LegalizeOps()(backbone)))
    args = [np.asarray(x) for x in inputs] + list(backbone.params.values()) + list(backbone.states.values())
    out = vm["backbone"](*args)
    return [np.from_dlpack(t) for t in (out if isinstance(out, tuple) else (out,))]


def relative_error(got, want):
    want = np.asarray(want, dtype=np.float64)
    return float(np.max(np.abs(np.asarray(got, dtype=np.float64) - want)) / (np.max(np.abs(want)) + 1e-30))
