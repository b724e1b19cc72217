#!/usr/bin/python3
"""The onnx importer on small models made here with onnx.helper: what it refuses and how it says
so, what the backbone looks like (parameters, states, names, symbolic dims, folded shape
subgraphs), and numbers from the built backbone checked against NumPy.

  importer_test.py RXT PLUGIN WORK_DIR

Needs /usr/bin/python3 with python3-onnx and python3-numpy (run_with_onnx.sh skips without)."""
import json
import os
import struct
import subprocess
import sys
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RXT, PLUGIN, WORK = sys.argv[1:4]
del sys.argv[1:4]
os.makedirs(WORK, exist_ok=True)


def rxt(*args):
    return subprocess.run([RXT, *args, "--plugin", PLUGIN], capture_output=True, text=True)


def save(model, name, check=True):
    path = os.path.join(WORK, name + ".onnx")
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, path)
    return path


def model(nodes, inputs, outputs, initializers=(), opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def tensor(name, shape, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def load_safetensors(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    dtypes = {"F32": np.float32, "F64": np.float64, "I64": np.int64}
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        out[name] = np.frombuffer(data[begin:end], dtype=dtypes[entry["dtype"]]).reshape(entry["shape"])
    return out


def read(path):
    with open(path) as f:
        return f.read()


def external_tensor(name, dims):
    t = TensorProto()
    t.name, t.data_type = name, TensorProto.FLOAT
    t.dims.extend(dims)
    return t


def import_model(path, *options):
    out = path[:-5] + ".rxt"
    result = rxt("import", path, "-o", out, *options)
    return result, out


def build_and_run(module, inputs, name):
    exe = os.path.join(WORK, name + ".rxtx")
    built = rxt("build", module, "-o", exe, "--no-emit-library")
    assert built.returncode == 0, built.stderr
    # The parameters come from the .safetensors beside the module: copy it beside the executable.
    params = module[:-4] + ".safetensors"
    args = []
    for key, value in inputs.items():
        p = os.path.join(WORK, f"{name}_{key}.npy")
        np.save(p, value)
        args += ["-i", f"{key}={p}"]
    out_dir = os.path.join(WORK, name + "_out") + "/"
    ran = rxt("run", exe, "--fn", "backbone", *args, "--params", params, "-o", out_dir)
    assert ran.returncode == 0, ran.stderr
    return out_dir


class Refusals(unittest.TestCase):
    def test_every_unsupported_op_in_one_error(self):
        nodes = [helper.make_node("Bernoulli", ["x"], ["a"], name="s1"),
                 helper.make_node("Bernoulli", ["a"], ["b"], name="s2"), helper.make_node("Det", ["b"], ["y"], name="c1")]
        path = save(model(nodes, [tensor("x", [2, 2])], [tensor("y", [])]), "unsupported")
        result, _ = import_model(path)
        self.assertEqual(result.returncode, 1)
        self.assertIn(f"rxt: error: {path}: onnx importer: unsupported ops: Bernoulli (2 nodes, first node 0 's1' "
                      "(Bernoulli)), Det (1 node, first node 2 'c1' (Det))", result.stderr)

    def test_an_attribute_without_mapping_is_reported_like_an_op(self):
        nodes = [helper.make_node("ArgMax", ["x"], ["y"], axis=0, select_last_index=1, name="am")]
        x = tensor("x", ["n"])  # select_last_index needs a static axis
        path = save(model(nodes, [x], [tensor("y", [1], TensorProto.INT64)]), "unsupported_attr")
        result, _ = import_model(path)
        self.assertIn("unsupported ops: ArgMax with select_last_index along a non-static axis (1 node, first node 0 'am'",
                      result.stderr)

    def test_a_truncated_file(self):
        path = save(model([helper.make_node("Relu", ["x"], ["y"])], [tensor("x", [2])], [tensor("y", [2])]), "whole")
        with open(path, "rb") as f:
            data = f.read()
        cut = os.path.join(WORK, "truncated.onnx")
        with open(cut, "wb") as f:
            f.write(data[: len(data) // 2])
        result, _ = import_model(cut)
        self.assertEqual(result.returncode, 1)
        self.assertIn(f"{cut}: onnx importer: not an ONNX model (protobuf cannot parse it", result.stderr)

    def test_an_opset_newer_than_known(self):
        m = model([helper.make_node("Relu", ["x"], ["y"])], [tensor("x", [2])], [tensor("y", [2])], opset=18)
        result, _ = import_model(save(m, "opset18"))
        self.assertIn("opset 18 is newer than the newest this importer knows (17, ONNX 1.12)", result.stderr)

    def test_missing_external_data(self):
        w = numpy_helper.from_array(np.ones((2,), np.float32), "w")
        w.data_location = TensorProto.EXTERNAL
        w.ClearField("raw_data")
        entry = w.external_data.add()
        entry.key, entry.value = "location", "weights.bin"
        m = model([helper.make_node("Add", ["x", "w"], ["y"])], [tensor("x", [2])], [tensor("y", [2])], [w])
        result, _ = import_model(save(m, "external", check=False))
        self.assertEqual(result.returncode, 1)
        # ONNX's checker finds it first.
        self.assertRegex(result.stderr, r"onnx importer: ONNX's checker refuses the model: .*tensor name: w.*"
                                        r"weights.bin, but it doesn't exist")

    def test_external_data_outside_the_model_directory(self):
        outside = os.path.join(os.path.dirname(WORK.rstrip("/")), "outside.bin")
        with open(outside, "wb") as f:
            f.write(np.ones(2, np.float32).tobytes())
        w = external_tensor("w", [2])
        w.data_location = TensorProto.EXTERNAL
        entry = w.external_data.add()
        entry.key, entry.value = "location", "../outside.bin"
        m = model([helper.make_node("Add", ["x", "w"], ["y"])], [tensor("x", [2])], [tensor("y", [2])], [w])
        result, _ = import_model(save(m, "escape", check=False))
        self.assertIn("initializer 'w': external data location '../outside.bin' is not a path inside the model's "
                      "directory", result.stderr)

    def test_external_data_beside_the_model(self):
        values = np.arange(6, dtype=np.float32).reshape(2, 3)
        with open(os.path.join(WORK, "present.bin"), "wb") as f:
            f.write(b"\0" * 8 + values.tobytes())
        w = external_tensor("w", [2, 3])
        w.data_location = TensorProto.EXTERNAL
        for key, value in (("location", "present.bin"), ("offset", "8"), ("length", "24")):
            entry = w.external_data.add()
            entry.key, entry.value = key, value
        m = model([helper.make_node("Add", ["x", "w"], ["y"])], [tensor("x", [2, 3])], [tensor("y", [2, 3])], [w])
        result, module = import_model(save(m, "external_present", check=False))
        self.assertEqual(result.returncode, 0, result.stderr)
        np.testing.assert_array_equal(load_safetensors(module[:-4] + ".safetensors")["w"], values)

    def test_an_input_with_a_dim_of_unknown_size(self):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 2])
        m = model([helper.make_node("Relu", ["x"], ["y"])], [x], [tensor("y", [None, 2])])
        result, _ = import_model(save(m, "unknown_dim"))
        self.assertIn("input 'x' has a dim of unknown size (give it a dim_param)", result.stderr)

    def test_an_unknown_option(self):
        path = save(model([helper.make_node("Relu", ["x"], ["y"])], [tensor("x", [2])], [tensor("y", [2])]), "opt")
        result, _ = import_model(path, "--options", "trainnig=false")
        self.assertIn("unknown option 'trainnig' (the onnx importer takes: training=true|false, dropout=true|false, "
                      "freeze=REGEX, bind=INPUT:V;V;...)", result.stderr)
        result, _ = import_model(path, "--options", "training=maybe")
        self.assertIn("option training takes true or false, got 'maybe'", result.stderr)


def batch_norm_model():
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.standard_normal(3).astype(np.float32), name)
             for name in ("bn.weight", "bn.bias", "bn.running_mean")]
    inits.append(numpy_helper.from_array(rng.uniform(0.5, 2, 3).astype(np.float32), "bn.running_var"))
    node = helper.make_node("BatchNormalization", ["x", "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"],
                            ["y"], epsilon=1e-5, momentum=0.9)
    return model([node], [tensor("x", [4, 3, 2, 2])], [tensor("y", [4, 3, 2, 2])], inits), inits


class Backbones(unittest.TestCase):
    def test_batch_norm_statistics_are_states_in_training(self):
        m, inits = batch_norm_model()
        result, module = import_model(save(m, "bn"))
        self.assertEqual(result.returncode, 0, result.stderr)
        text = " ".join(read(module).split())
        self.assertIn("attributes {param_num = 2, state_num = 2}", text)
        self.assertIn("momentum=0.1, training=true, unbiased_running_var=false", text)
        self.assertIn('def @backbone(%x: Tensor((4, 3, 2, 2), float32), %"bn.weight": Tensor((3,), float32), '
                      '%"bn.bias": Tensor((3,), float32), %"bn.running_mean": Tensor((3,), float32), '
                      '%"bn.running_var": Tensor((3,), float32))', text)
        x = np.random.default_rng(1).standard_normal((4, 3, 2, 2)).astype(np.float32)
        out = build_and_run(module, {"x": x}, "bn")
        y, mean, var = (np.load(out + f"{k}.npy") for k in range(3))
        gamma, beta, running_mean, running_var = (numpy_helper.to_array(t) for t in inits)
        batch_mean, batch_var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
        expected = (x - batch_mean[:, None, None]) / np.sqrt(batch_var[:, None, None] + 1e-5)
        expected = expected * gamma[:, None, None] + beta[:, None, None]
        np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)
        # ONNX's momentum weighs the running value; the variance is the population one.
        np.testing.assert_allclose(mean, 0.9 * running_mean + 0.1 * batch_mean, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(var, 0.9 * running_var + 0.1 * batch_var, rtol=1e-5, atol=1e-6)

    def test_batch_norm_for_inference_uses_the_running_statistics(self):
        m, inits = batch_norm_model()
        path = save(m, "bn_inference")
        result, module = import_model(path, "--options", "training=false")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("state_num = 0", read(module))
        x = np.random.default_rng(2).standard_normal((4, 3, 2, 2)).astype(np.float32)
        out = build_and_run(module, {"x": x}, "bn_inference")
        gamma, beta, mean, var = (numpy_helper.to_array(t)[:, None, None] for t in inits)
        np.testing.assert_allclose(np.load(out + "0.npy") if os.path.exists(out + "0.npy") else None,
                                   (x - mean) / np.sqrt(var + 1e-5) * gamma + beta, rtol=1e-5, atol=1e-6)

    def test_names_symbolic_dims_and_folded_shape_subgraphs(self):
        # y = reshape(x @ fc.weight^T, (N, 2, 2)) with the shape computed as torch exports it:
        # Shape -> Gather(0) -> Unsqueeze -> Concat([n, 2, 2]) -> Reshape.
        w = numpy_helper.from_array(np.arange(16, dtype=np.float32).reshape(4, 4) / 10, "fc.weight")
        consts = [helper.make_node("Constant", [], ["zero"], value=numpy_helper.from_array(np.array(0, np.int64))),
                  helper.make_node("Constant", [], ["axes"], value=numpy_helper.from_array(np.array([0], np.int64))),
                  helper.make_node("Constant", [], ["tail"], value=numpy_helper.from_array(np.array([2, 2], np.int64)))]
        nodes = consts + [
            helper.make_node("Gemm", ["x", "fc.weight"], ["h"], transB=1),
            helper.make_node("Shape", ["x"], ["s"]),
            helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
            helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
            helper.make_node("Concat", ["n1", "tail"], ["shape"], axis=0),
            helper.make_node("Reshape", ["h", "shape"], ["y"]),
        ]
        m = model(nodes, [tensor("x", ["batch", 4])], [tensor("y", ["batch", 2, 2])], [w])
        result, module = import_model(save(m, "names"))
        self.assertEqual(result.returncode, 0, result.stderr)
        text = " ".join(read(module).split())
        self.assertIn('%x: Tensor((batch, 4), float32), %"fc.weight": Tensor((4, 4), float32)', text)
        self.assertIn("reshape(", text)
        self.assertIn("shape(batch, 2, 2)", text)
        for folded in ("take(", "concat(", "expand_dims("):
            self.assertNotIn(folded, text)
        params = load_safetensors(module[:-4] + ".safetensors")
        self.assertEqual(list(params), ["fc.weight"])
        np.testing.assert_array_equal(params["fc.weight"], numpy_helper.to_array(w))
        x = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)
        out = build_and_run(module, {"x": x}, "names")
        got = np.load(out + "0.npy") if os.path.exists(out + "0.npy") else None
        np.testing.assert_allclose(got, (x @ numpy_helper.to_array(w).T).reshape(3, 2, 2), rtol=1e-5)

    def test_a_float_initializer_used_only_as_a_bound_is_no_parameter(self):
        low = numpy_helper.from_array(np.array(-0.5, np.float32), "low")
        m = model([helper.make_node("Clip", ["x", "low"], ["y"])], [tensor("x", [3])], [tensor("y", [3])], [low])
        result, module = import_model(save(m, "clip_bound"))
        self.assertEqual(result.returncode, 0, result.stderr)
        text = " ".join(read(module).split())
        self.assertIn("param_num = 0", text)
        self.assertIn("clip(%x, min=-0.5, max=inf)", text)

    def test_run_says_which_parameter_the_params_file_lacks(self):
        w = numpy_helper.from_array(np.ones((2,), np.float32), "w")
        m = model([helper.make_node("Add", ["x", "w"], ["y"])], [tensor("x", [2])], [tensor("y", [2])], [w])
        result, module = import_model(save(m, "lacking"))
        self.assertEqual(result.returncode, 0, result.stderr)
        exe = os.path.join(WORK, "lacking.rxtx")
        self.assertEqual(rxt("build", module, "-o", exe, "--no-emit-library").returncode, 0)
        x = os.path.join(WORK, "lacking_x.npy")
        np.save(x, np.zeros(2, np.float32))
        # Beside the executable: lacking.safetensors (rxt import wrote it beside the module).
        ran = rxt("run", exe, "--fn", "backbone", "-i", f"x={x}")
        self.assertEqual(ran.returncode, 0, ran.stderr)
        self.assertIn("[1, 1]", ran.stdout)
        other = os.path.join(WORK, "other.safetensors")
        self.assertEqual(rxt("run", exe, "--fn", "backbone", "-i", f"x={x}", "-o", other).returncode, 0)
        ran = rxt("run", exe, "--fn", "backbone", "-i", f"x={x}", "--params", other)
        self.assertEqual(ran.returncode, 1)
        self.assertIn(f"backbone: no --input for parameter 'w' (parameters: x, w); {other} has no tensor of that name",
                      ran.stderr)

    def test_dropout_drops_in_training_with_a_step_counter(self):
        ratio = helper.make_tensor("ratio", TensorProto.FLOAT, [], [0.5])
        nodes = [helper.make_node("Dropout", ["x", "ratio"], ["y", "mask"])]
        m = model(nodes, [tensor("x", [1000])], [tensor("y", [1000]), tensor("mask", [1000], TensorProto.BOOL)], [ratio])
        path = save(m, "dropout")
        result, module = import_model(path)
        self.assertEqual(result.returncode, 0, result.stderr)
        text = read(module)
        self.assertIn("state_num = 1", text)
        self.assertIn("nn.dropout(", text)
        self.assertEqual(load_safetensors(module[:-4] + ".safetensors")["rxt_step"].tolist(), 0)
        out = build_and_run(module, {"x": np.ones(1000, dtype=np.float32)}, "dropout")
        y, mask, step = (np.load(out + f"{k}.npy") for k in range(3))
        self.assertEqual(set(np.unique(y).tolist()), {0.0, 2.0})  # kept ones scaled by 1 / (1 - 0.5)
        np.testing.assert_array_equal(mask, y != 0)
        self.assertTrue(400 < np.count_nonzero(y) < 600, np.count_nonzero(y))
        self.assertEqual(step.tolist(), 1)  # the updated step counter, a state
        # dropout=false, or an import for inference: the identity, no state.
        for options in ("dropout=false", "training=false"):
            result, module = import_model(path, "--options", options)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertNotIn("nn.dropout", read(module))
            self.assertIn("state_num = 0", read(module))

    def test_frozen_initializers_are_constants(self):
        # Fine-tuning the head: batch norm's statistics and the first layer frozen.
        m, inits = batch_norm_model()
        path = save(m, "frozen")
        out = path[:-5] + ".rxt"
        result = rxt("import", path, "-o", out, "--freeze", r"bn\.running_.*", "--freeze", "bn.weight")
        self.assertEqual(result.returncode, 0, result.stderr)
        text = " ".join(read(out).split())
        # Only bn.bias trains; the frozen statistics make the normalization inference's.
        self.assertIn("attributes {param_num = 1, state_num = 0}", text)
        self.assertIn('%"bn.bias": Tensor((3,), float32))', text)
        self.assertIn("training=false", text)
        self.assertEqual(list(load_safetensors(out[:-4] + ".safetensors")), ["bn.bias"])
        result = rxt("import", path, "-o", out, "--freeze", "bn.(")
        self.assertIn("option freeze: 'bn.(' is not a regular expression", result.stderr)

    def test_bind_makes_a_run_time_input_a_constant(self):
        # ReduceSum's axes as a graph input: rxt needs them at compile time.
        nodes = [helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0)]
        m = model(nodes, [tensor("x", [2, 3]), tensor("axes", [1], TensorProto.INT64)], [tensor("y", [2])])
        path = save(m, "bind")
        result, _ = import_model(path)
        self.assertIn("ReduceSum with a axes computed at run time (input 1 'axes')", result.stderr)
        result, module = import_model(path, "--options", "bind=axes:1")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn("%axes", read(module))
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        out = build_and_run(module, {"x": x}, "bind")
        np.testing.assert_allclose(np.load(out + "0.npy"), x.sum(axis=1))
        for option, message in [("bind=nope:1", "option bind: the graph has no input 'nope'"),
                                ("bind=axes:1;0", "option bind: input 'axes' holds 1 values, 2 were given"),
                                ("bind=axes:one", "option bind: 'one' in 'axes:one' is not a number"),
                                ("bind=axes", "option bind: 'axes' is not INPUT:VALUES")]:
            result, _ = import_model(path, "--options", option)
            self.assertEqual(result.returncode, 1)
            self.assertIn(message, result.stderr)

    def test_weights_through_the_version_converter_keep_their_values(self):
        # Opset 11, converted to 17: the child process leaves large float initializers' values out
        # of the converter and shape inference and the importer puts them back (onnx_model.cc);
        # a small one (a bias of 3 values) travels with the model. Both keep every value.
        rng = np.random.default_rng(3)
        w = rng.standard_normal((3, 2048)).astype(np.float32)
        b = rng.standard_normal(3).astype(np.float32)
        nodes = [helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)]
        inits = [helper.make_tensor("w", TensorProto.FLOAT, w.shape, w.tobytes(), raw=True),
                 helper.make_tensor("b", TensorProto.FLOAT, b.shape, b.tobytes(), raw=True)]
        m = model(nodes, [tensor("x", [1, 2048])], [tensor("y", [1, 3])], inits, opset=11)
        result, module = import_model(save(m, "weights_converted"))
        self.assertEqual(result.returncode, 0, result.stderr)
        params = load_safetensors(module[:-4] + ".safetensors")
        np.testing.assert_array_equal(params["w"], w)
        np.testing.assert_array_equal(params["b"], b)

    def test_an_old_opset_is_converted(self):
        # Opset 9: Unsqueeze takes axes as an attribute (an input since 13).
        nodes = [helper.make_node("Unsqueeze", ["x"], ["y"], axes=[0])]
        m = model(nodes, [tensor("x", [3])], [tensor("y", [1, 3])], opset=9)
        result, module = import_model(save(m, "opset9"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("expand_dims(%x, axis=[0])", read(module))



def const(name, values, dtype=TensorProto.FLOAT, dims=None):
    values = np.asarray(values)
    return helper.make_tensor(name, dtype, list(values.shape) if dims is None else dims, values.flatten().tolist())


class Lowerings(unittest.TestCase):
    """Ops the importer writes as other ops (Resize, Pad modes, Einsum, the scatters...): what
    they refuse, and that a symbolic batch goes through them."""

    def test_resize_keeps_a_symbolic_batch_and_matches_numpy(self):
        scales = const("scales", [1.0, 1.0, 2.0, 1.5])
        nodes = [helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="nearest", coordinate_transformation_mode="asymmetric",
                                  nearest_mode="floor")]
        m = model(nodes, [tensor("x", ["n", 1, 2, 2])], [tensor("y", ["n", 1, 4, 3])], [scales])
        result, module = import_model(save(m, "resize_batch"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("Tensor((n, 1, 2, 2), float32)", read(module))
        x = np.arange(12, dtype=np.float32).reshape(3, 1, 2, 2)
        out = np.load(build_and_run(module, {"x": x}, "resize_batch") + "0.npy")
        # asymmetric + floor: source index floor(i / scale).
        want = x[:, :, [0, 0, 1, 1], :][:, :, :, [0, 0, 1]]
        np.testing.assert_array_equal(out, want)

    def test_resize_refusals_name_the_problem(self):
        cases = [
            ("scales_run_time", [helper.make_node("Resize", ["x", "", "s"], ["y"])], [tensor("x", [1, 1, 2, 2]), tensor("s", [4])],
             [], "Resize with a scales computed at run time (input 2 's')", [1, 1, "h", "w"]),
            ("scales_count", [helper.make_node("Resize", ["x", "", "s"], ["y"])], [tensor("x", [1, 1, 2, 2])],
             [const("s", [1.0, 2.0])], "Number of elements of input 'scales' must be same as rank of input 'X'", [1, 1, "h", "w"]),
            ("symbolic_resized", [helper.make_node("Resize", ["x", "", "s"], ["y"])], [tensor("x", ["n", 2])],
             [const("s", [2.0, 1.0])], "Resize of a dim that is not static (axis 0)", ["m", 2]),
        ]
        for name, nodes, inputs, inits, message, out_shape in cases:
            with self.subTest(name):
                m = model(nodes, inputs, [tensor("y", out_shape)], inits)
                result, _ = import_model(save(m, name, check=False))
                self.assertEqual(result.returncode, 1)
                self.assertIn(message, result.stderr)

    def test_pad_reflect_and_edge_match_numpy(self):
        pads = const("pads", [0, 1, 0, 2], TensorProto.INT64)
        for mode, numpy_mode in (("reflect", "reflect"), ("edge", "edge")):
            with self.subTest(mode):
                nodes = [helper.make_node("Pad", ["x", "pads"], ["y"], mode=mode)]
                m = model(nodes, [tensor("x", ["n", 3])], [tensor("y", ["n", 6])], [pads])
                result, module = import_model(save(m, "pad_" + mode))
                self.assertEqual(result.returncode, 0, result.stderr)
                x = np.arange(6, dtype=np.float32).reshape(2, 3)
                out = np.load(build_and_run(module, {"x": x}, "pad_" + mode) + "0.npy")
                np.testing.assert_array_equal(out, np.pad(x, ((0, 0), (1, 2)), mode=numpy_mode))

    def test_einsum_matches_numpy_and_refuses_bad_equations(self):
        nodes = [helper.make_node("Einsum", ["a", "b"], ["y"], equation="...ij,...jk->...ik")]
        m = model(nodes, [tensor("a", [2, 3, 4]), tensor("b", [1, 4, 5])], [tensor("y", [2, 3, 5])])
        result, module = import_model(save(m, "einsum_broadcast"))
        self.assertEqual(result.returncode, 0, result.stderr)
        rng = np.random.default_rng(0)
        a, b = rng.standard_normal((2, 3, 4)).astype(np.float32), rng.standard_normal((1, 4, 5)).astype(np.float32)
        out = np.load(build_and_run(module, {"a": a, "b": b}, "einsum_broadcast") + "0.npy")
        np.testing.assert_allclose(out, np.einsum("...ij,...jk->...ik", a, b), rtol=1e-5, atol=1e-6)
        for name, equation, message in (("einsum_terms", "ij->i", "Number of input tensors does not match the operands"),
                                        ("einsum_rank", "ijk,jk->i", "Rank of input 0 does not match the equation indices"),
                                        ("einsum_symbol", "i1,ij->j", "invalid subscript '1' in the equation")):
            with self.subTest(name):
                nodes = [helper.make_node("Einsum", ["a", "b"], ["y"], equation=equation)]
                m = model(nodes, [tensor("a", [2, 2]), tensor("b", [2, 2])], [tensor("y", ["k"])])
                result, _ = import_model(save(m, name, check=False))
                self.assertEqual(result.returncode, 1)
                self.assertIn(message, result.stderr)

    def test_top_k_matches_numpy_with_ties_first_by_index(self):
        for largest in (1, 0):
            with self.subTest(largest=largest):
                nodes = [helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1, largest=largest)]
                m = model(nodes, [tensor("x", ["n", 5])], [tensor("v", ["n", 3]), tensor("i", ["n", 3], TensorProto.INT64)],
                          [const("k", [3], TensorProto.INT64)])
                result, module = import_model(save(m, f"topk{largest}"))
                self.assertEqual(result.returncode, 0, result.stderr)
                x = np.array([[1, 3, 3, 0, 2], [5, -1, 5, 5, 4]], dtype=np.float32)
                out = build_and_run(module, {"x": x}, f"topk{largest}")
                # A stable sort: equal values keep the lower index first.
                order = np.argsort(-x if largest else x, axis=1, kind="stable")[:, :3]
                np.testing.assert_array_equal(np.load(out + "1.npy"), order)
                np.testing.assert_array_equal(np.load(out + "0.npy"), np.take_along_axis(x, order, axis=1))
        nodes = [helper.make_node("TopK", ["x", "k"], ["v", "i"])]
        m = model(nodes, [tensor("x", [2, 100])], [tensor("v", [2, 65]), tensor("i", [2, 65], TensorProto.INT64)],
                  [const("k", [65], TensorProto.INT64)])
        result, _ = import_model(save(m, "topk_large"))
        self.assertIn("TopK with k above 64", result.stderr)

    def test_scatter_and_gather_nd_index_checks(self):
        cases = [
            ("scatter_range", helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=1),
             [tensor("x", [2, 3]), tensor("u", [2, 1])], [const("i", [[3], [0]], TensorProto.INT64)], "index 3 is out of range"),
            ("scatter_run_time", helper.make_node("ScatterElements", ["x", "i", "u"], ["y"]),
             [tensor("x", [2, 3]), tensor("i", [2, 1], TensorProto.INT64), tensor("u", [2, 1])], [],
             "ScatterElements with a indices computed at run time (input 1 'i')"),
            ("scatternd_reduction", helper.make_node("ScatterND", ["x", "i", "u"], ["y"], reduction="max"),
             [tensor("x", [2, 3]), tensor("u", [1, 3])], [const("i", [[1]], TensorProto.INT64)], "ScatterND with reduction max"),
            ("compress_long", helper.make_node("Compress", ["x", "c"], ["y"], axis=0),
             [tensor("x", [2, 3])], [const("c", [1, 0, 1], TensorProto.BOOL)], "the condition is longer than the axis"),
        ]
        for name, node, inputs, inits, message in cases:
            with self.subTest(name):
                result, _ = import_model(save(model([node], inputs, [tensor("y", ["a", "b"])], inits), name, check=False))
                self.assertEqual(result.returncode, 1)
                self.assertIn(message, result.stderr)
        # GatherND with indices given at run time, negative ones included.
        nodes = [helper.make_node("GatherND", ["x", "i"], ["y"])]
        m = model(nodes, [tensor("x", [3, 4]), tensor("i", [2, 2], TensorProto.INT64)], [tensor("y", [2])])
        result, module = import_model(save(m, "gathernd"))
        self.assertEqual(result.returncode, 0, result.stderr)
        x = np.arange(12, dtype=np.float32).reshape(3, 4)
        out = np.load(build_and_run(module, {"x": x, "i": np.array([[2, 1], [-1, -4]], dtype=np.int64)}, "gathernd") + "0.npy")
        np.testing.assert_array_equal(out, [x[2, 1], x[2, 0]])


class TrainingOps(unittest.TestCase):
    """ai.onnx.preview.training's Gradient: rxt's gradient_of, lowered by the LowerGradientOf pass
    (the node suite's optimizers Adagrad/Momentum/Adam are checked by the conformance runner)."""

    @staticmethod
    def gradient_model(name, gradient_inputs, zs=("x",)):
        # y = (x @ w + b)^2 over a symbolic batch; Gradient of y for w and b (x in zs).
        nodes = [helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Add", ["h", "b"], ["z"]),
                 helper.make_node("Mul", ["z", "z"], ["y"]),
                 helper.make_node("Gradient", gradient_inputs, ["dw", "db"], domain="ai.onnx.preview.training",
                                  xs=["w", "b"], zs=list(zs), y="y")]
        g = helper.make_graph(nodes, name, [tensor("x", ["n", 3])],
                              [tensor("y", ["n", 2]), tensor("dw", [3, 2]), tensor("db", [2])],
                              initializer=[const("w", np.arange(6).reshape(3, 2) * 0.1 - 0.2), const("b", [0.5, -0.25])])
        return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid("ai.onnx.preview.training", 1)])

    def test_gradient_matches_numpy_with_a_symbolic_batch(self):
        result, module = import_model(save(self.gradient_model("gradient", ["w", "b", "x"]), "gradient", check=False))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("gradient_of(", read(module))
        x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
        out = build_and_run(module, {"x": x}, "gradient")
        w = (np.arange(6).reshape(3, 2) * 0.1 - 0.2).astype(np.float32)
        z = x @ w + np.array([0.5, -0.25], dtype=np.float32)
        # d sum(z^2) = 2z dz: dw = x^T 2z, db = sum over the batch of 2z.
        np.testing.assert_allclose(np.load(out + "1.npy"), x.T @ (2 * z), rtol=1e-5)
        np.testing.assert_allclose(np.load(out + "2.npy"), (2 * z).sum(axis=0), rtol=1e-5)

    def test_gradient_at_other_values_than_its_xs_is_refused(self):
        m = self.gradient_model("gradient_elsewhere", ["b", "w", "x"])
        result, _ = import_model(save(m, "gradient_elsewhere", check=False))
        self.assertEqual(result.returncode, 1)
        self.assertIn("Gradient with input 0 'b' differs from 'w' (a gradient at other values than the graph's)",
                      result.stderr)

    def test_gradient_names_a_missing_y(self):
        m = self.gradient_model("gradient_no_y", ["w", "b", "x"])
        next(a for a in m.graph.node[3].attribute if a.name == "y").s = b"nowhere"
        result, _ = import_model(save(m, "gradient_no_y", check=False))
        self.assertEqual(result.returncode, 1)
        self.assertIn("nowhere", result.stderr)
        self.assertIn("(Gradient)", result.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
