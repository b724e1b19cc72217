"""The installed Python package (P/lib/python3/dist-packages/rxt) finds the installed librxt
beside it (no RXT_LIBRARY) and trains with the installation's plugins. Run by install.python."""
import os
import pathlib
import sys

prefix = pathlib.Path(sys.argv[1]).resolve()
try:
    import numpy as np
except ImportError:
    print("python_check.py: /usr/bin/python3 has no numpy (Debian's python3-numpy): skipped")
    sys.exit(77)
packages = sorted(prefix.glob("lib*/**/python3/dist-packages/rxt")) + sorted(prefix.glob("lib/python3/dist-packages/rxt"))
assert packages, f"no rxt package under {prefix}"
sys.path.insert(0, str(packages[0].parent))
os.environ.pop("RXT_LIBRARY", None)
import rxt  # noqa: E402  (from the installation, without RXT_LIBRARY)
from rxt import _lib  # noqa: E402
from rxt.training import SetupTrainer, Trainer  # noqa: E402
from rxt.training.loss import MSELoss  # noqa: E402
from rxt.training.optimizer import SGD  # noqa: E402

assert pathlib.Path(rxt.__file__).resolve().is_relative_to(prefix), rxt.__file__
assert pathlib.Path(_lib.lib._name).resolve().is_relative_to(prefix), _lib.lib._name
module = rxt.Module.parse("""attributes {param_num = 1, state_num = 0}

def @backbone(%x: Tensor((2, 2), float32), %w: Tensor((2, 2), float32)) -> Tensor((2, 2), float32) {
  %y = matmul(%x, %w)
  return %y
}
""")
trainer = Trainer(module, 1, SetupTrainer(MSELoss(), SGD(0.5))).build(target="reference")
x = np.eye(2, dtype=np.float32)
trainer.load_params({"w": np.zeros((2, 2), np.float32)})
first = float(trainer.update_params(x, x).numpy())
for _ in range(20):
    last = float(trainer.update_params(x, x).numpy())
assert last < 0.01 * first, (first, last)
print(f"installed rxt {rxt.__version__} from {rxt.__file__}: loss {first:.3f} -> {last:.5f}")
