#!/usr/bin/python3
"""The torchscript importer on small modules made here: files that are no TorchScript module
(not a zip, truncated, empty, a state_dict, a legacy pickle), unsupported ops (listed at once),
options (shape, training, dropout, freeze; bad ones), the backbone's names and order, scripted
modules (branches on known values), several inputs.

  importer_test.py RXT PLUGIN WORK_DIR

Needs /usr/bin/python3 with python3-torch, python3-numpy and python3-torchvision."""
import os
import re
import subprocess
import sys
import unittest

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_models  # noqa: E402

RXT, PLUGIN, WORK = sys.argv[1:4]
del sys.argv[1:4]
os.makedirs(WORK, exist_ok=True)


def rxt(*args):
    return subprocess.run([RXT, *args, "--plugin", PLUGIN], capture_output=True, text=True)


def write(name, data):
    path = os.path.join(WORK, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def trace(module, *shapes, name):
    path = os.path.join(WORK, name + ".pt")
    torch.jit.trace(module, tuple(torch.randn(*s) for s in shapes), check_trace=False).save(path)
    return path


def imported(pt, options):
    """The module's text (rxt import), or raises with rxt's error."""
    out = os.path.join(WORK, os.path.basename(pt)[:-3] + ".rxt")
    result = rxt("import", pt, "-o", out, "--options", options)
    if result.returncode != 0:
        raise AssertionError(result.stderr)
    with open(out) as f:
        return f.read()


def signature(text):
    """The @backbone's parameter names, and its attributes."""
    params = re.findall(r'(%"[^"]+"|%\w+): Tensor', text[:text.index("{\n  dataflow")])
    attrs = re.search(r"attributes \{param_num = (\d+), state_num = (\d+)\}", text)
    return [p.strip('%"') for p in params], int(attrs.group(1)), int(attrs.group(2))


class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.drop = nn.Dropout(0.25)
        self.fc = nn.Linear(4 * 6 * 6, 5)

    def forward(self, x):
        return self.fc(self.drop(torch.flatten(torch.relu(self.bn(self.conv(x))), 1)))


class Unsupported(nn.Module):
    def forward(self, x):
        return torch.cumprod(torch.atan2(x, x), 1) + torch.cumprod(x, 0)


class Scripted(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        if self.training:
            x = x * 2.0
        if x.dim() == 2:
            x = torch.relu(x)
        return self.fc(x)


class Tied(nn.Module):
    """A weight shared by two layers, and a parameter no op uses."""
    def __init__(self):
        super().__init__()
        self.enc, self.dec = nn.Linear(6, 6), nn.Linear(6, 6)
        self.dec.weight = self.enc.weight
        self.unused = nn.Parameter(torch.ones(3))

    def forward(self, x):
        return self.dec(torch.relu(self.enc(x)))


class Looped(nn.Module):
    def forward(self, x):
        if x.size(2) != 4:
            raise ValueError("expected 4 features, got {}".format(x.size(2)))
        y = x
        for i in range(x.size(1)):
            y = torch.relu(y) * float(i + 1)
        if x.dim() == 3:
            y = torch.sigmoid(y)
        return y


class TwoInputs(nn.Module):
    def forward(self, a, b):
        return torch.cat([a, b.transpose(0, 1)], 1).sum(1)


class BadFiles(unittest.TestCase):
    def assertRefused(self, path, message):
        result = rxt("import", path, "-o", os.path.join(WORK, "out.rxt"), "--options", "shape=batch;3;6;6")
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertTrue(result.stderr.startswith(f"rxt: error: {path}: torchscript importer: "), result.stderr)
        self.assertIn(message, result.stderr)
        self.assertEqual(result.stderr.count("\n"), 1, result.stderr)  # one line, no backtrace

    def test_not_a_zip(self):
        self.assertRefused(write("text.pt", b"this is not a model\n"), "not a TorchScript module: not a zip archive")

    def test_empty_file(self):
        self.assertRefused(write("empty.pt", b""), "not a TorchScript module: not a zip archive")

    def test_truncated_file(self):
        with open(trace(Small().train(), (2, 3, 6, 6), name="whole"), "rb") as f:
            data = f.read()
        for cut in (len(data) // 2, len(data) - 30, 100):
            self.assertRefused(write("truncated.pt", data[:cut]), "libtorch cannot load it as a TorchScript module: ")

    def test_a_file_libtorch_crashes_on_is_refused(self):
        # Found by fuzzing: libtorch frees a pointer it did not allocate formatting its error
        # about this module's code (glibc aborts); the import runs in a child process.
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "libtorch_crash.pt")
        self.assertRefused(path, "libtorch crashed (Aborted) loading or converting the module: the file is malformed")

    def test_a_state_dict(self):
        path = os.path.join(WORK, "state_dict.pt")
        torch.save(Small().state_dict(), path)
        self.assertRefused(path, "not a TorchScript module: a file of torch.save (a state_dict or a pickled object")

    def test_a_legacy_pickle(self):
        path = os.path.join(WORK, "legacy.pt")
        torch.save(Small().state_dict(), path, _use_new_zipfile_serialization=False)
        self.assertRefused(path, "not a TorchScript module: a pickle (torch.save's legacy format")

    def test_unsupported_ops_are_listed_at_once(self):
        path = trace(Unsupported(), (2, 3), name="unsupported")
        result = rxt("import", path, "-o", os.path.join(WORK, "out.rxt"), "--options", "shape=2;3")
        self.assertEqual(result.returncode, 1)
        self.assertRegex(result.stderr, r"unsupported ops: aten::atan2 \(1 node, first aten::atan2 \(%\S+, at \S+importer_test.py:\d+:\d+\)\), "
                                        r"aten::cumprod \(2 nodes, first aten::cumprod \(%\S+, at \S+importer_test.py:\d+:\d+\)\)")


class Options(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.manual_seed(0)
        cls.pt = trace(Small().train(), (2, 3, 6, 6), name="small")

    def test_training_import_names_params_and_states_as_torch(self):
        text = imported(self.pt, "shape=batch;3;6;6")
        params, param_num, state_num = signature(text)
        self.assertEqual(params, ["x", "conv.weight", "conv.bias", "bn.weight", "bn.bias", "fc.weight", "fc.bias",
                                  "bn.running_mean", "bn.running_var", "rxt_step"])
        self.assertEqual((param_num, state_num), (6, 3))
        self.assertIn("training=true, unbiased_running_var=true", text)
        self.assertIn("nn.dropout(", text)
        self.assertIn("rate=0.25", text)
        self.assertNotIn("num_batches_tracked", text)  # its in-place update is no state
        self.assertIn("Tensor((batch, 3, 6, 6), float32)", text)

    def test_dropout_false_and_training_false(self):
        params, _, state_num = signature(imported(self.pt, "shape=batch;3;6;6, dropout=false"))
        self.assertEqual((params[-2:], state_num), (["bn.running_mean", "bn.running_var"], 2))
        text = imported(self.pt, "shape=batch;3;6;6, training=false")
        params, param_num, state_num = signature(text)
        self.assertEqual((len(params), param_num, state_num), (7, 6, 0))
        self.assertIn("training=false", text)
        self.assertNotIn("nn.dropout", text)

    def test_freeze(self):
        text = imported(self.pt, r"shape=batch;3;6;6, dropout=false, freeze=conv\..*, freeze=bn\..*")
        params, param_num, state_num = signature(text)
        self.assertEqual(params, ["x", "fc.weight", "fc.bias"])
        self.assertEqual((param_num, state_num), (2, 0))  # a frozen batch_norm normalizes with its statistics
        self.assertIn("metadata {", text)

    def test_bad_options(self):
        for options, message in [("shape=batch;3;6;6, speed=fast", "unknown option 'speed'"),
                                 ("shape=batch;3;x-y;6", "option shape: 'x-y'"),
                                 ("shape=y:batch;3;6;6", "input 'x' needs a shape"),
                                 ("", "input 'x' needs a shape: a TorchScript file keeps none"),
                                 ("shape=batch;3;6;6:float8", "option shape: unknown dtype 'float8'"),
                                 ("shape=x:batch;3;6;6:int64", "the input is int64 and the weight float32 (is the input's dtype right?)"),
                                 ("shape=batch;3;6;6, training=maybe", "option training takes true or false"),
                                 ("shape=batch;3;6;6, freeze=(", "option freeze: '(' is not a regular expression"),
                                 ("shape=batch;3;5;6", "aten::linear (%"),
                                 ("shape=batch;3;5;6", "the input's last dim 120 is not the weight's 144 (is the input's shape right?)"),
                                 ("shape=batch;2;6;6", "the input's 2 channels are not the weight's 3")]:
            result = rxt("import", self.pt, "-o", os.path.join(WORK, "out.rxt"), "--options", options)
            self.assertEqual(result.returncode, 1, options)
            self.assertIn(message, result.stderr)
            self.assertEqual(result.stderr.count("\n"), 1, result.stderr)


class Modules(unittest.TestCase):
    def test_scripted_module_takes_the_branches_known_at_import(self):
        path = os.path.join(WORK, "scripted.pt")
        torch.jit.script(Scripted().eval()).save(path)
        text = imported(path, "shape=batch;8")
        self.assertIn("multiply(", text)  # self.training: the import's mode, not the saved one
        self.assertIn("nn.relu(", text)   # x.dim() == 2
        self.assertNotIn("multiply(", imported(path, "shape=batch;8, training=false"))
        self.assertNotIn("nn.relu(", imported(path, "shape=batch;2;8, training=false"))

    def test_scripted_loops_unroll_and_raises_refuse(self):
        path = os.path.join(WORK, "looped.pt")
        torch.jit.script(Looped()).save(path)
        text = imported(path, "shape=batch;3;4")
        self.assertEqual(text.count("nn.relu("), 3)  # for i in range(x.size(1))
        self.assertEqual(text.count("sigmoid("), 1)
        result = rxt("import", path, "-o", os.path.join(WORK, "out.rxt"), "--options", "shape=batch;3;5")
        self.assertEqual(result.returncode, 1)
        self.assertIn("prim::RaiseException (at ", result.stderr)
        self.assertIn("the module raises an exception for these input shapes", result.stderr)

    def test_parameters_are_torchs_tied_ones_once_unused_ones_too(self):
        module = Tied()
        text = imported(trace(module, (2, 6), name="tied"), "shape=batch;6")
        params, param_num, _ = signature(text)
        self.assertEqual(params[1:], [n for n, _ in module.named_parameters()])
        self.assertEqual(param_num, 4)  # unused, enc.weight, enc.bias, dec.bias
        self.assertEqual(text.count('linear(%x, %"enc.weight", %"enc.bias")'), 1)
        self.assertEqual(text.count(', %"enc.weight", %"dec.bias")'), 1)

    def test_two_inputs_by_name(self):
        path = trace(TwoInputs(), (2, 3), (4, 2), name="two")
        text = imported(path, "shape=a:n;3, shape=b:4;n")
        self.assertIn("def @backbone(%a: Tensor((n, 3), float32), %b: Tensor((4, n), float32))", text)
        self.assertIn("-> Tensor((n,), float32)", text)
        # and it runs: equal to PyTorch
        exe = os.path.join(WORK, "two.rxtx")
        self.assertEqual(rxt("build", os.path.join(WORK, "two.rxt"), "-o", exe).returncode, 0)
        rng = np.random.default_rng(0)
        a, b = rng.standard_normal((5, 3)).astype(np.float32), rng.standard_normal((4, 5)).astype(np.float32)
        np.save(os.path.join(WORK, "a.npy"), a)
        np.save(os.path.join(WORK, "b.npy"), b)
        out = os.path.join(WORK, "two_out.npy")
        run = rxt("run", exe, "--fn", "backbone", "-i", f"a={WORK}/a.npy", "-i", f"b={WORK}/b.npy", "-o", out)
        self.assertEqual(run.returncode, 0, run.stderr)
        # atol: an output near 0 comes from cancelling sums of O(1) terms, where float32's
        # summation order alone moves it by ~1e-7 (an unseeded run once met -9e-4 off by 5e-8).
        np.testing.assert_allclose(np.load(out), TwoInputs()(torch.from_numpy(a), torch.from_numpy(b)).numpy(),
                                   rtol=1e-5, atol=1e-6)


if __name__ == "__main__":
    unittest.main(verbosity=2)
