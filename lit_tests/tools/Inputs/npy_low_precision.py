# The .npy files of run-npy-low-precision.mlir, written and checked with
# NumPy.
#   npy_low_precision.py write DIR   writes x.npy (float32) and v1.npy
#                                    (untyped bytes, '|V1', as NumPy saves
#                                    ml_dtypes' float8/int4 arrays)
#   npy_low_precision.py check DIR   prints the dtype and values of
#                                    fuse-run's outputs
import os
import sys

import numpy as np

mode, directory = sys.argv[1], sys.argv[2]
if mode == "write":
    np.save(os.path.join(directory, "x.npy"),
            np.array([1e6, 0.3, -9, 2], dtype=np.float32))
    np.save(os.path.join(directory, "v1.npy"), np.zeros(4, dtype="V1"))
else:
    for name in ("f8", "n", "u"):
        array = np.load(os.path.join(directory, name + ".npy"))
        print(name, array.dtype.str, [float(v) if array.dtype.kind == "f"
                                      else int(v) for v in array])
