#!/usr/bin/python3
"""Runs ONNX backend test cases (Debian's libonnx-testdata: <case>/model.onnx and
test_data_set_*/{input,output}_N.pb) through rxt: import, build, run each data set, compare
with the expected outputs at ONNX's tolerances (rtol 1e-3, atol 1e-7).

  run_node_cases.py [--report FILE.md] [--round-trip EXPORT_PLUGIN [--ort]] RXT PLUGIN DATA_DIR WORK_DIR CASE...

Prints one line per case (passed / wrong / unsupported / failed to import / not exported /
error) and exits 1 unless every case passed. --round-trip runs each case through the exporter
too: imported, exported to ONNX (rxt export, EXPORT_PLUGIN), the export imported again, and that
is what runs. --ort also runs each export with ONNX Runtime (tests/exporters/onnx/ort.py) and
compares it with the expected outputs the same way ("wrong in ORT", "ORT error"). --report writes the totals and a table per op (each case counts for
every op its model uses) in Markdown. Needs /usr/bin/python3 with python3-onnx and python3-numpy."""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

report = None
export_plugin = None
ort_path = None
while sys.argv[1] in ("--report", "--round-trip", "--ort"):
    if sys.argv[1] == "--ort":
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "exporters", "onnx"))
        import ort  # noqa: E402
        ort_path = ort.find()
        if ort_path is None:
            sys.exit("--ort: ONNX Runtime is not installed (scripts/onnxruntime-setup.sh)")
        del sys.argv[1]
        continue
    if sys.argv[1] == "--report":
        report = sys.argv[2]
    else:
        export_plugin = sys.argv[2]
    del sys.argv[1:3]
rxt, plugin, data_dir, work_dir = sys.argv[1:5]
cases = sys.argv[5:]


def load_tensor(path):
    tensor = TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return tensor.name, numpy_helper.to_array(tensor)


def run(*args):
    return subprocess.run([rxt, *args], capture_output=True, text=True)


def close(got, expected):
    return got.shape == expected.shape and np.allclose(got, expected, rtol=1e-3, atol=1e-7, equal_nan=True)


def check_ort(case_dir, out_dir, exported, input_names):
    """The export run by ONNX Runtime on each data set, against the expected outputs."""
    for set_dir in sorted(d for d in os.listdir(case_dir) if d.startswith("test_data_set_")):
        full = os.path.join(case_dir, set_dir)
        feeds = {}
        for i, name in enumerate(sorted(f for f in os.listdir(full) if f.startswith("input_"))):
            tensor_name, value = load_tensor(os.path.join(full, name))
            path = os.path.join(out_dir, f"{set_dir}_ort_in{i}.npy")
            np.save(path, value)
            feeds[tensor_name or input_names[i]] = path
        try:
            got, _ = ort.run(ort_path, exported, feeds, os.path.join(out_dir, f"{set_dir}_ort"))
        except RuntimeError as e:
            return "ORT error", str(e)
        outputs = sorted(f for f in os.listdir(full) if f.startswith("output_"))
        for k, name in enumerate(outputs):
            _, expected = load_tensor(os.path.join(full, name))
            if k >= len(got) or not close(got[k], expected):
                return "wrong in ORT", f"{set_dir} output {k}"
    return None


def check(case):
    case_dir = os.path.join(data_dir, case)
    out_dir = os.path.join(work_dir, case)
    os.makedirs(out_dir, exist_ok=True)
    module = os.path.join(out_dir, "model.rxt")
    # Inference semantics: BatchNormalization statistics in initializers stay inputs, not states.
    imported = run("import", os.path.join(case_dir, "model.onnx"), "-o", module, "--plugin", plugin,
                   "--options", "training=false")
    if imported.returncode != 0:
        kind = "unsupported" if "unsupported ops" in imported.stderr else "failed to import"
        return kind, imported.stderr.strip()
    if export_plugin:
        exported = os.path.join(out_dir, "exported.onnx")
        ran = run("export", module, "-o", exported, "--plugin", export_plugin)
        if ran.returncode != 0:
            return "not exported", ran.stderr.strip()
        if ort_path:
            model = onnx.load(os.path.join(case_dir, "model.onnx"), load_external_data=False)
            initializers = {t.name for t in model.graph.initializer}
            names = [i.name for i in model.graph.input if i.name not in initializers]
            verdict = check_ort(case_dir, out_dir, exported, names)
            if verdict:
                return verdict
        module = os.path.join(out_dir, "reimported.rxt")
        imported = run("import", exported, "-o", module, "--plugin", plugin, "--options", "training=false")
        if imported.returncode != 0:
            return "error", "the export does not import: " + imported.stderr.strip()
    exe = module[:-4] + ".rxtx"  # its values: module[:-4] + ".safetensors", found by rxt run
    built = run("build", module, "-o", exe, "--no-emit-library")
    if built.returncode != 0:
        return "error", built.stderr.strip()
    # Tensors of the pytorch-* suites carry no names: they go to the graph's inputs in order.
    model = onnx.load(os.path.join(case_dir, "model.onnx"), load_external_data=False)
    initializers = {t.name for t in model.graph.initializer}
    input_names = [i.name for i in model.graph.input if i.name not in initializers]
    for set_dir in sorted(d for d in os.listdir(case_dir) if d.startswith("test_data_set_")):
        full = os.path.join(case_dir, set_dir)
        inputs = sorted(f for f in os.listdir(full) if f.startswith("input_"))
        outputs = sorted(f for f in os.listdir(full) if f.startswith("output_"))
        args = []
        for i, name in enumerate(inputs):
            tensor_name, value = load_tensor(os.path.join(full, name))
            if not tensor_name and i < len(input_names):
                tensor_name = input_names[i]
            path = os.path.join(out_dir, f"{set_dir}_in{i}.npy")
            np.save(path, value)
            args += ["-i", f"{tensor_name}={path}"]
        result_dir = os.path.join(out_dir, set_dir) + "/"
        ran = run("run", exe, "--fn", "backbone", *args, "-o",
                  result_dir if len(outputs) > 1 else os.path.join(out_dir, f"{set_dir}_out.npy"))
        if ran.returncode != 0:
            return "error", ran.stderr.strip()
        for k, name in enumerate(outputs):
            _, expected = load_tensor(os.path.join(full, name))
            got_path = os.path.join(result_dir, f"{k}.npy") if len(outputs) > 1 else os.path.join(out_dir, f"{set_dir}_out.npy")
            got = np.load(got_path)
            if not close(got, expected):
                return "wrong", f"{set_dir} output {k}: max |diff| {np.max(np.abs(got.astype(np.float64) - expected)) if got.shape == expected.shape else 'shape ' + str(got.shape)}"
    return "passed", ""


def ops_of(case):
    model = onnx.load(os.path.join(data_dir, case, "model.onnx"), load_external_data=False)
    return sorted({(n.domain + "." if n.domain not in ("", "ai.onnx") else "") + n.op_type for n in model.graph.node})


def write_report(path, results):
    kinds = ["passed", "wrong", "unsupported", "failed to import", "not exported", "wrong in ORT", "ORT error", "error"]
    totals = {k: sum(1 for v in results.values() if v == k) for k in kinds}
    per_op = {}
    for case, verdict in results.items():
        for op in ops_of(case):
            per_op.setdefault(op, dict.fromkeys(kinds, 0))[verdict] += 1
    with open(path, "w") as f:
        f.write(f"{len(results)} cases: " + ", ".join(f"{totals[k]} {k}" for k in kinds) + "\n\n")
        f.write("| op | " + " | ".join(kinds) + " |\n|---|" + "---|" * len(kinds) + "\n")
        for op in sorted(per_op):
            f.write(f"| {op} | " + " | ".join(str(per_op[op][k]) for k in kinds) + " |\n")


failures = 0
results = {}
for case in cases:
    verdict, detail = check(case)
    results[case] = verdict
    failures += verdict != "passed"
    print(f"{case}: {verdict}" + (f" ({detail.splitlines()[0]})" if detail else ""), flush=True)
if report:
    write_report(report, results)
sys.exit(1 if failures else 0)
