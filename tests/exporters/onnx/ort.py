"""ONNX Runtime (npm's onnxruntime-node, installed by scripts/onnxruntime-setup.sh) driven through
ort_run.js: the inference reference of the exporter's tests and of bench/onnx.

  node_path = find()                      # None when it is not installed
  outputs, seconds = run(node_path, "m.onnx", {"input": "x.npy"}, "out_dir", threads=1)
"""
import json
import os
import subprocess

import numpy as np

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ort_run.js")


def find():
    """The NODE_PATH holding onnxruntime-node, or None (no node, or ORT not installed)."""
    base = os.environ.get("RXT_ONNXRUNTIME_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "rxt", "onnxruntime-node")
    modules = os.path.join(base, "node_modules")
    if not os.path.isfile(os.path.join(modules, "onnxruntime-node", "package.json")):
        return None
    if subprocess.run(["node", "--version"], capture_output=True).returncode != 0:
        return None
    return modules


def run(node_path, model, inputs, out_dir, threads=1, repeat=0):
    """Runs |model| on |inputs| ({name: file.npy}); returns ([outputs in the graph's order],
    seconds per run of |repeat| timed runs). Raises RuntimeError with ONNX Runtime's message."""
    args = ["node", SCRIPT, model, str(threads), out_dir] + [f"{k}={v}" for k, v in inputs.items()]
    if repeat:
        args += ["--repeat", str(repeat)]
    result = subprocess.run(args, capture_output=True, text=True, env={**os.environ, "NODE_PATH": node_path})
    if result.returncode != 0:
        raise RuntimeError(result.stderr.strip())
    report = json.loads(result.stdout.strip().splitlines()[-1])
    return [np.load(os.path.join(out_dir, f"{name}.npy")) for name in report["outputs"]], report["seconds_per_run"]
