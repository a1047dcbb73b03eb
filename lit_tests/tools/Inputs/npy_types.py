# The .npy files of run-npy-types.mlir, written and checked with NumPy.
#   npy_types.py write DIR   writes a.npy (int16), b.npy (uint8), c.npy
#                            (uint16), d.npy (uint32), e.npy (uint64)
#   npy_types.py check DIR   prints the dtype and values of fuse-run's outputs
import os
import sys

import numpy as np

INPUTS = {
    "a": np.array([-32768, 300, 32767], dtype=np.int16),
    "b": np.array([200, 100, 7], dtype=np.uint8),
    "c": np.array([65535, 40000, 1], dtype=np.uint16),
    "d": np.array([4000000000, 3000000001, 9], dtype=np.uint32),
    "e": np.array([2**64 - 1, 2**63, 5], dtype=np.uint64),
}

mode, directory = sys.argv[1], sys.argv[2]
if mode == "write":
    for name, array in INPUTS.items():
        np.save(os.path.join(directory, name + ".npy"), array)
else:
    for name in sorted(INPUTS):
        array = np.load(os.path.join(directory, name + ".npy"))
        print(name, array.dtype.str, [int(v) for v in array])
