"""rxt.Tensor: DLPack both ways with NumPy and torch, without copies (the same data pointer),
with the right lifetimes (the producer's memory lives while rxt or a consumer holds it; a capsule
is consumed once), and refusing what it cannot hold."""
import ctypes
import gc

import numpy as np
import pytest

import rxt
from rxt import _dlpack, _lib


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



RECORD = """def @main(%x: Tensor((4, 16), float32)) -> Tensor((4, 16), float32) {
  dataflow {
    %y = call_extern("py.record", (%x,), out_sinfo=Tensor((4, 16), float32))
    output %y
  }
  return %y
}
"""

_ExternFn = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.POINTER(_dlpack.DLTensor)),
                             ctypes.c_int)
_seen = []


@_ExternFn
def _record(user_data, args, num_args):
    """py.record(x) -> a copy of x, noting the address the VM handed over."""
    x, out = args[0].contents, args[1].contents
    _seen.append(x.data + x.byte_offset)
    ctypes.memmove(out.data + out.byte_offset, x.data + x.byte_offset, 4 * 16 * 4)
    return None


@pytest.fixture(scope="module")
def record_vm():
    register = _lib.lib.rxt_extern_register
    register.restype, register.argtypes = _lib.status_t, [ctypes.c_char_p, _ExternFn, ctypes.c_void_p, ctypes.c_int]
    _lib.check(register(b"py.record", _record, None, 1))
    return rxt.VirtualMachine(rxt.build(rxt.Module.parse(RECORD)))


def test_aligned_arrays_cross_the_c_abi_without_a_copy(record_vm):
    """A 64-byte aligned array (rxt.empty / rxt.aligned) is read in place: the kernel gets the
    array's own address. Any other array is copied into aligned memory once per call (the
    kernels assume 64-byte alignment)."""
    x = rxt.empty((4, 16))
    x[...] = np.arange(64, dtype=np.float32).reshape(4, 16)
    assert rxt.arrays.is_aligned(x)
    np.testing.assert_array_equal(np.from_dlpack(record_vm["main"](x)), x)
    assert _seen[-1] == x.ctypes.data
    shifted = rxt.empty(4 * 16 + 4)[4:].reshape(4, 16)  # 16 bytes past a boundary
    shifted[...] = x
    assert not rxt.arrays.is_aligned(shifted)
    np.testing.assert_array_equal(np.from_dlpack(record_vm["main"](shifted)), x)
    assert _seen[-1] != shifted.ctypes.data
    assert rxt.aligned(x) is x
    realigned = rxt.aligned(shifted)
    record_vm["main"](realigned)
    assert rxt.arrays.is_aligned(realigned) and _seen[-1] == realigned.ctypes.data


def test_torch_tensors_cross_without_a_copy(record_vm):
    torch = pytest.importorskip("torch", reason="torch (python3-torch) is not installed")
    x = torch.arange(64, dtype=torch.float32).reshape(4, 16)
    assert x.data_ptr() % 64 == 0  # torch's allocator aligns to 64 bytes
    assert torch.equal(torch.from_dlpack(record_vm["main"](x)), x)
    assert _seen[-1] == x.data_ptr()
