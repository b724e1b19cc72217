"""rxt.Tensor: DLPack both ways with NumPy and torch, without copies (the same data pointer),
with the right lifetimes (the producer's memory lives while rxt or a consumer holds it; a capsule
is consumed once), and refusing what it cannot hold."""
import gc

import numpy as np
import pytest

import rxt


def test_numpy_to_rxt_and_back_shares_memory():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = rxt.Tensor.from_dlpack(a)
    assert t.shape == (3, 4) and t.dtype == "float32"
    assert t.data_ptr == a.ctypes.data
    b = np.from_dlpack(t)
    assert b.ctypes.data == a.ctypes.data
    a[1, 2] = 100.0  # one memory: visible through every view
    assert b[1, 2] == 100.0 and t.numpy()[1, 2] == 100.0


def test_the_memory_lives_while_a_consumer_holds_it():
    a = np.full((1000,), 7.0, dtype=np.float64)
    pointer = a.ctypes.data
    t = rxt.Tensor.from_dlpack(a)
    b = np.from_dlpack(t)
    del a, t
    gc.collect()
    filler = [np.full((1000,), -1.0) for _ in range(50)]  # would reuse freed memory
    assert b.ctypes.data == pointer
    assert float(b.sum()) == 7000.0
    del filler


def test_every_export_is_its_own_and_the_tensor_outlives_none():
    t = rxt.Tensor.from_dlpack(np.ones((2, 3), dtype=np.int64))
    views = [np.from_dlpack(t) for _ in range(3)]
    assert len({v.ctypes.data for v in views}) == 1
    del t
    gc.collect()
    assert all(int(v.sum()) == 6 for v in views)


def test_a_capsule_is_consumed_once():
    capsule = np.zeros(4, dtype=np.float32).__dlpack__()
    rxt.Tensor.from_dlpack(capsule)
    with pytest.raises(ValueError, match="consumed once"):
        rxt.Tensor.from_dlpack(capsule)


def test_an_unconsumed_export_frees_itself():
    t = rxt.Tensor.from_dlpack(np.zeros(3, dtype=np.float32))
    for _ in range(100):
        t.__dlpack__()  # dropped at once: each capsule's destructor releases its export
    gc.collect()
    from rxt import tensor
    assert not tensor._exports


# (NumPy 1.24 exports no bool by DLPack.)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int32", "int64", "uint8"])
def test_dtypes_cross_both_ways(dtype):
    a = (np.arange(6) % 2).astype(dtype).reshape(2, 3)
    t = rxt.Tensor.from_dlpack(a)
    assert t.dtype == dtype
    assert np.array_equal(np.from_dlpack(t), a)


def test_strided_views_keep_their_strides():
    a = np.arange(20, dtype=np.float32).reshape(4, 5)[:, 1:4]
    t = rxt.Tensor.from_dlpack(a)
    assert t.shape == (4, 3)
    assert np.array_equal(np.from_dlpack(t), a)


def test_torch_tensors_cross_without_copies():
    torch = pytest.importorskip("torch", reason="python3-torch is not installed")
    x = torch.arange(10, dtype=torch.float32)
    t = rxt.Tensor.from_dlpack(x)
    assert t.data_ptr == x.data_ptr()
    y = torch.from_dlpack(t)
    assert y.data_ptr() == x.data_ptr()
    del x, t
    gc.collect()
    assert float(y.sum()) == 45.0
