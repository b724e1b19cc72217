"""rxt.training from Python: the seed's SetupTrainer / Trainer API over the C ABI, checked
against NumPy (one SGD step of a linear model, exactly), on a problem it must learn, and on the
errors it must raise (naming the argument, changing nothing)."""
import numpy as np
import pytest

import rxt
from rxt.training import SetupTrainer, Trainer
from rxt.training.loss import CrossEntropyLoss, MSELoss
from rxt.training.optimizer import SGD, Adam

LINEAR = """attributes {param_num = 2, state_num = 0}

def @backbone(%x: Tensor((8, 4), float32), %w: Tensor((4, 3), float32), %b: Tensor((3,), float32))
    -> Tensor((8, 3), float32) {
  %y = matmul(%x, %w)
  %z = add(%y, %b)
  return %z
}
"""


def linear_trainer(loss=None, optimizer=None, backend=None):
    setup = SetupTrainer(loss or MSELoss(reduction="mean"), optimizer or SGD(0.1))
    return Trainer(rxt.Module.parse(LINEAR), 2, setup).build(backend=backend)


@pytest.mark.parametrize("backend", ["cpu", "reference"])
def test_one_sgd_step_equals_numpy(backend):
    rng = np.random.default_rng(0)
    x, t = rng.standard_normal((8, 4), dtype=np.float32), rng.standard_normal((8, 3), dtype=np.float32)
    w, b = rng.standard_normal((4, 3), dtype=np.float32), rng.standard_normal(3, dtype=np.float32)
    trainer = linear_trainer(backend=backend)
    trainer.load_params({"w": w, "b": b})
    loss = trainer.update_params(x, t)
    z = x.astype(np.float64) @ w + b
    g = 2 * (z - t) / z.size
    assert loss.numpy() == pytest.approx(np.mean((z - t) ** 2), rel=1e-5)
    params = {k: np.from_dlpack(v) for k, v in trainer.export_params().items()}
    np.testing.assert_allclose(params["w"], w - 0.1 * (x.T.astype(np.float64) @ g), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(params["b"], b - 0.1 * g.sum(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.from_dlpack(trainer.predict(x)), x @ params["w"] + params["b"], rtol=1e-5,
                               atol=1e-5)


def test_learns_a_separable_problem():
    rng = np.random.default_rng(1)
    centers = rng.standard_normal((3, 4)).astype(np.float32) * 3
    trainer = linear_trainer(CrossEntropyLoss(), Adam(0.05))
    trainer.xavier_uniform_init_params(seed=3)
    losses = []
    for _ in range(60):
        labels = rng.integers(0, 3, 8)
        x = (centers[labels] + rng.standard_normal((8, 4))).astype(np.float32)
        losses.append(float(trainer.update_params(x, labels.astype(np.int64)).numpy()))
    assert np.mean(losses[-10:]) < 0.5 * np.mean(losses[:10])
    labels = np.arange(8) % 3
    x = (centers[labels] + 0.1 * rng.standard_normal((8, 4))).astype(np.float32)
    assert (np.from_dlpack(trainer.predict(x)).argmax(1) == labels).mean() >= 0.85


def test_the_seed_spelling_and_the_right_one_initialize_alike():
    a, b = linear_trainer(), linear_trainer()
    a.xaiver_uniform_init_params(seed=7)
    b.xavier_uniform_init_params(seed=7)
    for name in ("w", "b"):
        np.testing.assert_array_equal(np.from_dlpack(a.export_params()[name]), np.from_dlpack(b.export_params()[name]))
    assert a.param_names == ["w", "b"]


def test_bad_inputs_raise_and_change_nothing():
    trainer = linear_trainer()
    trainer.xavier_uniform_init_params()
    before = {k: np.from_dlpack(v).copy() for k, v in trainer.export_params().items()}
    with pytest.raises(rxt.Error) as e:
        trainer.update_params(np.zeros((8, 5), np.float32), np.zeros((8, 3), np.float32))
    assert e.value.code == "invalid argument" and "x" in str(e.value)
    with pytest.raises(rxt.Error):
        trainer.update_params(np.zeros((8, 4), np.float64), np.zeros((8, 3), np.float32))
    with pytest.raises(rxt.Error) as e:
        trainer.load_params({"w": np.zeros((3, 4), np.float32)})
    assert "w" in str(e.value)
    with pytest.raises(rxt.Error):
        trainer.load_params({"nope": np.zeros(3, np.float32)})
    after = {k: np.from_dlpack(v) for k, v in trainer.export_params().items()}
    for name in before:
        np.testing.assert_array_equal(before[name], after[name])


def test_learning_rate_is_run_time_state():
    trainer = linear_trainer(optimizer=SGD(0.1))
    assert trainer.learning_rate == pytest.approx(0.1)
    trainer.learning_rate = 0.0
    trainer.xavier_uniform_init_params()
    w = np.from_dlpack(trainer.export_params()["w"]).copy()
    trainer.update_params(np.ones((8, 4), np.float32), np.zeros((8, 3), np.float32))
    np.testing.assert_array_equal(np.from_dlpack(trainer.export_params()["w"]), w)


def test_setup_trainer_makes_the_trainer_module():
    module = SetupTrainer(MSELoss(), SGD(0.1))(rxt.Module.parse(LINEAR))
    text = str(module)
    assert "optim_state" in text and "@backbone" in text
    with pytest.raises(rxt.Error, match="no loss named"):
        SetupTrainer(rxt.training.loss.Loss("no_such_loss"), SGD(0.1))(rxt.Module.parse(LINEAR))


def test_a_trainer_must_be_built_first():
    with pytest.raises(RuntimeError, match="build"):
        Trainer(rxt.Module.parse(LINEAR), 2, SetupTrainer(MSELoss(), SGD(0.1))).predict(np.zeros((8, 4), np.float32))


def test_checkpoints_restore_parameters_optimizer_state_and_step(tmp_path):
    rng = np.random.default_rng(3)
    x, t = rng.standard_normal((8, 4), dtype=np.float32), rng.standard_normal((8, 3), dtype=np.float32)
    trainer = linear_trainer(optimizer=Adam(0.01))
    trainer.xavier_uniform_init_params(seed=1)
    for _ in range(3):
        trainer.update_params(x, t)
    trainer.save_checkpoint(tmp_path / "step3.ckpt")
    after_four = float(trainer.update_params(x, t))
    fifth = float(trainer.update_params(x, t))
    other = linear_trainer(optimizer=Adam(0.01))
    other.load_checkpoint(tmp_path / "step3.ckpt")
    assert float(other.update_params(x, t)) == after_four  # Adam's moments and step came back too
    assert float(other.update_params(x, t)) == fifth
    (tmp_path / "bad.ckpt").write_bytes(b"not a checkpoint")
    with pytest.raises(rxt.Error, match="bad.ckpt"):
        other.load_checkpoint(tmp_path / "bad.ckpt")
    assert float(other.evaluate(x, t)) == float(trainer.evaluate(x, t))  # unchanged by the failed load


def test_trainer_files_go_on_bit_for_bit_and_name_their_problems(tmp_path):
    """save / Trainer.load: the whole trainer in one file, its kernels compiled ahead of time; for
    the baseline x86-64 CPU too (target options); a bad target or file is an rxt.Error."""
    rng = np.random.default_rng(4)
    x, t = rng.standard_normal((8, 4), dtype=np.float32), rng.standard_normal((8, 3), dtype=np.float32)
    trainer = linear_trainer(optimizer=Adam(0.01))
    trainer.xavier_uniform_init_params(seed=2)
    trainer.update_params(x, t)
    trainer.save(tmp_path / "here.rxtt")
    trainer.save(tmp_path / "baseline.rxtt", cpu="x86-64")
    here, baseline = Trainer.load(tmp_path / "here.rxtt"), Trainer.load(tmp_path / "baseline.rxtt")
    assert here.param_names == trainer.param_names
    for _ in range(3):
        expected = float(trainer.update_params(x, t))
        assert float(here.update_params(x, t)) == expected
        assert float(baseline.update_params(x, t)) == expected
    np.testing.assert_array_equal(np.from_dlpack(here.predict(x)), np.from_dlpack(trainer.predict(x)))
    with pytest.raises(rxt.Error, match="cannot compile for 'nonsense-arch-linux'"):
        trainer.save(tmp_path / "never.rxtt", target="nonsense-arch-linux")
    assert not (tmp_path / "never.rxtt").exists()
    with pytest.raises(rxt.Error, match="no_such.rxtt"):
        Trainer.load(tmp_path / "no_such.rxtt")
    (tmp_path / "bad.rxtt").write_bytes(b"not a trainer file")
    with pytest.raises(rxt.Error, match="not an rxt trainer file"):
        Trainer.load(tmp_path / "bad.rxtt")


def test_the_seeds_low_level_api_gives_the_trainers_step():
    """AppendLoss + Gradient + the VM (the seed's Method 2), then SGD by hand, equal the
    Trainer's own step."""
    rng = np.random.default_rng(5)
    x, t = rng.standard_normal((8, 4), dtype=np.float32), rng.standard_normal((8, 3), dtype=np.float32)
    w, b = rng.standard_normal((4, 3), dtype=np.float32), rng.standard_normal(3, dtype=np.float32)
    mod = rxt.transform.AppendLoss("backbone", MSELoss(reduction="mean"))(rxt.Module.parse(LINEAR))
    mod = rxt.transform.Gradient("backbone_loss", require_grads=["w", "b"])(mod)
    vm = rxt.VirtualMachine(rxt.build(rxt.transform.LegalizeOps()(mod)))
    loss, gw, gb = (np.from_dlpack(v) for v in vm["backbone_loss_adjoint"](x, w, b, t))
    trainer = linear_trainer()
    trainer.load_params({"w": w, "b": b})
    assert float(trainer.update_params(x, t)) == pytest.approx(float(loss), rel=1e-6)
    params = {k: np.from_dlpack(v) for k, v in trainer.export_params().items()}
    np.testing.assert_allclose(params["w"], w - 0.1 * gw, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(params["b"], b - 0.1 * gb, rtol=1e-6, atol=1e-7)
