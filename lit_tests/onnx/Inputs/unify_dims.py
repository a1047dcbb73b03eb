"""Models whose broadcasts meet two different dynamic dims (issue 22).

    unify_dims.py DIR   writes into DIR:
      sum.onnx       x [batch, total] + Concat(past [batch, past_length],
                     new [batch, sequence], axis 1): the importer unifies
                     total with past_length + sequence
      symbols.onnx   x [batch, a] + y [batch, b]: b is unified with a
      holds.onnx     x [n] + Concat(x, x) [2n]: n cannot be n + n (no
                     unification; the broadcast is refused)
      static.onnx    x [n] + w [4] (an initializer): a dynamic dim against a
                     static one is not unified either
      chain.onnx     (x [a] + y [b]) + Concat(p [c], q [d]): b is a, then a
                     is c + d, and so is b (unify_chain.onnx beside this
                     file is a copy, for OnnxImporterTest)
    and the inputs: x{B}_{T}.npy, past{B}_{P}.npy, new{B}_{S}.npy and
    n{N}.npy (random, float32) at the shapes the test uses.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model(name, inputs, nodes, outputs, initializers=()):
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape)
         for n, shape in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape)
         for n, shape in outputs],
        initializer=list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def main():
    folder = sys.argv[1]
    n = helper.make_node
    onnx.save(model(
        "sum", [("x", ["batch", "total"]), ("past", ["batch", "past_length"]),
                ("new", ["batch", "sequence"])],
        [n("Concat", ["past", "new"], ["joined"], axis=1),
         n("Add", ["x", "joined"], ["y"])],
        [("y", ["batch", "total"])]), folder + "/sum.onnx")
    onnx.save(model(
        "symbols", [("x", ["batch", "a"]), ("y", ["batch", "b"])],
        [n("Mul", ["x", "y"], ["z"])], [("z", ["batch", "a"])]),
        folder + "/symbols.onnx")
    onnx.save(model(
        "holds", [("x", ["n"])],
        [n("Concat", ["x", "x"], ["twice"], axis=0),
         n("Add", ["x", "twice"], ["y"])], [("y", [None])]),
        folder + "/holds.onnx")
    onnx.save(model(
        "static", [("x", ["n"])], [n("Add", ["x", "w"], ["y"])], [("y", [4])],
        [numpy_helper.from_array(np.arange(4, dtype=np.float32), "w")]),
        folder + "/static.onnx")
    onnx.save(model(
        "chain", [("x", ["a"]), ("y", ["b"]), ("p", ["c"]), ("q", ["d"])],
        [n("Add", ["x", "y"], ["s"]),
         n("Concat", ["p", "q"], ["j"], axis=0),
         n("Add", ["s", "j"], ["out"])], [("out", ["a"])]),
        folder + "/chain.onnx")
    rng = np.random.default_rng(22)
    save = lambda name, *shape: np.save(
        folder + "/" + name + "_".join(map(str, shape)) + ".npy",
        rng.uniform(-2, 2, shape).astype(np.float32))
    for shape in ((2, 7), (2, 6), (3, 9), (2, 5)):
        save("x", *shape)
    for shape in ((2, 3), (3, 0)):
        save("past", *shape)
    for shape in ((2, 4), (3, 9)):
        save("new", *shape)
    for length in (3, 4, 5):
        save("n", length)


if __name__ == "__main__":
    main()
