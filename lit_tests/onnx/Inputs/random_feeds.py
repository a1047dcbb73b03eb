#!/usr/bin/env python3
"""Random float inputs for every input of a model (lit_tests/onnx/einsum.test).

  random_feeds.py MODEL DIR

Writes DIR/NAME.npy per input (uniform in [-2, 2], seeded), DIR/args (the
fuse-run arguments --input NAME=FILE) and DIR/feeds (reference_compare.py's
NAME=FILE arguments), for xargs.
"""
import os
import sys

import numpy as np
import onnx
from onnx import helper


def main():
    model, folder = onnx.load(sys.argv[1]), sys.argv[2]
    rng = np.random.default_rng(21)
    feeds = []
    for value in model.graph.input:
        shape = [d.dim_value for d in value.type.tensor_type.shape.dim]
        dtype = helper.tensor_dtype_to_np_dtype(value.type.tensor_type.elem_type)
        path = os.path.join(folder, value.name + ".npy")
        np.save(path, rng.uniform(-2, 2, shape).astype(dtype))
        feeds.append(f"{value.name}={path}")
    with open(os.path.join(folder, "args"), "w") as f:
        f.write(" ".join("--input " + feed for feed in feeds) + "\n")
    with open(os.path.join(folder, "feeds"), "w") as f:
        f.write(" ".join(feeds) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
