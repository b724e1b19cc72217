"""rxt.build with its options, executables saved and loaded, and rxt.transform.BindParams with
values in memory (the seed's form) or from a file: each gives the same numbers as the plain
build."""
import os

import numpy as np
import pytest

import rxt
from rxt import transform

MLP = """attributes {param_num = 2, state_num = 0}

def @backbone(%x: Tensor((4, 8), float32), %w: Tensor((8, 3), float32), %b: Tensor((3,), float32))
    -> Tensor((4, 3), float32) {
  %y = matmul(%x, %w)
  %z = add(%y, %b)
  %r = nn.relu(%z)
  return %r
}
"""

rng = np.random.default_rng(0)
X = rng.standard_normal((4, 8)).astype(np.float32)
W = rng.standard_normal((8, 3)).astype(np.float32)
B = rng.standard_normal(3).astype(np.float32)
WANT = np.maximum(X @ W + B, 0)


def run(executable, *args):
    return np.from_dlpack(rxt.VirtualMachine(executable)["backbone"](*args))


@pytest.mark.parametrize("options", [{}, {"opt_level": 0}, {"libraries": "none"}, {"libraries": ["dnnl"]},
                                     {"target": "reference"}])
def test_build_options_give_the_same_numbers(options):
    module = transform.LegalizeOps()(rxt.Module.parse(MLP))
    np.testing.assert_allclose(run(rxt.build(module, **options), X, W, B), WANT, rtol=1e-5, atol=1e-6)


def test_ahead_of_time_kernels_and_saved_executables(tmp_path):
    module = transform.LegalizeOps()(rxt.Module.parse(MLP))
    library = tmp_path / "kernels.so"
    executable = rxt.build(module, emit_library=library)
    assert library.stat().st_size > 0
    executable.save(tmp_path / "mlp.rxtx")
    np.testing.assert_allclose(run(rxt.Executable.load(tmp_path / "mlp.rxtx"), X, W, B), WANT, rtol=1e-5, atol=1e-6)
    with pytest.raises(rxt.Error, match="no_such.rxtx"):
        rxt.Executable.load(tmp_path / "no_such.rxtx")
    # An executable may name a backend this process has not loaded (its kernels compile where it
    # runs); running it here says which backends are loaded.
    elsewhere = rxt.build(module, target="no_such_backend")
    with pytest.raises(rxt.Error, match="no backend 'no_such_backend' is loaded"):
        rxt.VirtualMachine(elsewhere)


def test_bind_params_binds_values_as_constants(tmp_path):
    module = rxt.Module.parse(MLP)
    values = {"w": W, "b": B}
    bound = transform.BindParams("backbone", values)(module)
    assert "%w" not in str(bound).split("{")[0]  # no longer a parameter
    got = run(rxt.build(transform.LegalizeOps()(bound)), X)
    np.testing.assert_allclose(got, WANT, rtol=1e-5, atol=1e-6)
    from rxt._safetensors import write
    write(tmp_path / "values.safetensors", values)
    from_file = transform.BindParams("backbone", tmp_path / "values.safetensors")(module)
    assert str(from_file) == str(bound)
    assert not [f for f in os.listdir(tmp_path) if f != "values.safetensors"]
    with pytest.raises(rxt.Error, match="w"):
        transform.BindParams("backbone", {"w": np.zeros((2, 2), dtype=np.float32)})(module)
