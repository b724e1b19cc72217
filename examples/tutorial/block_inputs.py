"""Writes the inputs of resnet_block.rxt as .npy files (float32; labels none): random values
with a fixed seed, the first convolution's bias large so channel means sit far from zero."""
import numpy as np

rng = np.random.default_rng(7)
shapes = {"x": (8, 4, 6, 6), "w1": (4, 4, 3, 3), "g1": (4,), "be1": (4,), "w2": (4, 4, 3, 3),
          "g2": (4,), "be2": (4,), "r": (8, 4, 6, 6)}
for name, shape in shapes.items():
    np.save(f"{name}.npy", rng.normal(0.0, 1.0, shape).astype(np.float32))
np.save("c1.npy", rng.uniform(50.0, 100.0, (4, 1, 1)).astype(np.float32))
np.save("mean.npy", np.zeros(4, np.float32))
np.save("var.npy", np.ones(4, np.float32))
