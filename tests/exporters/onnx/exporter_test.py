#!/usr/bin/python3
"""The ONNX exporter (exporters/onnx) on real models, on a trained checkpoint, and on what it
must refuse.

- The fixtures of tests/importers/onnx/export_models.py (LeNet-5, a transformer encoder,
  resnet18, mobilenet_v2; symbolic batch): imported for training (BatchNorm statistics are
  states), exported (rxt export: the backbone at inference), checked with ONNX's full check
  (onnx.checker with strict shape inference); the export imported again and run by rxt equals the
  original model imported for inference and run by rxt (within 1e-6 relative); ONNX Runtime, if
  installed (scripts/onnxruntime-setup.sh), runs the export at batch 2 and 3 (the batch stays
  symbolic) equal to rxt within 1e-5 relative, and equal to its own run of the original model.
- examples/lenet.rxt trained for an epoch (rxt train --checkpoint-dir) and exported from the
  checkpoint: the export, run by rxt and by ONNX Runtime, equals rxt's run of the checkpoint's
  parameters.
- Refusals: ops ONNX cannot express in one error listing each, a layout ONNX lacks, an unknown
  option, a backbone parameter without a value; a refused export leaves the file it would have
  replaced as it was. --bind fixes a symbolic dim.

  exporter_test.py RXT IMPORT_PLUGIN EXPORT_PLUGIN WORK_DIR [MODEL ...]

Needs /usr/bin/python3 with python3-onnx, python3-numpy and python3-torch (the fixtures)."""
import json
import os
import struct
import subprocess
import sys

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "importers", "onnx"))
sys.path.insert(0, HERE)
import export_models  # noqa: E402
import ort  # noqa: E402

RXT, IMPORT_PLUGIN, EXPORT_PLUGIN, WORK = sys.argv[1:5]
SOURCE = os.path.join(HERE, "..", "..", "..")
os.makedirs(WORK, exist_ok=True)
ORT = ort.find()
failures = []
built = set()


def rxt(*args, ok=True):
    result = subprocess.run([RXT, *args, "--plugin", IMPORT_PLUGIN, "--plugin", EXPORT_PLUGIN], capture_output=True,
                            text=True)
    if ok and result.returncode != 0:
        raise RuntimeError(f"rxt {' '.join(args)}: {result.stderr.strip()}")
    return result


def expect(condition, what):
    print(("ok      " if condition else "FAILED  ") + what, flush=True)
    if not condition:
        failures.append(what)


def relative(got, want):
    return float(np.max(np.abs(got.astype(np.float64) - want)) / (np.max(np.abs(want)) + 1e-30))


def run_rxt(module, inputs, out, params=None):
    """Builds |module| and runs its @backbone on |inputs| ({name: array}); returns the output."""
    exe = module[:-4] + ".rxtx"
    if exe not in built:  # once per run (WORK keeps the files of earlier runs)
        rxt("build", module, "-o", exe)
        built.add(exe)
    args = []
    for name, value in inputs.items():
        path = os.path.join(WORK, f"{name}.npy")
        np.save(path, value)
        args += ["-i", f"{name}={path}"]
    rxt("run", exe, "--fn", "backbone", *args, "-o", out, *(["--params", params] if params else []))
    return np.load(out)


def full_check(path):
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    return model


def check_model(name):
    """A fixture: import (training), export, check, re-import, compare; ORT where installed."""
    source = export_models.export(name, WORK)
    module = os.path.join(WORK, f"{name}.rxt")
    rxt("import", source, "-o", module)  # training mode: BatchNorm statistics are states
    exported = os.path.join(WORK, f"{name}_exported.onnx")
    rxt("export", module, "-o", exported)
    model = full_check(exported)
    batch = model.graph.input[0].type.tensor_type.shape.dim[0]
    expect(batch.dim_param != "" and len(model.graph.input) == 1,
           f"{name}: one input, its batch symbolic ('{batch.dim_param}'), the parameters initializers")

    shape = export_models.MODELS[name][1]
    x = np.random.default_rng(1).standard_normal((2, *shape)).astype(np.float32)
    reference_module = os.path.join(WORK, f"{name}_inference.rxt")
    rxt("import", source, "-o", reference_module, "--options", "training=false")
    want = run_rxt(reference_module, {"input": x}, os.path.join(WORK, f"{name}_want.npy"))
    again = os.path.join(WORK, f"{name}_again.rxt")
    rxt("import", exported, "-o", again, "--options", "training=false")
    got = run_rxt(again, {"input": x}, os.path.join(WORK, f"{name}_again.npy"))
    error = relative(got, want)
    expect(error <= 1e-6, f"{name}: the export imported again equals the original (relative error {error:.1e})")
    if ORT is None:
        return
    for batch_size in (2, 3):
        xb = np.random.default_rng(batch_size).standard_normal((batch_size, *shape)).astype(np.float32)
        np.save(os.path.join(WORK, "xb.npy"), xb)
        feeds = {"input": os.path.join(WORK, "xb.npy")}
        (from_export,), _ = ort.run(ORT, exported, feeds, os.path.join(WORK, f"{name}_ort_export"))
        (from_source,), _ = ort.run(ORT, source, feeds, os.path.join(WORK, f"{name}_ort_source"))
        ours = run_rxt(reference_module, {"input": xb}, os.path.join(WORK, f"{name}_b{batch_size}.npy"))
        e1, e2 = relative(from_export, ours), relative(from_export, from_source)
        expect(e1 <= 1e-5 and e2 <= 1e-5, f"{name}: ONNX Runtime runs the export at batch {batch_size}: "
               f"{e1:.1e} from rxt, {e2:.1e} from its run of the original (limit 1e-5)")


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    kinds = {"F32": np.float32, "F64": np.float64, "I64": np.int64, "I32": np.int32}
    out = {}
    for key, info in header.items():
        if key == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        out[key] = np.frombuffer(data[8 + n + begin:8 + n + end], dtype=kinds[info["dtype"]]).reshape(info["shape"])
    return out


def write_safetensors(path, tensors):
    header, offset, blobs = {}, 0, []
    for key, value in tensors.items():
        blob = np.ascontiguousarray(value, dtype=np.float32).tobytes()
        header[key] = {"dtype": "F32", "shape": list(value.shape), "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        blobs.append(blob)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def check_checkpoint():
    """examples/lenet.rxt trained an epoch, exported from its checkpoint."""
    lenet = os.path.join(SOURCE, "examples", "lenet.rxt")
    checkpoints = os.path.join(WORK, "lenet_checkpoints")
    rxt("train", "--model", lenet, "--epochs", "1", "--checkpoint-dir", checkpoints)
    exported = os.path.join(WORK, "lenet_trained.onnx")
    rxt("export", lenet, "--checkpoint", checkpoints, "-o", exported)  # the newest epoch of the directory
    full_check(exported)
    checkpoint = read_safetensors(os.path.join(checkpoints, "epoch-1.safetensors"))
    params = {k[len("param/"):]: v for k, v in checkpoint.items() if k.startswith("param/")}
    params_path = os.path.join(WORK, "lenet_trained.safetensors")
    write_safetensors(params_path, params)
    x = np.random.default_rng(3).random((64, 1, 28, 28)).astype(np.float32)
    module = os.path.join(WORK, "lenet_copy.rxt")
    with open(lenet) as f, open(module, "w") as g:
        g.write(f.read())
    want = run_rxt(module, {"x": x}, os.path.join(WORK, "lenet_want.npy"), params=params_path)
    again = os.path.join(WORK, "lenet_trained_again.rxt")
    rxt("import", exported, "-o", again, "--options", "training=false")
    got = run_rxt(again, {"x": x}, os.path.join(WORK, "lenet_again.npy"))
    expect(relative(got, want) <= 1e-6,
           f"lenet.rxt from its checkpoint: the export imported again equals rxt's run ({relative(got, want):.1e})")
    if ORT is not None:
        np.save(os.path.join(WORK, "x64.npy"), x)
        (from_ort,), _ = ort.run(ORT, exported, {"x": os.path.join(WORK, "x64.npy")}, os.path.join(WORK, "lenet_ort"))
        expect(relative(from_ort, want) <= 1e-5,
               f"lenet.rxt from its checkpoint: ONNX Runtime equals rxt ({relative(from_ort, want):.1e})")


REFUSED = """
def @main(%g: Tensor((1, 2, 4, 4), float32), %w: Tensor((2, 3, 3, 3), float32), %h: Tensor((1, 4, 4, 2), float32),
          %k: Tensor((3, 3, 2, 2), float32)) -> Tuple(Tensor((1, 3, 6, 6), float32), Tensor((1, 2, 2, 2), float32)) {
  %d: Tensor((1, 3, 6, 6), float32) = nn.conv2d_backward_data(%g, %w, data_size=[6, 6])
  %e: Tensor((1, 3, 6, 6), float32) = nn.relu(%d)
  %f: Tensor((1, 2, 2, 2), float32) = nn.conv2d(%h, %k, data_layout="NHWC", kernel_layout="HWIO")
  return (%e, %f)
}
"""

GRADIENT_OF_INTERMEDIATE = """
def @main(%x: Tensor((2,), float32)) -> Tuple(Tensor((2,), float32)) {
  %h: Tensor((2,), float32) = exp(%x)
  %y: Tensor((2,), float32) = multiply(%h, %h)
  %g: Tuple(Tensor((2,), float32)) = gradient_of(%y, (%h,))
  return %g
}
"""


def check_refusals():
    refused = os.path.join(WORK, "refused.rxt")
    with open(refused, "w") as f:
        f.write(REFUSED)
    target = os.path.join(WORK, "kept.onnx")
    with open(target, "w") as f:
        f.write("an earlier export")
    result = rxt("export", refused, "-o", target, ok=False)
    message = result.stderr
    expect(result.returncode == 1 and "ONNX cannot express" in message
           and "nn.conv2d_backward_data (1 binding, first %d" in message
           and 'nn.conv2d (1 binding, first %f: data_layout "NHWC" (ONNX takes NCHW only))' in message
           and "relu" not in message, f"ops ONNX cannot express, in one error: {message.strip()}")
    with open(target) as f:
        expect(f.read() == "an earlier export", "a refused export leaves the existing file as it was")

    # ONNX's Gradient differentiates for graph inputs and initializers only.
    gradient = os.path.join(WORK, "gradient_of_intermediate.rxt")
    with open(gradient, "w") as f:
        f.write(GRADIENT_OF_INTERMEDIATE)
    result = rxt("export", gradient, "-o", os.path.join(WORK, "gradient.onnx"), ok=False)
    expect(result.returncode == 1 and "gradient_of (1 binding, first %g: 'h' is computed in the function" in result.stderr,
           f"gradient_of for a computed value: {result.stderr.strip()}")

    lenet = os.path.join(SOURCE, "examples", "lenet.rxt")
    result = rxt("export", lenet, "-o", os.path.join(WORK, "novalues.onnx"), ok=False)
    expect(result.returncode == 1 and "no value for 'c1w', a parameter or state of the backbone" in result.stderr,
           f"a backbone parameter without a value: {result.stderr.strip()}")
    result = rxt("export", os.path.join(WORK, "lenet.rxt"), "-o", os.path.join(WORK, "x.onnx"), "--options", "opset=13",
                 ok=False)
    expect(result.returncode == 1 and "opset" in result.stderr, f"an unknown option: {result.stderr.strip()}")
    result = rxt("export", os.path.join(WORK, "lenet.rxt"), "-o", os.path.join(WORK, "x.tflite"), ok=False)
    expect(result.returncode == 1 and "no exporter writes" in result.stderr and "onnx (.onnx)" in result.stderr,
           f"an extension no exporter writes: {result.stderr.strip()}")

    bound = os.path.join(WORK, "lenet_bound.onnx")
    rxt("export", os.path.join(WORK, "lenet.rxt"), "-o", bound, "--bind", "batch=5")
    dim = full_check(bound).graph.input[0].type.tensor_type.shape.dim[0]
    expect(dim.dim_value == 5, f"--bind batch=5 fixes the batch (dim {dim})")


def main(names):
    for name in names:
        check_model(name)
    check_checkpoint()
    check_refusals()
    if ORT is None:
        print("note: ONNX Runtime is not installed (scripts/onnxruntime-setup.sh): its comparisons were not run")
    if failures:
        print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[5:] or list(export_models.MODELS)))
