"""rxt.frontend.import_file: a model file read by rxt's importer plugins (here ONNX, exported by
torch) becomes the same kind of Backbone as from_torch gives: the module's parameter names and
values, the same forward and the same gradients."""
import numpy as np
import pytest
import torch

import rxt
from rxt import frontend
from rxt.training import value_and_grad

from models import forward, make, relative_error


def test_an_onnx_file_imports_like_the_module_it_came_from(tmp_path):
    model = make("lenet").train()
    x = np.random.default_rng(0).standard_normal((2, 1, 28, 28)).astype(np.float32)
    path = tmp_path / "lenet.onnx"
    torch.onnx.export(model, torch.from_numpy(x), str(path), input_names=["input"], output_names=["logits"],
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
    try:
        imported = frontend.import_file(path)
    except rxt.Error as e:
        if "no importer" in str(e):
            pytest.skip(f"the onnx importer plugin is not built: {e}")
        raise
    traced = frontend.from_torch(model, torch.from_numpy(x))
    assert list(imported.params) == list(traced.params)
    for name, value in traced.params.items():
        np.testing.assert_array_equal(imported.params[name], value)
    assert imported.input_names == ["input"] and imported.num_outputs == 1 and imported.state_num == 0
    assert relative_error(forward(imported, x)[0], forward(traced, x)[0]) <= 1e-6
    y = np.array([3, 7])
    loss, grads = value_and_grad(imported, x, y)
    traced_loss, traced_grads = value_and_grad(traced, x, y)
    assert loss == pytest.approx(traced_loss, rel=1e-6)
    for name in grads:
        assert relative_error(grads[name], traced_grads[name]) <= 1e-5, name
    with pytest.raises(rxt.Error, match="missing.onnx"):
        frontend.import_file(tmp_path / "missing.onnx")


def test_a_torchscript_file_imports_like_the_module_it_came_from(tmp_path):
    model = make("basic_block").train()
    x = np.random.default_rng(1).standard_normal((8, 8, 16, 16)).astype(np.float32)
    path = tmp_path / "block.pt"
    torch.jit.trace(model, torch.from_numpy(x)).save(str(path))
    try:
        imported = frontend.from_torchscript(path, "shape=batch;8;16;16, dropout=false")
    except rxt.Error as e:
        if "no importer" in str(e):
            pytest.skip(f"the torchscript importer plugin is not built (libtorch-dev): {e}")
        raise
    traced = frontend.from_torch(model, torch.from_numpy(x), dropout=False)
    assert list(imported.params) == list(traced.params)
    assert list(imported.states) == [n for n in traced.states if not n.endswith("num_batches_tracked")]
    assert imported.num_outputs == 1
    got, want = forward(imported, x), forward(traced, x)
    assert relative_error(got[0], want[0]) <= 1e-6
    y = np.arange(8) % 10
    loss, grads = value_and_grad(imported, x, y)
    traced_loss, traced_grads = value_and_grad(traced, x, y)
    assert loss == pytest.approx(traced_loss, rel=1e-5)
    for name in grads:
        assert relative_error(grads[name], traced_grads[name]) <= 1e-4, name
