#!/usr/bin/env python3
"""GatherElements against NumPy (lit_tests/onnx/gather-elements.test).

  gather_elements_check.py inputs DIR      writes x.npy, i.npy, j.npy (every
                                           index in range, negative ones
                                           included) and i_bad.npy (one index
                                           past the axis)
  gather_elements_check.py compare DIR OUT compares OUT/{y,z,w,types}.npy
                                           with np.take_along_axis, exactly
"""
import os
import sys

import numpy as np

MODEL_K = np.resize(np.array([2, -1, 0, 1, -3, 1, 0], dtype=np.int64),
                    (2, 5, 6))


def main():
    mode, folder = sys.argv[1], sys.argv[2]
    path = lambda name: os.path.join(folder, name + ".npy")
    if mode == "inputs":
        rng = np.random.default_rng(21)
        np.save(path("x"), rng.uniform(-2, 2, (3, 5, 6)).astype(np.float32))
        np.save(path("i"), rng.integers(-5, 5, (3, 2, 6), dtype=np.int64))
        np.save(path("j"), rng.integers(-6, 6, (3, 5, 2)).astype(np.int32))
        bad = rng.integers(0, 5, (3, 2, 6), dtype=np.int64)
        bad[1, 1, 3] = 5
        np.save(path("i_bad"), bad)
        return 0
    out = sys.argv[3]
    x = np.load(path("x"))
    take = lambda idx, axis: np.take_along_axis(
        x, np.where(idx < 0, idx + x.shape[axis], idx).astype(np.int64), axis)
    expected = {
        "y": take(np.load(path("i")), 1),
        "z": take(np.load(path("j")), 2),
        "w": take(MODEL_K, 0),
        "types": np.arange(6, dtype=np.int64)[None],
        "splat": np.zeros((1, 6), np.int64),
    }
    failed = 0
    for name, want in expected.items():
        got = np.load(os.path.join(out, name + ".npy"))
        same = got.shape == want.shape and np.array_equal(got, want)
        print(f"{name}: {'ok' if same else 'MISMATCH'}")
        failed += not same
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
