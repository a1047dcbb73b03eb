#!/usr/bin/env python3
"""Compares fuse-run's outputs with onnx's reference evaluator.

  reference_compare.py MODEL OUT NAME=FILE.npy ...

Runs MODEL on the given inputs with onnx.reference.ReferenceEvaluator and
compares each output with OUT/NAME.npy: integers and booleans exactly, floats
within 1e-5 of the output's largest magnitude. Prints one line per output.
"""
import os
import sys

import numpy as np
from onnx.reference import ReferenceEvaluator


def main():
    model, out = sys.argv[1], sys.argv[2]
    feeds = {}
    for spec in sys.argv[3:]:
        name, path = spec.split("=", 1)
        feeds[name] = np.load(path)
    evaluator = ReferenceEvaluator(model)
    failed = 0
    for name, want in zip(evaluator.output_names, evaluator.run(None, feeds)):
        got = np.load(os.path.join(out, name + ".npy"))
        if got.shape != want.shape:
            ok, note = False, f"shape {got.shape}, expected {want.shape}"
        elif np.issubdtype(want.dtype, np.floating):
            scale = max(float(np.abs(want).max()), 1e-30) if want.size else 1.0
            error = float(np.abs(got - want).max()) / scale if want.size else 0.0
            ok, note = error <= 1e-5, f"max error {error:.1e} of the largest magnitude"
        else:
            ok, note = bool(np.array_equal(got, want)), "exact"
        print(f"{name}: {'ok' if ok else 'MISMATCH'} ({note})")
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
