"""NumPy arrays whose memory rxt reads in place. rxt's kernels assume 64-byte aligned buffers,
so an input that is not (NumPy's allocator gives 16) is copied once per call into an aligned
one; an array made here (or one aligned() returns) crosses without a copy, and so does a torch
tensor, which torch allocates 64-byte aligned. Views keep the alignment when their offset is a
multiple of 64 bytes (Fashion-MNIST's rows of 784 float32 are 3136 = 49 x 64 bytes: every batch
of a dataset held in one aligned array is aligned)."""
import math

ALIGNMENT = 64


def empty(shape, dtype="float32"):
    """An uninitialized C-contiguous array of |shape| and |dtype| starting on a 64-byte boundary."""
    import numpy as np  # (numpy is optional for the package, needed here)
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    size = math.prod(shape) * dtype.itemsize
    raw = np.empty(size + ALIGNMENT, dtype=np.uint8)
    offset = -raw.ctypes.data % ALIGNMENT
    return raw[offset:offset + size].view(dtype).reshape(shape)


def zeros(shape, dtype="float32"):
    out = empty(shape, dtype)
    out[...] = 0
    return out


def is_aligned(array):
    """Whether rxt reads |array| in place: C-contiguous and 64-byte aligned."""
    return bool(array.flags.c_contiguous) and array.ctypes.data % ALIGNMENT == 0


def aligned(array):
    """|array| itself if rxt reads it in place, else an aligned copy (made once, for reuse)."""
    import numpy as np
    array = np.asarray(array)
    if is_aligned(array):
        return array
    out = empty(array.shape, array.dtype)
    out[...] = array
    return out
