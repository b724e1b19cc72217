#!/usr/bin/python3
"""bench/onnx.sh's models: the ONNX fixtures of tests/importers/onnx/export_models.py (resnet18,
the transformer encoder, ...), each also as TorchScript for the libtorch peer (torch.jit.script
of the same module with the same weights).

  onnx_models.py OUT_DIR NAME...

Writes OUT_DIR/<name>.onnx and OUT_DIR/<name>.pt; prints one JSON line per model:
{"name", "onnx", "script", "input_shape" (without the batch)}."""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "importers", "onnx"))
import export_models  # noqa: E402


def main(out_dir, names):
    os.makedirs(out_dir, exist_ok=True)
    for name in names:
        onnx_path = export_models.export(name, out_dir)
        script = torch.jit.script(export_models.make(name))
        script_path = os.path.join(out_dir, f"{name}.pt")
        script.save(script_path)
        print(json.dumps({"name": name, "onnx": onnx_path, "script": script_path,
                          "input_shape": list(export_models.MODELS[name][1])}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
