"""The seed tutorial's Trainer-API code (seed_tutorial.py: only its imports and its model
definition changed) runs on rxt: every call it makes exists and works, and it trains the MLP on
Fashion-MNIST for its 5 epochs.

The seed's settings (SGD 0.01 on a summed loss: steps 64 times a mean's) are unstable in PyTorch
too: the same loop in PyTorch 1.13 ended at 77.0, 63.3, 74.2 and 20.1% (collapsed) over four
unseeded runs. So the run is seeded (torch.manual_seed(0) before the script: the shuffling), where
rxt ends at 79.9% and PyTorch's same loop at 78.7% on this machine; the check stays loose enough
for another CPU's rounding to take another path: 5 accuracies printed, finite losses, and some
epoch at 3x chance or better (a wrong gradient stays at 10%). Needs Debian's dataset-fashion-mnist,
python3-torch, -torchvision and -matplotlib: skipped, saying which, without them."""
import gzip
import math
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

DATA = pathlib.Path("/usr/share/datasets/fashion-mnist")
HERE = pathlib.Path(__file__).resolve().parent
RUN_SEEDED = ("import runpy, sys, torch; torch.manual_seed(0); "
              "runpy.run_path(sys.argv[1], run_name='__main__')")


def test_the_seed_tutorial_runs_and_learns(tmp_path):
    for module in ("torch", "torchvision", "matplotlib"):
        pytest.importorskip(module, reason=f"/usr/bin/python3 has no {module} (Debian's python3-{module})")
    if not DATA.is_dir():
        pytest.skip(f"no Fashion-MNIST at {DATA} (Debian's dataset-fashion-mnist)")
    raw = tmp_path / ".temp" / "FashionMNIST" / "raw"  # where torchvision looks: it downloads nothing
    raw.mkdir(parents=True)
    for archive in DATA.glob("*-ubyte.gz"):
        with gzip.open(archive) as src, open(raw / archive.name[:-3], "wb") as dst:
            shutil.copyfileobj(src, dst)
    env = dict(os.environ, MPLBACKEND="Agg",
               PYTHONPATH=str(HERE.parents[2] / "abi" / "python") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run([sys.executable, "-c", RUN_SEEDED, str(HERE / "seed_tutorial.py")], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=900)
    print(run.stdout)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-4000:]
    accuracies = [float(a) for a in re.findall(r"Accuracy on test dataset: ([0-9.]+)%", run.stdout)]
    losses = [float(v) for v in re.findall(r"Loss: ([-0-9.einfa]+)", run.stdout)]
    assert len(accuracies) == 5 and len(losses) >= 25, run.stdout
    assert all(math.isfinite(v) for v in losses), run.stdout
    assert max(accuracies) >= 30.0, run.stdout
