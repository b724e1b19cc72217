"""The arguments of a call described in place (rxt._borrow.ArgumentSlots): whatever the NumPy
array — strided, read-only, bool, byte-swapped, empty, many of them — the function sees its
values; arrays it cannot describe (byte-swapped) go through DLPack's copy instead."""
import numpy as np
import pytest

import rxt

DOUBLE = """def @twice(%x: Tensor((3, 4), float32)) -> Tensor((3, 4), float32) {
  %y = add(%x, %x)
  return %y
}

def @pick(%c: Tensor((3, 4), bool), %x: Tensor((3, 4), float32)) -> Tensor((3, 4), float32) {
  %z = zeros(shape(3, 4), dtype=float32)
  %y = where(%c, %x, %z)
  return %y
}

def @sum8(%a: Tensor((2,), int64), %b: Tensor((2,), int64), %c: Tensor((2,), int64), %d: Tensor((2,), int64),
          %e: Tensor((2,), int64), %f: Tensor((2,), int64), %g: Tensor((2,), int64), %h: Tensor((2,), int64))
    -> Tensor((2,), int64) {
  %ab = add(%a, %b)
  %cd = add(%c, %d)
  %ef = add(%e, %f)
  %gh = add(%g, %h)
  %x = add(%ab, %cd)
  %y = add(%ef, %gh)
  %s = add(%x, %y)
  return %s
}
"""


@pytest.fixture(scope="module")
def vm():
    return rxt.VirtualMachine(rxt.build(rxt.Module.parse(DOUBLE)))


def run(vm, name, *args):
    return np.from_dlpack(vm[name](*args))


def test_layouts_are_read_as_they_are(vm):
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    for x in (base[:3, :4], base[::1, 1:5][:3], base.T[:4, :3].T, np.asfortranarray(base[:3, :4])):
        np.testing.assert_array_equal(run(vm, "twice", x), 2 * np.asarray(x))
    frozen = np.ones((3, 4), dtype=np.float32)
    frozen.flags.writeable = False
    np.testing.assert_array_equal(run(vm, "twice", frozen), 2 * frozen)
    swapped = np.arange(12, dtype=">f4").reshape(3, 4)  # not native: converted on the way
    np.testing.assert_array_equal(run(vm, "twice", swapped), 2 * swapped.astype(np.float32))


def test_bool_arrays_cross(vm):
    mask = np.arange(12).reshape(3, 4) % 3 == 0
    x = np.arange(12, dtype=np.float32).reshape(3, 4) + 1
    np.testing.assert_array_equal(run(vm, "pick", mask, x), np.where(mask, x, 0))


def test_many_arguments_and_wrong_ones(vm):
    args = [np.full(2, i, dtype=np.int64) for i in range(8)]
    np.testing.assert_array_equal(run(vm, "sum8", *args), [28, 28])
    with pytest.raises(rxt.Error, match="argument 0"):
        vm["twice"](np.zeros((3, 4), dtype=np.float64))
    with pytest.raises(rxt.Error):
        vm["twice"](np.zeros((0, 4), dtype=np.float32))
    np.testing.assert_array_equal(run(vm, "twice", np.ones((3, 4), dtype=np.float32)), 2)  # still fine after
