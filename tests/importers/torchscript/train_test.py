#!/usr/bin/python3
"""`rxt train` on a TorchScript module: LeNet-5 traced in train() mode (trace_models.py) trains
straight from the .pt file, starting from its parameters, on the first 2048 images of
Fashion-MNIST (Debian's dataset-fashion-mnist; kept small so the test is quick) and is tested
on 1000 others; also from the module `rxt import` wrote; without its input shape it is refused.

  train_test.py RXT PLUGIN WORK_DIR

Needs /usr/bin/python3 with python3-torch and python3-numpy."""
import gzip
import json
import os
import subprocess
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_models  # noqa: E402

RXT, PLUGIN, WORK = sys.argv[1:4]
del sys.argv[1:4]
os.makedirs(WORK, exist_ok=True)
DATA = "/usr/share/datasets/fashion-mnist"
LENET = trace_models.trace("lenet", WORK)
SHAPE = "shape=batch;1;28;28"


def idx(name, count, offset):
    """count items of an IDX file from |offset| (images as float rows scaled to [0, 1])."""
    with gzip.open(os.path.join(DATA, name)) as f:
        raw = f.read()
    if "images" in name:
        return (np.frombuffer(raw, np.uint8, count * 784, 16 + offset * 784).reshape(count, 784) / 255.0).astype(np.float32)
    return np.frombuffer(raw, np.uint8, count, 8 + offset).astype(np.int64)


def arrays(prefix, count, offset, name):
    x, y = os.path.join(WORK, f"{name}_x.npy"), os.path.join(WORK, f"{name}_y.npy")
    np.save(x, idx(f"{prefix}-images-idx3-ubyte.gz", count, offset))
    np.save(y, idx(f"{prefix}-labels-idx1-ubyte.gz", count, offset))
    return f"{x},{y}"


TRAIN = TEST = None


def train(*args, epochs=2):
    metrics = os.path.join(WORK, "metrics.json")
    if os.path.exists(metrics):
        os.remove(metrics)
    result = subprocess.run([RXT, "train", *args, "--epochs", str(epochs), "--train-data", TRAIN, "--test-data", TEST,
                             "--metrics", metrics, "--plugin", PLUGIN], capture_output=True, text=True)
    epochs = None
    if result.returncode == 0:
        with open(metrics) as f:
            epochs = json.load(f)["epochs"]
    return result, epochs


@unittest.skipUnless(os.path.isdir(DATA), f"no {DATA} (Debian's dataset-fashion-mnist)")
class TrainTorchScript(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        global TRAIN, TEST
        TRAIN = arrays("train", 2048, 0, "train")
        TEST = arrays("t10k", 1000, 0, "test")

    def test_trains_from_the_pt_file_starting_from_its_parameters(self):
        result, epochs = train("--model", LENET, "--import-options", SHAPE)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("init: 10 parameters and 0 states from", result.stdout)
        self.assertIn("(torchscript)", result.stdout)
        self.assertIn("(batch = 64)", result.stdout)  # the symbolic batch bound to --batch-size
        self.assertLess(epochs[1]["loss"], epochs[0]["loss"])
        self.assertGreater(epochs[-1]["test_accuracy"], 0.4)  # 64 steps reach ~52%; chance is 10%

    def test_an_imported_module_starts_from_the_values_beside_it(self):
        module = os.path.join(WORK, "lenet.rxt")
        imported = subprocess.run([RXT, "import", LENET, "-o", module, "--options", SHAPE, "--plugin", PLUGIN],
                                  capture_output=True, text=True)
        self.assertEqual(imported.returncode, 0, imported.stderr)
        result, epochs = train("--model", module, epochs=1)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"init: 10 parameters and 0 states from {module[:-4]}.safetensors", result.stdout)
        self.assertGreater(epochs[-1]["test_accuracy"], 0.2)  # 32 steps; chance is 10%

    def test_without_the_input_shape_it_is_refused(self):
        result, _ = train("--model", LENET)
        self.assertEqual(result.returncode, 1)
        self.assertIn("input 'x' needs a shape: a TorchScript file keeps none; give it with --options 'shape=x:", result.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
