"""examples/python/train_torch_module.py, a PyTorch user's path (a torch LeNet-5 imported with
from_torch, trained by rxt on Fashion-MNIST, its weights loaded back into torch), for one epoch:
it learns (at least 80% test accuracy; 83% measured), and the torch module with rxt's weights
classifies as well."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[4]
DATA = pathlib.Path("/usr/share/datasets/fashion-mnist")


@pytest.mark.skipif(not (DATA / "t10k-labels-idx1-ubyte.gz").exists(),
                    reason="Fashion-MNIST (Debian's dataset-fashion-mnist) is not installed")
def test_the_example_trains_a_torch_module():
    env = dict(os.environ, PYTHONPATH=str(ROOT / "abi" / "python"))
    result = subprocess.run([sys.executable, str(ROOT / "examples" / "python" / "train_torch_module.py"),
                             "--epochs", "1"], capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr
    found = re.search(r"RESULT test accuracy ([0-9.]+); the torch module with rxt's weights: ([0-9.]+)", result.stdout)
    assert found, result.stdout
    ours, torch_accuracy = float(found.group(1)), float(found.group(2))
    assert ours >= 0.80 and torch_accuracy >= 0.80, result.stdout
