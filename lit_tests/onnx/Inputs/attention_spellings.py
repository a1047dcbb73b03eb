#!/usr/bin/env python3
"""Attention spelled three ways, as exporters write it (issue 21: attention
is one kernel by its structure, not its spelling), in one ONNX model built
with onnx.helper (lit_tests/onnx/attention-spellings.test):

  attention_spellings.py models DIR   writes DIR/spellings.onnx and its
                                      inputs DIR/{x,keep,bias}.npy
  attention_spellings.py compare DIR OUT  compares OUT/y{1,2,3}.npy with
                                      onnx's reference evaluator, within 1e-5
                                      of the largest magnitude

Sequence 16, hidden 32, 4 query heads of 8; each output y1..y3 [1, 16, 32].
- y1 (torch's SDPA export): MatMul projections, heads split by Reshape then
  Transpose (0, 2, 1, 3), 2 KV heads repeated for grouped-query attention by
  Unsqueeze, Expand and Reshape, K transposed by Transpose (0, 1, 3, 2),
  the scale as its square root on Q and on K, a boolean causal mask through
  Where(keep, scores, -inf);
- y2 (legacy export with Gemm): the projections as Gemm with transB and a
  bias on the flattened input, K split straight to Kᵀ by Transpose
  (0, 2, 3, 1), 2 KV heads repeated by Tile (head h reads KV head h mod 2),
  the scale as a Div of the scores, an additive float mask;
- y3: Q's heads split the other way round, Transpose to [1, 32, 16] then
  Reshape to [1, 4, 8, 16] and Transpose (0, 1, 3, 2); 4 KV heads; the scale
  as a Mul of the scores; no mask.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

S, HID, HEADS, KV, DH = 16, 32, 4, 2, 8


class Builder:
    def __init__(self, seed):
        self.nodes, self.inits = [], []
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def node(self, op, inputs, **attrs):
        self.count += 1
        out = f"/{op}_{self.count}"
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def init(self, value, dtype=np.float32):
        self.count += 1
        name = f"c{self.count}"
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype), name))
        return name

    def weight(self, shape):
        return self.init(self.rng.uniform(-0.5, 0.5, shape))

    def shape(self, values):
        return self.init(values, np.int64)


def heads(b, t, n):
    """[1, S, n * DH] -> [1, n, S, DH]: Reshape, then Transpose."""
    return b.node("Transpose", [b.node("Reshape", [t, b.shape([1, S, n, DH])])],
                  perm=[0, 2, 1, 3])


def merge(b, o):
    return b.node("Reshape", [b.node("Transpose", [o], perm=[0, 2, 1, 3]),
                              b.shape([1, S, HID])])


def sdpa(b):
    q = heads(b, b.node("MatMul", ["x", b.weight([HID, HID])]), HEADS)
    kv = []
    for _ in range(2):
        t = heads(b, b.node("MatMul", ["x", b.weight([HID, KV * DH])]), KV)
        t = b.node("Unsqueeze", [t, b.shape([2])])
        t = b.node("Expand", [t, b.shape([1, KV, HEADS // KV, S, DH])])
        kv.append(b.node("Reshape", [t, b.shape([1, HEADS, S, DH])]))
    k, v = kv
    root = b.init(np.float32(1 / np.sqrt(DH)) ** 0.5)
    qs = b.node("Mul", [q, root])
    kt = b.node("Mul", [b.node("Transpose", [k], perm=[0, 1, 3, 2]), root])
    scores = b.node("MatMul", [qs, kt])
    masked = b.node("Where", ["keep", scores, b.init(-np.inf)])
    p = b.node("Softmax", [masked], axis=-1)
    return merge(b, b.node("MatMul", [p, v]))


def legacy(b):
    flat = b.node("Reshape", ["x", b.shape([S, HID])])

    def gemm(n):
        return b.node("Gemm", [flat, b.weight([n, HID]), b.weight([n])],
                      transB=1)

    q = heads(b, b.node("Reshape", [gemm(HID), b.shape([1, S, HID])]), HEADS)
    k = b.node("Reshape", [gemm(KV * DH), b.shape([1, S, KV, DH])])
    kt = b.node("Tile", [b.node("Transpose", [k], perm=[0, 2, 3, 1]),
                         b.shape([1, HEADS // KV, 1, 1])])
    v = heads(b, b.node("Reshape", [gemm(KV * DH), b.shape([1, S, KV * DH])]),
              KV)
    v = b.node("Tile", [v, b.shape([1, HEADS // KV, 1, 1])])
    scores = b.node("Div", [b.node("MatMul", [q, kt]),
                            b.init(np.float32(np.sqrt(DH)))])
    p = b.node("Softmax", [b.node("Add", [scores, "bias"])], axis=-1)
    return merge(b, b.node("MatMul", [p, v]))


def other_order(b):
    t = b.node("MatMul", ["x", b.weight([HID, HID])])
    t = b.node("Transpose", [t], perm=[0, 2, 1])
    t = b.node("Reshape", [t, b.shape([1, HEADS, DH, S])])
    q = b.node("Transpose", [t], perm=[0, 1, 3, 2])
    k = heads(b, b.node("MatMul", ["x", b.weight([HID, HID])]), HEADS)
    v = heads(b, b.node("MatMul", ["x", b.weight([HID, HID])]), HEADS)
    scores = b.node("MatMul", [q, b.node("Transpose", [k], perm=[0, 1, 3, 2])])
    scores = b.node("Mul", [scores, b.init(np.float32(1 / np.sqrt(DH)))])
    p = b.node("Softmax", [scores], axis=-1)
    return merge(b, b.node("MatMul", [p, v]))


def models(out):
    b = Builder(7)
    outputs = [sdpa(b), legacy(b), other_order(b)]
    for i, name in enumerate(outputs):
        b.nodes.append(helper.make_node("Identity", [name], [f"y{i + 1}"]))
    graph = helper.make_graph(
        b.nodes, "spellings",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, S, HID]),
         helper.make_tensor_value_info("keep", TensorProto.BOOL, [1, 1, S, S]),
         helper.make_tensor_value_info("bias", TensorProto.FLOAT, [1, 1, 1, S])],
        [helper.make_tensor_value_info(f"y{i + 1}", TensorProto.FLOAT,
                                       [1, S, HID]) for i in range(3)],
        b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "spellings.onnx"))
    rng = np.random.default_rng(3)
    np.save(os.path.join(out, "x.npy"),
            rng.uniform(-1, 1, (1, S, HID)).astype(np.float32))
    np.save(os.path.join(out, "keep.npy"),
            np.tril(np.ones((S, S), bool)).reshape(1, 1, S, S))
    bias = np.zeros((1, 1, 1, S), np.float32)
    bias[..., -4:] = -1e9  # the last 4 tokens padding
    np.save(os.path.join(out, "bias.npy"), bias)


def compare(directory, out):
    from onnx.reference import ReferenceEvaluator
    feeds = {n: np.load(os.path.join(directory, n + ".npy"))
             for n in ("x", "keep", "bias")}
    expected = ReferenceEvaluator(
        os.path.join(directory, "spellings.onnx")).run(None, feeds)
    failed = 0
    for i, want in enumerate(expected):
        name = f"y{i + 1}"
        got = np.load(os.path.join(out, name + ".npy"))
        scale = max(float(np.abs(want).max()), 1e-30)
        error = float(np.abs(got - want).max()) / scale
        ok = got.shape == want.shape and error <= 1e-5
        failed += not ok
        print(f"{name}: {'ok' if ok else 'MISMATCH'} ({error:.2g} of max |y|)")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "models":
        models(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
