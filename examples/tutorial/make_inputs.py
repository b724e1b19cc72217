"""Writes the tutorial's inputs as .npy files (seeded: the same numbers every time)."""
import numpy as np

rng = np.random.default_rng(0)
arrays = {
    "x": rng.standard_normal((8, 4)),
    "w1": rng.standard_normal((4, 16)) * 0.5,
    "b1": rng.standard_normal(16) * 0.1,
    "w2": rng.standard_normal((16, 3)) * 0.5,
    "b2": rng.standard_normal(3) * 0.1,
}
for name, array in arrays.items():
    np.save(f"{name}.npy", array.astype(np.float32))
np.save("labels.npy", rng.integers(0, 3, size=8).astype(np.int64))
print("wrote", ", ".join(f"{name}.npy" for name in [*arrays, "labels"]))
