"""rxt.frontend.from_fx / from_torch on small models: each converter family against torch
(forward and gradients), symbolic dims, eval mode, dropout's per-step masks, and the errors:
every unsupported node listed at once, a bad input_info, an rxt error naming its node."""
import copy

import numpy as np
import pytest
import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F

import rxt
from rxt import frontend
from rxt.training import value_and_grad

from models import forward, relative_error


def check_against_torch(model, x, targets=None, limit=1e-4, **options):
    """Forward and every gradient (cross entropy on 10 classes) within |limit| of float64 torch."""
    model = model.train()
    backbone = frontend.from_torch(model, torch.from_numpy(x), dropout=False, **options)
    exact = copy.deepcopy(model).double()
    want = exact(torch.from_numpy(x).double())
    got = forward(backbone, x)[0]
    assert relative_error(got, want.detach().numpy()) <= 1e-5
    targets = np.arange(x.shape[0]) % 10 if targets is None else targets
    loss, grads = value_and_grad(backbone, x, targets)
    F.cross_entropy(want, torch.from_numpy(targets)).backward()
    # A gradient that is 0 in exact arithmetic (a bias a BatchNorm cancels) has no relative
    # error: the scale is at least 1e-3 of the largest gradient.
    floor = 1e-3 * max(float(p.grad.abs().max()) for p in exact.parameters())
    for n, p in exact.named_parameters():
        scale = max(float(p.grad.abs().max()), floor)
        assert float(np.max(np.abs(grads[n] - p.grad.numpy()))) / scale <= limit, n
    return backbone


class Elementwise(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, 12)
        self.head = nn.Linear(12 * 7, 10)

    def forward(self, x):
        y = self.fc(x)
        parts = [F.gelu(y, approximate="tanh"), F.hardswish(y), F.leaky_relu(y, 0.1), torch.sigmoid(y) * 2 - 1,
                 torch.clamp(y, -0.5, 0.5) + torch.tanh(y) / 3, F.silu(1 - y), (y ** 2 + 1).rsqrt() * F.relu6(y)]
        return self.head(torch.cat(parts, dim=1))


class Shapes(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(24, 24)
        self.head = nn.Linear(50, 10)

    def forward(self, x):
        b = x.size(0)
        y = self.fc(x).view(b, 4, 6)
        halves = y.chunk(2, dim=2)  # (a Proxy cannot be unpacked while tracing)
        a, c = halves[0], halves[1]
        t = a.transpose(1, 2).contiguous().reshape(b, -1)                  # (b, 12)
        s = torch.stack([c[:, 0], c[:, -1]], dim=1).flatten(1)             # (b, 6)
        p = y.permute(0, 2, 1)[:, 1:5, ::2]                                  # (b, 4, 2)
        m = y.mean(dim=-1, keepdim=True).expand(b, 4, 6)[..., 0]           # (b, 4)
        v = y.var(dim=1) + y.sum(1) / y.shape[1]                           # (b, 6)
        w = torch.where(y > 0, y, torch.zeros_like(y)).masked_fill(y < -1, 0.5).amax(dim=2)  # (b, 4)
        q = torch.matmul(y, y.transpose(1, 2)).softmax(-1).unsqueeze(1).squeeze(1).flatten(1)  # (b, 16)
        e = torch.split(y, [2, 2], dim=1)[1].log_softmax(dim=2).flatten(1)   # (b, 12)
        return self.head(torch.cat([t, s, p.flatten(1), m, v, w, q[:, :4], e[:, :4], x[:, :2]], dim=1))


class Convs(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(3, 4, 3, padding="same")
        self.c2 = nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2)
        self.bn = nn.BatchNorm1d(4)
        self.ln = nn.LayerNorm(8)
        self.head = nn.Linear(6 * 2 * 2 + 4 * 8, 10)

    def forward(self, x):                                                    # (b, 3, 8)
        h = self.ln(self.bn(self.c1(x)))                                     # (b, 4, 8)
        img = h.unsqueeze(-1).expand(-1, 4, 8, 8)                           # (b, 4, 8, 8)
        z = F.avg_pool2d(torch.relu(self.c2(img)), 2, count_include_pad=False)  # (b, 6, 2, 2)
        return self.head(torch.cat([z.flatten(1), F.layer_norm(h, (8,)).flatten(1)], 1))


@pytest.mark.parametrize("model, shape", [(Elementwise, (6, 12)), (Shapes, (6, 24)), (Convs, (6, 3, 8))])
def test_converters_match_torch(model, shape):
    torch.manual_seed(0)
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    check_against_torch(model(), x)


class Attention(nn.Module):
    """MultiheadAttention with (length, batch, embed) inputs, a float mask and its weights; a
    pre-norm TransformerEncoder with GELU and a key padding mask."""

    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(16, 4)
        layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(16))
        self.head = nn.Linear(16 + 5, 10)

    def forward(self, x, mask, padding):                                   # x (b, 5, 16)
        seq_first = x.transpose(0, 1)
        attended = self.attn(seq_first, seq_first, seq_first, attn_mask=mask)
        out, weights = attended[0], attended[1]
        encoded = self.encoder(out.transpose(0, 1), src_key_padding_mask=padding)
        return self.head(torch.cat([encoded.mean(dim=1), weights.sum(dim=1)], dim=1))


def test_attention_modules_match_torch():
    torch.manual_seed(0)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 5, 16)).astype(np.float32)
    mask = np.triu(np.full((5, 5), -1e9, dtype=np.float32), 1)
    padding = np.zeros((3, 5), dtype=bool)
    padding[1, 3:] = True
    model = Attention().train()
    backbone = frontend.from_torch(model, (torch.from_numpy(x), torch.from_numpy(mask), torch.from_numpy(padding)))
    exact = copy.deepcopy(model).double()
    want = exact(torch.from_numpy(x).double(), torch.from_numpy(mask).double(), torch.from_numpy(padding))
    assert relative_error(forward(backbone, x, mask, padding)[0], want.detach().numpy()) <= 1e-5
    targets = np.array([1, 2, 3])
    loss, grads = value_and_grad(backbone, (x, mask, padding), targets)
    F.cross_entropy(want, torch.from_numpy(targets)).backward()
    for n, p in exact.named_parameters():
        assert float(np.max(np.abs(grads[n] - p.grad.numpy()))) / max(float(p.grad.abs().max()), 1e-6) <= 1e-4, n


class ViewBatch(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, 3)

    def forward(self, x):
        return self.fc(torch.relu(x.view(x.size(0), -1)))


@pytest.mark.parametrize("model", [lambda: nn.Sequential(nn.Flatten(), nn.Linear(12, 5), nn.ReLU(), nn.Linear(5, 3)),
                                   ViewBatch])
def test_symbolic_batch(model):
    torch.manual_seed(0)
    model = model()
    backbone = frontend.from_fx(torch.fx.symbolic_trace(model), [(("n", 3, 4), "float32")])
    assert "Tensor((n, 3, 4), float32)" in str(backbone)
    for batch in (1, 7):
        x = np.random.default_rng(batch).standard_normal((batch, 3, 4)).astype(np.float32)
        want = model(torch.from_numpy(x)).detach().numpy()
        assert relative_error(forward(backbone, x)[0], want) <= 1e-5


def test_eval_mode_uses_running_statistics():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4), nn.Dropout(0.5), nn.Flatten(), nn.Linear(16, 3))
    with torch.no_grad():  # statistics that are not the batch's
        model(torch.randn(16, 2, 4, 4) * 3 + 1)
    model.eval()
    backbone = frontend.from_torch(model, torch.zeros(2, 2, 4, 4))
    x = np.random.default_rng(0).standard_normal((2, 2, 4, 4)).astype(np.float32)
    outputs = forward(backbone, x)
    assert relative_error(outputs[0], model(torch.from_numpy(x)).detach().numpy()) <= 1e-5
    assert np.array_equal(outputs[1], model[1].running_mean.numpy())  # states unchanged in eval


def test_dropout_draws_a_new_mask_each_step():
    model = nn.Sequential(nn.Linear(64, 64), nn.Dropout(0.25)).train()
    backbone = frontend.from_torch(model, torch.zeros(8, 64))
    assert list(backbone.states) == ["rxt_step"]
    x = np.ones((8, 64), dtype=np.float32)
    vm = rxt.VirtualMachine(rxt.build(rxt.transform.LegalizeOps()(backbone)))
    params = list(backbone.params.values())
    first, step = (np.from_dlpack(t) for t in vm["backbone"](x, *params, np.array(0, dtype=np.int64)))
    second, _ = (np.from_dlpack(t) for t in vm["backbone"](x, *params, step))
    assert int(step) == 1
    dropped = np.mean(first == 0)
    assert 0.15 < dropped < 0.35
    assert not np.array_equal(first == 0, second == 0)
    kept = first != 0
    no_dropout = forward(frontend.from_torch(model, torch.zeros(8, 64), dropout=False), x)[0]
    np.testing.assert_allclose(first[kept], no_dropout[kept] / 0.75, rtol=1e-6)


class Unsupported(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(4, 4)
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        y = torch.cumprod(self.fc(x), dim=1)
        z = torch.cumprod(y, dim=0)          # depends only on an unsupported node: not listed again
        w = torch.fft.fft(self.fc(x)).real
        u = torch.cumprod(self.fc(x) * 2, dim=0)
        return z + w + u + self.gru(x)[0]


def test_every_unsupported_node_is_listed_at_once():
    with pytest.raises(frontend.UnsupportedError) as error:
        frontend.from_torch(Unsupported(), torch.zeros(3, 2, 4))
    message = str(error.value)
    assert "torch.cumprod (2 nodes, first 'cumprod')" in message
    assert "fft" in message and "nn.GRU (node 'gru')" in message
    assert len(error.value.nodes) == 4
    assert error.value.code == "unimplemented"


def test_unsupported_argument_names_what():
    model = nn.Sequential(nn.MaxPool2d(2, return_indices=True))
    with pytest.raises(frontend.UnsupportedError, match="return_indices"):
        frontend.from_torch(model, torch.zeros(1, 1, 4, 4))


def test_bad_input_info_and_shape_errors_name_the_node():
    traced = torch.fx.symbolic_trace(nn.Linear(4, 3))
    with pytest.raises(ValueError, match="1 inputs .* input_info gives 2"):
        frontend.from_fx(traced, [((2, 4), "float32"), ((2, 4), "float32")])
    with pytest.raises(rxt.Error, match=r"node 'linear' \(torch.nn.functional.linear\): linear: input features differ"):
        frontend.from_fx(traced, [((2, 5), "float32")])


def test_docs_list_every_module_the_importer_converts():
    import pathlib
    from rxt.frontend import _registry
    docs = (pathlib.Path(__file__).resolve().parents[4] / "docs" / "python.md").read_text()
    missing = [t.__name__ for t in _registry.MODULES if f"`{t.__name__}`" not in docs]
    assert not missing, f"docs/python.md's table lacks {missing}"


def test_user_converters_add_and_replace_mappings():
    class Model(nn.Module):
        def forward(self, x):
            return torch.special.expit(x).cumsum(1) + torch.relu(x)

    with pytest.raises(frontend.UnsupportedError, match="special_expit"):
        frontend.from_torch(Model(), torch.zeros(2, 3))
    calls = []

    def relu_as_maximum(cx, x, inplace=False):
        calls.append("relu")
        return cx.op("maximum", [x, cx.scalar(0.0, cx.dtype(x))])

    backbone = frontend.from_torch(
        Model(), torch.zeros(2, 3),
        call_function_map={torch.special.expit: lambda cx, x: cx.op("sigmoid", [x]), torch.relu: relu_as_maximum},
        call_method_map={"cumsum": lambda cx, x, dim: calls.append("cumsum") or cx.op("cumsum", [x], axis=dim)})
    assert calls == ["cumsum", "relu"] and "maximum(" in str(backbone)
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    assert relative_error(forward(backbone, x)[0], Model()(torch.from_numpy(x)).numpy()) <= 1e-6


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(4, 4))

    def forward(self, x):
        return x * torch.sigmoid(x @ self.weight.t())


def test_a_module_converter_keeps_a_user_module_whole():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), Gate(), nn.Linear(4, 10))
    seen = []

    def gate(cx, module, name, x):
        seen.append(name)
        w = cx.value_of(f"{name}.weight")
        return cx.op("multiply", [x, cx.op("sigmoid", [cx.op("linear", [x, w])])])

    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    backbone = check_against_torch(model, x, call_module_map={Gate: gate})
    assert seen == ["1"] and "1.weight" in backbone.params


def test_arithmetic_on_a_symbolic_dim_is_refused_by_name():
    class Halves(nn.Module):
        def forward(self, x):
            return x.view(x.size(0) * 2, -1)

    with pytest.raises(frontend.UnsupportedError, match="arithmetic on the symbolic dim n"):
        frontend.from_fx(torch.fx.symbolic_trace(Halves()), [(("n", 4), "float32")])
