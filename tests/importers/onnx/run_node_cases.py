#!/usr/bin/python3
"""Runs ONNX backend test cases (Debian's libonnx-testdata: <case>/model.onnx and
test_data_set_*/{input,output}_N.pb) through rxt: import, build, run each data set, compare
with the expected outputs at ONNX's tolerances (rtol 1e-3, atol 1e-7).

  run_node_cases.py [--report FILE.md] [--round-trip EXPORT_PLUGIN [--ort]] RXT PLUGIN DATA_DIR WORK_DIR CASE...

Prints one line per case (passed / passed, inputs bound / wrong / unsupported / failed to
import / not exported / error) and exits 1 unless every case passed. A case whose inputs rxt
needs at compile time (a ReduceSum's axes, a Trilu's k, a Resize's scales...) is imported once
per data set with them bound to that set's values (the importer's bind=INPUT:VALUES option):
"passed, inputs bound". Bound are the integer inputs and those the importer names in its
refusal ("computed at run time (input 2 'scales')"). --round-trip runs each case through the exporter
too: imported, exported to ONNX (rxt export, EXPORT_PLUGIN), the export imported again, and that
is what runs. --ort also runs each export with ONNX Runtime (tests/exporters/onnx/ort.py) and
compares it with the expected outputs the same way ("wrong in ORT", "ORT error"). --report writes the totals and a table per op (each case counts for
every op its model uses) in Markdown. Needs /usr/bin/python3 with python3-onnx and python3-numpy."""
import os
import re
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


def data_sets(case_dir):
    return sorted(d for d in os.listdir(case_dir) if d.startswith("test_data_set_"))


def graph_inputs(case_dir):
    """The graph's inputs that are not initializers: (name, ONNX element type), in order."""
    model = onnx.load(os.path.join(case_dir, "model.onnx"), load_external_data=False)
    initializers = {t.name for t in model.graph.initializer}
    return [(i.name, i.type.tensor_type.elem_type) for i in model.graph.input if i.name not in initializers]


def set_inputs(case_dir, set_dir):
    """The data set's inputs as (graph input name, value); unnamed tensors (the pytorch-* suites)
    go to the graph's inputs in order."""
    full = os.path.join(case_dir, set_dir)
    names = [n for n, _ in graph_inputs(case_dir)]
    out = []
    for i, file in enumerate(sorted(f for f in os.listdir(full) if f.startswith("input_"))):
        tensor_name, value = load_tensor(os.path.join(full, file))
        out.append((tensor_name or (names[i] if i < len(names) else f"input_{i}"), value))
    return out


def run_case(case, out_dir, options, sets, bound=()):
    """Imports |case| with |options| (then exports and imports again with --round-trip), builds it
    and runs it on each data set of |sets| but its inputs in |bound|; None, or (verdict, detail)."""
    case_dir = os.path.join(data_dir, case)
    module = os.path.join(out_dir, "model.rxt")
    imported = run("import", os.path.join(case_dir, "model.onnx"), "-o", module, "--plugin", plugin, "--options", options)
    if imported.returncode != 0:
        kind = "unsupported" if "unsupported ops" in imported.stderr else "failed to import"
        return kind, imported.stderr.strip()
    if export_plugin:
        exported = os.path.join(out_dir, "exported.onnx")
        ran = run("export", module, "-o", exported, "--plugin", export_plugin)
        if ran.returncode != 0:
            return "not exported", ran.stderr.strip()
        if ort_path and not bound:
            verdict = check_ort(case_dir, out_dir, exported, [n for n, _ in graph_inputs(case_dir)])
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
    for set_dir in sets:
        full = os.path.join(case_dir, set_dir)
        outputs = sorted(f for f in os.listdir(full) if f.startswith("output_"))
        args = []
        for i, (name, value) in enumerate(set_inputs(case_dir, set_dir)):
            if name in bound:
                continue
            path = os.path.join(out_dir, f"{set_dir}_in{i}.npy")
            np.save(path, value)
            args += ["-i", f"{name}={path}"]
        result_dir = os.path.join(out_dir, set_dir) + "/"
        single = os.path.join(out_dir, f"{set_dir}_out.npy")
        ran = run("run", exe, "--fn", "backbone", *args, "-o", result_dir if len(outputs) > 1 else single)
        if ran.returncode != 0:
            return "error", ran.stderr.strip()
        for k, name in enumerate(outputs):
            _, expected = load_tensor(os.path.join(full, name))
            got = np.load(os.path.join(result_dir, f"{k}.npy") if len(outputs) > 1 else single)
            if not close(got, expected):
                diff = np.max(np.abs(got.astype(np.float64) - expected)) if got.shape == expected.shape else f"shape {got.shape}"
                return "wrong", f"{set_dir} output {k}: max |diff| {diff}"
    return None


# Inputs rxt needs at compile time (a ReduceSum's axes, a Reshape's shape, a Resize's scales)
# that a case gives at run time: the importer's bind=INPUT:VALUES option makes them constants,
# one import per data set. The integer inputs are bound, and any other input the importer names
# in its refusal ("... computed at run time (input 2 'scales')").
RUN_TIME_INPUT = ("computed at run time", "known only at run time")
INTEGER_TYPES = (TensorProto.INT32, TensorProto.INT64)
NAMED_INPUT = re.compile(r"computed at run time \(input \d+ '([^']+)'\)")


def bind_options(bound):
    def number(v):
        return str(int(v)) if float(v).is_integer() else repr(float(v))
    return "training=false" + "".join(
        f", bind={name}:" + ";".join(number(v) for v in value.flatten()) for name, value in bound.items())


def check(case):
    case_dir = os.path.join(data_dir, case)
    out_dir = os.path.join(work_dir, case)
    os.makedirs(out_dir, exist_ok=True)
    # Inference semantics: BatchNormalization statistics in initializers stay inputs, not states.
    failure = run_case(case, out_dir, "training=false", data_sets(case_dir))
    if failure is None:
        return "passed", ""
    if failure[0] != "unsupported" or not any(text in failure[1] for text in RUN_TIME_INPUT):
        return failure
    types = dict(graph_inputs(case_dir))
    for set_dir in data_sets(case_dir):
        values = dict(set_inputs(case_dir, set_dir))
        names = {name for name in values if types.get(name) in INTEGER_TYPES}
        while True:
            bound = {name: values[name] for name in names}
            bound_failure = run_case(case, out_dir, bind_options(bound), [set_dir], bound) if bound else failure
            named = NAMED_INPUT.findall(bound_failure[1]) if bound_failure else []
            more = {name for name in named if name in values} - names
            if not more:
                break
            names |= more
        if bound_failure is not None:
            return bound_failure
    return "passed, inputs bound", ""


def ops_of(case):
    model = onnx.load(os.path.join(data_dir, case, "model.onnx"), load_external_data=False)
    return sorted({(n.domain + "." if n.domain not in ("", "ai.onnx") else "") + n.op_type for n in model.graph.node})


def write_report(path, results):
    kinds = ["passed", "passed, inputs bound", "wrong", "unsupported", "failed to import", "not exported",
             "wrong in ORT", "ORT error", "error"]
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
    failures += not verdict.startswith("passed")
    print(f"{case}: {verdict}" + (f" ({detail.splitlines()[0]})" if detail else ""), flush=True)
if report:
    write_report(report, results)
sys.exit(1 if failures else 0)
