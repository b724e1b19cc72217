#!/usr/bin/python3
"""Real models through the onnx importer, against PyTorch: the fixtures of export_models.py
(LeNet-5, a transformer encoder, torchvision resnet18 and mobilenet_v2, and two small models of
ops the importer lowers to others: Resize and Pad modes, Einsum, 3-D convolution and pooling),
exported in eval mode.

- forward: imported for inference (--options training=false), built and run, the logits equal
  PyTorch's eval forward within 1e-5 (relative to the largest logit);
- bound forward: the same built with the weights bound as constants (rxt build --bind-params,
  where batch normalizations fold into the convolutions and taps that read only padding are
  cut), within 1e-5 too;
- gradients: imported for training (BatchNormalization on batch statistics), a cross-entropy
  loss appended and differentiated (rxt show --passes 'AppendLoss, Gradient'), every
  parameter's gradient equals PyTorch autograd's in float64, training mode, within 1e-4
  (relative to that gradient's largest element). mobilenet_v2's float32 gradient is
  ill-conditioned (ReLU6's kinks: changing its input by 1e-7 changes its float64 gradient by
  3e-2, so no float32 result can be within 1e-4, PyTorch's own neither, except by luck): it is
  exported and run in float64, and its gradients must agree within 1e-9.

  models_test.py RXT PLUGIN WORK_DIR [MODEL ...]

Needs /usr/bin/python3 with python3-torch, python3-torchvision and python3-onnx."""
import os
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_models  # noqa: E402

RXT, PLUGIN, WORK = sys.argv[1:4]
os.makedirs(WORK, exist_ok=True)
# Batch statistics over few values are ill-conditioned (at batch 2 and 32x32, resnet18's last
# BatchNorms normalize 2 values each, and PyTorch's own float32 gradients are 17% off float64):
# the BatchNorm models run at batch 8 on 64x64 inputs.
SHAPES = {"lenet": (2, 1, 28, 28), "encoder": (2, 32, 64), "resnet18": (8, 3, 64, 64), "mobilenet_v2": (8, 3, 64, 64),
          "resample": (2, 2, 8, 8), "einsum_attention": (2, 6, 16),
          "volume": (2, 2, 6, 8, 8)}
GRADIENT_IN_FLOAT64 = {"mobilenet_v2"}


def rxt(*args):
    result = subprocess.run([RXT, *args, "--plugin", PLUGIN], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"rxt {' '.join(args)}: {result.stderr.strip()}")
    return result


def relative_error(got, want):
    return float(np.max(np.abs(got.astype(np.float64) - want)) / (np.max(np.abs(want)) + 1e-30))


def check_forward(name, onnx_path, x):
    """The logits' relative errors: with the weights as arguments, and bound as constants."""
    module = os.path.join(WORK, f"{name}_inference.rxt")
    rxt("import", onnx_path, "-o", module, "--options", "training=false")
    exe, bound_exe = module[:-4] + ".rxtx", module[:-4] + "_bound.rxtx"
    rxt("build", module, "-o", exe)
    rxt("build", module, "--bind-params", "-o", bound_exe)
    np.save(os.path.join(WORK, "x.npy"), x)
    out, bound_out = os.path.join(WORK, f"{name}_logits.npy"), os.path.join(WORK, f"{name}_bound_logits.npy")
    rxt("run", exe, "--fn", "backbone", "-i", f"input={WORK}/x.npy", "--params", module[:-4] + ".safetensors", "-o", out)
    rxt("run", bound_exe, "--fn", "backbone", "-i", f"input={WORK}/x.npy", "-o", bound_out)
    with torch.no_grad():
        want = export_models.make(name).eval()(torch.from_numpy(x)).double().numpy()
    return relative_error(np.load(out), want), relative_error(np.load(bound_out), want)


def check_gradients(name, onnx_path, x, targets):
    module = os.path.join(WORK, os.path.basename(onnx_path)[:-5] + ".rxt")
    # PyTorch's reference runs Dropout as in eval() (its masks are its own): so does the import.
    rxt("import", onnx_path, "-o", module, "--options", "dropout=false")
    reference = export_models.make(name).double().train()
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
    rxt("run", exe, "--fn", "backbone_loss_adjoint", "-i", f"input={WORK}/x.npy", "-i", f"targets={WORK}/targets.npy",
        "--params", module[:-4] + ".safetensors", "-o", out_dir)
    def torch_gradients(model, dtype):
        for m in model.modules():  # the import makes Dropout the identity (mobilenet_v2's classifier)
            if isinstance(m, torch.nn.Dropout):
                m.eval()
        loss = torch.nn.functional.cross_entropy(model(torch.from_numpy(x).to(dtype)), torch.from_numpy(targets))
        loss.backward()
        return [p.grad.double().numpy() for p in model.parameters()]

    exact = torch_gradients(reference, torch.float64)
    single = torch_gradients(export_models.make(name).train(), torch.float32)
    # A gradient that is 0 in exact arithmetic (the bias of a BatchNorm whose output the next
    # BatchNorm normalizes) has no relative error: the scale is at least 1e-3 of the largest.
    floor = 1e-3 * max(np.max(np.abs(g)) for g in exact)
    worst, where, torch_worst = 0.0, "", 0.0
    for i, pname in enumerate(params):
        scale = max(np.max(np.abs(exact[i])), floor)
        error = float(np.max(np.abs(np.load(os.path.join(out_dir, f"1_{i}.npy")) - exact[i])) / scale)
        torch_worst = max(torch_worst, float(np.max(np.abs(single[i] - exact[i])) / scale))
        if error > worst:
            worst, where = error, pname
    return worst, where, torch_worst


def main(names):
    failures = 0
    rng = np.random.default_rng(0)
    for name in names:
        shape = SHAPES[name]
        onnx_path = export_models.export(name, WORK, input_shape=shape[1:])
        x = rng.standard_normal(shape).astype(np.float32)
        targets = rng.integers(0, 10, shape[0]).astype(np.int64)
        forward, bound = check_forward(name, onnx_path, x)
        limit = 1e-4
        if name in GRADIENT_IN_FLOAT64:
            onnx_path = export_models.export(name, WORK, input_shape=shape[1:], dtype=torch.float64, suffix="_f64")
            x, limit = x.astype(np.float64), 1e-9
        gradient, where, torch_gradient = check_gradients(name, onnx_path, x, targets)
        ok = forward <= 1e-5 and bound <= 1e-5 and gradient <= limit
        failures += not ok
        print(f"{name:13} forward {forward:.1e}, bound {bound:.1e} (limit 1e-5)   gradients {gradient:.1e} (limit {limit:.0e}, worst: {where}; "
              f"PyTorch float32: {torch_gradient:.1e})   {'ok' if ok else 'FAILED'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[4:] or list(export_models.MODELS)))
