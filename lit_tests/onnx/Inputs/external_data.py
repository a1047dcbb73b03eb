#!/usr/bin/env python3
"""Models whose weights are in external data files (onnx.proto's
external_data), for lit_tests/onnx/external-data.test.

  external_data.py DIR

writes DIR/model/: y = x @ w + b with w and b in weights.bin (w at offset 0,
b after it), and the refused variants: escape.onnx (location ../outside.bin),
absolute.onnx (an absolute path), link.onnx (link.bin, a symbolic link to
DIR/outside.bin), short.onnx (short.bin, shorter than w), length.onnx (a
length that is not w's), offset.onnx (an offset that is not a number),
huge_offset.onnx (an offset past 2^63), far_offset.onnx (an offset that
passes 2^63 with w's bytes), key.onnx (a key onnx.proto does not have);
DIR/x.npy.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def model(folder, name, w_entries, b_entries):
    def external(tensor_name, dims, entries):
        t = TensorProto()
        t.name = tensor_name
        t.data_type = TensorProto.FLOAT
        t.dims.extend(dims)
        t.data_location = TensorProto.EXTERNAL
        for key, value in entries.items():
            e = t.external_data.add()
            e.key, e.value = key, str(value)
        return t
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["xw"], name="matmul"),
         helper.make_node("Add", ["xw", "b"], ["y"], name="bias")],
        name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 5])],
        initializer=[external("w", [4, 5], w_entries),
                     external("b", [5], b_entries)])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    with open(os.path.join(folder, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())


def main():
    root = sys.argv[1]
    folder = os.path.join(root, "model")
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(11)
    w = rng.uniform(-1, 1, (4, 5)).astype(np.float32)
    b = rng.uniform(-1, 1, (5,)).astype(np.float32)
    with open(os.path.join(folder, "weights.bin"), "wb") as f:
        f.write(w.tobytes() + b.tobytes())
    with open(os.path.join(root, "outside.bin"), "wb") as f:
        f.write(w.tobytes() + b.tobytes())
    with open(os.path.join(folder, "short.bin"), "wb") as f:
        f.write(w.tobytes()[:40])
    link = os.path.join(folder, "link.bin")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(os.path.join(root, "outside.bin"), link)
    b_at = {"location": "weights.bin", "offset": w.nbytes, "length": b.nbytes}
    model(folder, "model", {"location": "weights.bin", "offset": 0,
                            "length": w.nbytes}, b_at)
    model(folder, "escape", {"location": "../outside.bin"}, b_at)
    model(folder, "absolute", {"location": os.path.join(root, "outside.bin")}, b_at)
    model(folder, "link", {"location": "link.bin"}, b_at)
    model(folder, "short", {"location": "short.bin"}, b_at)
    model(folder, "length", {"location": "weights.bin", "length": 12}, b_at)
    model(folder, "offset", {"location": "weights.bin", "offset": "8x"}, b_at)
    model(folder, "huge_offset", {"location": "weights.bin",
                                  "offset": "9999999999999999999"}, b_at)
    model(folder, "far_offset", {"location": "weights.bin",
                                 "offset": str(2**63 - 8)}, b_at)
    model(folder, "key", {"location": "weights.bin", "stride": 4}, b_at)
    np.save(os.path.join(root, "x.npy"), rng.uniform(-1, 1, (3, 4)).astype(np.float32))
    return 0


if __name__ == "__main__":
    sys.exit(main())
