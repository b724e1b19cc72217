#!/usr/bin/python3
"""The process that imports a TorchScript file never maps libtorch: the plugin links none, and
its libtorch part (importers/torchscript/libtorch_part.h) is loaded in the import's child
process. Loading libtorch costs ~1.5 s, which every process loading the plugin search path (rxt
build, the Python binding) would pay otherwise.

  host_test.py RXT PYTHON_PACKAGE_DIR LIBRXT WORK_DIR

The .pt file is made by a child /usr/bin/python3 with torch; this process never imports torch."""
import os
import subprocess
import sys
import unittest

RXT, PACKAGE, LIBRXT, WORK = sys.argv[1:5]
del sys.argv[1:5]
os.makedirs(WORK, exist_ok=True)
os.environ["RXT_LIBRARY"] = LIBRXT
sys.path.insert(0, PACKAGE)

import numpy as np  # noqa: E402

import rxt  # noqa: E402
from rxt import frontend  # noqa: E402

TRACE = """
import sys, torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
torch.jit.trace(model, torch.randn(5, 4)).save(sys.argv[1])
x = torch.arange(20, dtype=torch.float32).reshape(5, 4) / 10
print(*model(x).detach().flatten().tolist())
"""


def mapped_libtorch():
    with open("/proc/self/maps") as f:
        return sorted({line.split()[-1] for line in f if "libtorch" in line})


class HostTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pt = os.path.join(WORK, "mlp.pt")
        out = subprocess.run([sys.executable, "-c", TRACE, cls.pt], check=True,
                             capture_output=True, text=True).stdout
        cls.expected = np.array([float(v) for v in out.split()], dtype=np.float32).reshape(5, 2)

    def test_the_importing_process_never_maps_libtorch(self):
        self.assertEqual(mapped_libtorch(), [])
        imported = frontend.from_torchscript(self.pt, "shape=batch;4")
        self.assertEqual(mapped_libtorch(), [], "the import loaded libtorch into the host process")
        # The import really ran libtorch (in its child): the module computes what torch did.
        x = np.arange(20, dtype=np.float32).reshape(5, 4) / 10
        vm = rxt.VirtualMachine(rxt.build(rxt.transform.LegalizeOps()(imported)))
        out = vm["backbone"](x, *imported.params.values())
        np.testing.assert_allclose(np.from_dlpack(out), self.expected, rtol=1e-5, atol=1e-6)

    def test_rxt_loads_every_plugin_without_libtorch(self):
        # LD_DEBUG=files names every library the dynamic loader opens; `rxt plugins` loads them all.
        result = subprocess.run([RXT, "plugins"], capture_output=True, text=True, env={**os.environ, "LD_DEBUG": "files"})
        self.assertEqual(result.returncode, 0, result.stderr[-2000:])
        self.assertIn("rxt_import_torchscript.so", result.stderr)  # LD_DEBUG reports
        self.assertNotIn("libtorch", result.stderr)

    def test_a_missing_libtorch_part_is_a_clear_error(self):
        # A copy of the plugin without its companion directory.
        plugin_dir = os.path.join(WORK, "lone_plugin")
        os.makedirs(plugin_dir, exist_ok=True)
        source = os.path.join(os.path.dirname(LIBRXT), "rxt", "plugins", "rxt_import_torchscript.so")
        lone = os.path.join(plugin_dir, "rxt_import_torchscript.so")
        with open(source, "rb") as f, open(lone, "wb") as g:
            g.write(f.read())
        result = subprocess.run([RXT, "import", self.pt, "-o", os.path.join(WORK, "x.rxt"), "--options",
                                 "shape=batch;4", "--no-search-path", "--plugin", lone],
                                capture_output=True, text=True)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("libtorch part could not be loaded", result.stderr)
        self.assertIn("rxt_torchscript_libtorch.so", result.stderr)


if __name__ == "__main__":
    unittest.main()
