#!/usr/bin/python3
"""A PyTorch user's path into rxt: a torch.nn.Module as it is (LeNet-5, defined below in plain
PyTorch), imported with rxt.frontend.from_torch, trained by rxt's Trainer on Fashion-MNIST, and
its trained weights loaded back into the torch module, which then evaluates them.

  RXT_LIBRARY=build/dev/lib/librxt.so PYTHONPATH=abi/python /usr/bin/python3 examples/python/train_torch_module.py --epochs 2

The data: Debian's dataset-fashion-mnist (/usr/share/datasets/fashion-mnist; --data DIR for
another copy of the four .gz files). It is held in 64-byte aligned arrays (rxt.empty), so every
batch crosses into rxt without a copy."""
import argparse
import gzip
import pathlib
import time

import numpy as np
import torch
import torch.nn as nn

import rxt
from rxt import frontend
from rxt.training import SetupTrainer, Trainer
from rxt.training.loss import CrossEntropyLoss
from rxt.training.optimizer import Adam


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


def read_idx(path, offset):
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), dtype=np.uint8)[offset:]


def load(directory, split):
    prefix = "train" if split == "train" else "t10k"
    pixels = read_idx(directory / f"{prefix}-images-idx3-ubyte.gz", 16)
    labels = read_idx(directory / f"{prefix}-labels-idx1-ubyte.gz", 8)
    images = rxt.empty((len(labels), 1, 28, 28))  # aligned: each batch of 64 is too
    images[...] = pixels.reshape(-1, 1, 28, 28) / np.float32(255)
    targets = rxt.empty(len(labels), "int64")
    targets[...] = labels
    return images, targets


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=pathlib.Path, default=pathlib.Path("/usr/share/datasets/fashion-mnist"))
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = LeNet5()
    train_x, train_y = load(args.data, "train")
    test_x, test_y = load(args.data, "test")
    batch = args.batch_size

    backbone = frontend.from_torch(model, torch.zeros(batch, 1, 28, 28))
    trainer = Trainer(backbone, backbone.param_num, SetupTrainer(CrossEntropyLoss(), Adam(args.lr))).build()
    trainer.load_params(backbone.params)  # start from the torch module's own initial weights

    rng = np.random.default_rng(0)
    for epoch in range(args.epochs):
        start, total, steps = time.perf_counter(), 0.0, 0
        order = rng.permutation(len(train_y) // batch)
        for b in order:  # whole aligned batches, shuffled by batch
            total += trainer.update_params(train_x[b * batch:(b + 1) * batch], train_y[b * batch:(b + 1) * batch])
            steps += 1
        correct = 0
        for b in range(len(test_y) // batch):
            logits = np.from_dlpack(trainer.predict(test_x[b * batch:(b + 1) * batch]))
            correct += int(np.sum(logits.argmax(1) == test_y[b * batch:(b + 1) * batch]))
        accuracy = correct / (len(test_y) // batch * batch)
        print(f"epoch {epoch + 1}: loss {total / steps:.4f}, test accuracy {accuracy:.2%}, "
              f"{(time.perf_counter() - start) / steps * 1e3:.2f} ms per step")

    # The trained weights back into the torch module: the names are its own.
    trained = {name: torch.from_numpy(np.from_dlpack(value).copy()) for name, value in trainer.export_params().items()}
    model.load_state_dict(trained)
    with torch.no_grad():
        torch_logits = model(torch.from_numpy(test_x[:1000]))
    torch_accuracy = float((torch_logits.argmax(1).numpy() == test_y[:1000]).mean())
    print(f"RESULT test accuracy {accuracy:.4f}; the torch module with rxt's weights: {torch_accuracy:.4f} "
          f"on the first 1000 test images")


if __name__ == "__main__":
    main()
