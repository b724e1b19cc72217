#!/usr/bin/python3
"""`rxt train` on an imported model: LeNet-5 exported from PyTorch (export_models.py) trains on
Fashion-MNIST straight from the .onnx file, starting from its initializers (fine-tuning), or
from Xavier init with --init xavier; an imported .rxt starts from the .safetensors beside it;
starting values that lack a parameter are refused.

  train_test.py RXT PLUGIN WORK_DIR

Needs /usr/bin/python3 with python3-torch and python3-onnx, and Debian's dataset-fashion-mnist."""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_models  # noqa: E402

RXT, PLUGIN, WORK = sys.argv[1:4]
del sys.argv[1:4]
os.makedirs(WORK, exist_ok=True)
LENET = export_models.export("lenet", WORK)


def train(*args):
    metrics = os.path.join(WORK, "metrics.json")
    result = subprocess.run([RXT, "train", *args, "--epochs", "1", "--metrics", metrics, "--plugin", PLUGIN],
                            capture_output=True, text=True)
    accuracy = None
    if result.returncode == 0:
        with open(metrics) as f:
            accuracy = json.load(f)["epochs"][-1]["test_accuracy"]
    return result, accuracy


class TrainImported(unittest.TestCase):
    def test_trains_from_the_onnx_file_starting_from_its_initializers(self):
        result, accuracy = train("--model", LENET)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("init: 10 parameters and 0 states from", result.stdout)
        self.assertIn("(batch = 64)", result.stdout)  # the symbolic batch bound to --batch-size
        self.assertGreater(accuracy, 0.75)  # 1 epoch; 5 epochs reach 88% as examples/lenet.rxt does

    def test_init_xavier_ignores_the_initializers(self):
        result, accuracy = train("--model", LENET, "--init", "xavier")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("init: Xavier uniform", result.stdout)
        self.assertGreater(accuracy, 0.75)

    def test_an_imported_module_starts_from_the_values_beside_it(self):
        module = os.path.join(WORK, "lenet.rxt")
        imported = subprocess.run([RXT, "import", LENET, "-o", module, "--plugin", PLUGIN], capture_output=True, text=True)
        self.assertEqual(imported.returncode, 0, imported.stderr)
        result, _ = train("--model", module)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"init: 10 parameters and 0 states from {module[:-4]}.safetensors", result.stdout)

    def test_starting_values_without_a_parameter_are_refused(self):
        # A file with the model's output in it, and none of its parameters.
        other = os.path.join(WORK, "other.safetensors")
        module = os.path.join(WORK, "lenet.rxt")
        subprocess.run([RXT, "import", LENET, "-o", module, "--plugin", PLUGIN], check=True, capture_output=True)
        import numpy as np
        np.save(os.path.join(WORK, "x.npy"), np.zeros((64, 1, 28, 28), np.float32))
        exe = os.path.join(WORK, "lenet.rxtx")
        subprocess.run([RXT, "build", module, "-o", exe, "--plugin", PLUGIN], check=True, capture_output=True)
        subprocess.run([RXT, "run", exe, "--fn", "backbone", "-i", f"input={WORK}/x.npy", "-o", other, "--plugin", PLUGIN],
                       check=True, capture_output=True)
        result, _ = train("--model", LENET, "--params", other)
        self.assertEqual(result.returncode, 1)
        self.assertIn(f"rxt: error: {other} has no value for 10 of the model's parameters and states (conv1.weight, "
                      "conv1.bias, conv2.weight, conv2.bias, fc1.weight, ...); give --init xavier to start afresh",
                      result.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
