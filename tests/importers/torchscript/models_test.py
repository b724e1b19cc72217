#!/usr/bin/python3
"""Real models through the torchscript importer, against PyTorch: the fixtures of
trace_models.py (an MLP, LeNet-5, a ResNet basic block, torchvision resnet18 and mobilenet_v2, a
transformer encoder layer), traced in train() mode, imported with a symbolic batch.

- training forward: imported for training (the default; dropout=false, as the reference runs
  Dropout as in eval()), built and run: the logits equal PyTorch's train() forward (BatchNorm on
  batch statistics) within 1e-5 relative to the largest logit, and the updated running
  statistics (the states) equal the buffers PyTorch's forward updated, within 1e-5;
- inference forward: imported with training=false, the logits equal PyTorch's eval() forward
  within 1e-5;
- gradients: a cross-entropy loss appended and differentiated (rxt show --passes 'AppendLoss,
  Gradient'), every parameter's gradient equals PyTorch autograd's in float64, training mode,
  within 1e-4 (relative to that gradient's largest element). resnet18's and mobilenet_v2's
  training forward and gradients are traced and run in float64, within 1e-9: in float32 they
  are ill-conditioned (the kinks of ReLU, ReLU6 and max pooling under batch statistics;
  onnx/models_test.py explains it), and their inference forward in float32.

  models_test.py RXT PLUGIN WORK_DIR [MODEL ...]

Needs /usr/bin/python3 with python3-torch and python3-torchvision."""
import os
import re
import subprocess
import sys
import time
import zlib

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_models  # noqa: E402

RXT, PLUGIN, WORK = sys.argv[1:4]
os.makedirs(WORK, exist_ok=True)
# Batch statistics over few values are ill-conditioned: the BatchNorm models run at batch 8
# (resnet18 and mobilenet_v2 on 64x64 inputs, as the onnx test does).
SHAPES = {"mlp": (4, 1, 28, 28), "lenet": (2, 1, 28, 28), "basic_block": (8, 4, 8, 8), "resnet18": (8, 3, 64, 64),
          "mobilenet_v2": (8, 3, 64, 64), "encoder": (2, 32, 64), "ops": (3, 4, 8), "embed": (4, 12)}
SCRIPTED = ["basic_block@script", "encoder@script", "embed@script"]  # torch.jit.script, not trace
# The BatchNorm networks' float32 training is ill-conditioned: ReLU's and max pooling's kinks under
# batch statistics make a float32 gradient differ from the float64 one by up to 4e-2 for some
# inputs (resnet18 at 64x64, batch 8; PyTorch's own float32 gradient as much): their training
# forward and gradients run in float64, within 1e-9.
GRADIENT_IN_FLOAT64 = {"mobilenet_v2", "resnet18"}


def rxt(*args):
    result = subprocess.run([RXT, *args, "--plugin", PLUGIN], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"rxt {' '.join(args)}: {result.stderr.strip()}")
    return result


def relative_error(got, want):
    want = np.asarray(want, dtype=np.float64)
    return float(np.max(np.abs(got.astype(np.float64) - want)) / (np.max(np.abs(want)) + 1e-30))


def shape_option(shape, dtype=None):
    return "shape=batch;" + ";".join(str(d) for d in shape[1:]) + (f":{dtype}" if dtype else "")


def import_module(pt, name, options):
    module = os.path.join(WORK, name + ".rxt")
    rxt("import", pt, "-o", module, "--options", options)
    with open(module) as f:
        input_name = re.search(r"def @backbone\(%(\w+):", f.read()).group(1)
    return module, input_name


def eval_dropout(model):
    for m in model.modules():  # the import (dropout=false) makes Dropout the identity
        if isinstance(m, torch.nn.Dropout):
            m.eval()
    return model


def run_backbone(module, input_name, x, tag):
    exe = module[:-4] + ".rxtx"
    rxt("build", module, "-o", exe)
    np.save(os.path.join(WORK, "x.npy"), x)
    out = os.path.join(WORK, f"{tag}_out") + "/"
    rxt("run", exe, "--fn", "backbone", "-i", f"{input_name}={WORK}/x.npy", "--params", module[:-4] + ".safetensors", "-o", out)
    files = sorted((f for f in os.listdir(out) if f.endswith(".npy")), key=lambda f: int(f.split(".")[0].split("_")[0]))
    return [np.load(os.path.join(out, f)) for f in files]


def check_training_forward(name, module, input_name, x):
    """The worst error of the training forward's logits and updated running statistics."""
    outputs = run_backbone(module, input_name, x, name + "_train")
    model = eval_dropout(trace_models.make(name).train())
    if x.dtype == np.float64:
        model = model.double()
    with torch.no_grad():
        want = model(torch.from_numpy(x))
    errors = [relative_error(outputs[0], want.numpy())]
    buffers = [b for n, b in model.named_buffers() if n.endswith("running_mean") or n.endswith("running_var")]
    if len(outputs) - 1 != len(buffers):
        raise RuntimeError(f"{name}: {len(outputs) - 1} states, PyTorch updates {len(buffers)} running statistics")
    errors += [relative_error(got, b.numpy()) for got, b in zip(outputs[1:], buffers)]
    return max(errors)


def check_inference_forward(name, pt, x):
    module, input_name = import_module(pt, name + "_eval", shape_option(x.shape, "int64" if x.dtype == np.int64 else None) + ", training=false")
    logits = run_backbone(module, input_name, x, name + "_eval")[0]
    with torch.no_grad():
        want = trace_models.make(name).eval()(torch.from_numpy(x))
    return relative_error(logits, want.numpy())


def check_gradients(name, module, input_name, x, targets):
    reference = trace_models.make(name).double().train()
    params = [n for n, _ in reference.named_parameters()]
    grads_list = ", ".join(f'"{n}"' for n in params)
    adjoint = subprocess.run([RXT, "show", module, "--plugin", PLUGIN, "--passes",
                              f"AppendLoss(loss=cross_entropy), Gradient(func_name=backbone_loss, require_grads=[{grads_list}])"],
                             capture_output=True, text=True)
    if adjoint.returncode != 0:
        raise RuntimeError(adjoint.stderr)
    adjoint_path = os.path.join(WORK, f"{name}_adjoint.rxt")
    with open(adjoint_path, "w") as f:
        f.write(adjoint.stdout)
    exe = adjoint_path[:-4] + ".rxtx"
    rxt("build", adjoint_path, "-o", exe)
    np.save(os.path.join(WORK, "x.npy"), x)
    np.save(os.path.join(WORK, "targets.npy"), targets)
    out_dir = os.path.join(WORK, f"{name}_grads") + "/"
    rxt("run", exe, "--fn", "backbone_loss_adjoint", "-i", f"{input_name}={WORK}/x.npy", "-i", f"targets={WORK}/targets.npy",
        "--params", module[:-4] + ".safetensors", "-o", out_dir)

    def torch_gradients(model, dtype):
        inputs = torch.from_numpy(x) if x.dtype == np.int64 else torch.from_numpy(x).to(dtype)
        loss = torch.nn.functional.cross_entropy(eval_dropout(model)(inputs), torch.from_numpy(targets))
        loss.backward()
        return [p.grad.double().numpy() for p in model.parameters()]

    exact = torch_gradients(reference, torch.float64)
    floor = 1e-3 * max(np.max(np.abs(g)) for g in exact)  # a gradient that is 0 in exact arithmetic
    worst, where = 0.0, ""
    for i, pname in enumerate(params):
        scale = max(np.max(np.abs(exact[i])), floor)
        error = float(np.max(np.abs(np.load(os.path.join(out_dir, f"1_{i}.npy")) - exact[i])) / scale)
        if error > worst:
            worst, where = error, pname
    return worst, where


def main(names):
    failures = 0
    for full_name in names:
        start = time.time()
        rng = np.random.default_rng(zlib.crc32(full_name.encode()))  # the same inputs whatever the order
        name = full_name.partition("@")[0]
        shape = SHAPES[name]
        pt = trace_models.trace(full_name, WORK, input_shape=shape[1:])
        if name in trace_models.INT_INPUTS:
            x = rng.integers(0, trace_models.INT_INPUTS[name], shape).astype(np.int64)
        else:
            x = rng.standard_normal(shape).astype(np.float32)
        targets = rng.integers(0, 10, shape[0]).astype(np.int64)
        try:
            inference = check_inference_forward(name, pt, x)
            limit, forward_limit = 1e-4, 1e-5
            if name in GRADIENT_IN_FLOAT64:
                pt = trace_models.trace(full_name, WORK, input_shape=shape[1:], dtype=torch.float64, suffix="_f64")
                x, limit, forward_limit = x.astype(np.float64), 1e-9, 1e-9
            # The training import serves the training forward and the gradients.
            module, input_name = import_module(pt, name + "_train", shape_option(x.shape, "int64" if x.dtype == np.int64 else None) + ", dropout=false")
            forward = check_training_forward(name, module, input_name, x)
            gradient, where = check_gradients(name, module, input_name, x, targets)
        except RuntimeError as e:
            print(f"{full_name:13} FAILED: {e}")
            failures += 1
            continue
        ok = forward <= forward_limit and inference <= 1e-5 and gradient <= limit
        failures += not ok
        print(f"{full_name:13} training forward {forward:.1e} (logits and states; limit {forward_limit:.0e}), inference {inference:.1e} (limit 1e-5)   "
              f"gradients {gradient:.1e} (limit {limit:.0e}, worst: {where})   {time.time() - start:.1f} s   {'ok' if ok else 'FAILED'}",
              flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[4:] or list(SHAPES) + SCRIPTED))
