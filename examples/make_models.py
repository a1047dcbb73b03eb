#!/usr/bin/env python3
"""Writes the small ONNX example models of examples/onnx/ with onnx.helper.

No download, no framework: every model is built node by node, its weights
drawn from a fixed seed, and checked with onnx.checker. Run it from anywhere:

    pip install onnx numpy
    python3 examples/make_models.py [--check]

--check also runs every model with onnx's reference evaluator on random
inputs and writes nothing else; fuse-run --check compares Fuse's runtimes
with each other, this compares the importer's semantics with ONNX's.

Models (opset 17):
  softmax.onnx    Softmax over the last axis of a 32x256 input.
  layernorm.onnx  LayerNormalization (scale and bias initializers), 32x256.
  gelu.onnx       GELU as exporters write it: x * 0.5 * (1 + erf(x / sqrt 2)).
  mlp.onnx        MatMul + bias -> GELU -> MatMul + bias, 64 -> 256 -> 64, with
                  a dynamic batch dimension `batch` (fuse-run --dim batch=N).
  encoder.onnx    A transformer encoder layer: sequence 16, hidden 64, 4
                  heads (self-attention with softmax, residual, layernorm,
                  a GELU feed-forward of 256, residual, layernorm).
"""

import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "onnx")


class Builder:
    """Collects nodes and initializers; names every value uniquely."""

    def __init__(self, seed):
        self.nodes = []
        self.initializers = []
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def name(self, hint):
        self.count += 1
        return f"{hint}_{self.count}"

    def weight(self, name, shape, scale):
        value = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        self.initializers.append(numpy_helper.from_array(value, name))
        return name

    def const(self, name, value):
        self.initializers.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(self, op_type, inputs, hint=None, **attrs):
        out = self.name(hint or op_type.lower())
        self.nodes.append(
            helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out

    def model(self, name, inputs, outputs):
        graph = helper.make_graph(self.nodes, name, inputs, outputs,
                                  initializer=self.initializers)
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", OPSET)],
            producer_name="fuse examples/make_models.py")
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model

    def gelu(self, x):
        # The exporters' erf form.
        sqrt2 = self.const(self.name("sqrt2"), np.float32(np.sqrt(2.0)))
        one = self.const(self.name("one"), np.float32(1.0))
        half = self.const(self.name("half"), np.float32(0.5))
        e = self.op("Erf", [self.op("Div", [x, sqrt2])])
        return self.op("Mul", [self.op("Mul", [x, self.op("Add", [e, one])]),
                               half], hint="gelu")

    def linear(self, x, fan_in, fan_out, prefix):
        w = self.weight(f"{prefix}.weight", [fan_in, fan_out],
                        1.0 / np.sqrt(fan_in))
        b = self.weight(f"{prefix}.bias", [fan_out], 0.1)
        return self.op("Add", [self.op("MatMul", [x, w]), b], hint=prefix)

    def layernorm(self, x, width, prefix):
        scale = self.const(f"{prefix}.scale",
                           (1 + 0.1 * self.rng.standard_normal(width)).astype(
                               np.float32))
        bias = self.weight(f"{prefix}.bias", [width], 0.1)
        return self.op("LayerNormalization", [x, scale, bias], hint=prefix,
                       axis=-1, epsilon=1e-5)


def tensor(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def softmax():
    b = Builder(1)
    y = b.op("Softmax", ["x"], axis=-1)
    return b.model("softmax", [tensor("x", [32, 256])], [tensor(y, [32, 256])])


def layernorm():
    b = Builder(2)
    y = b.layernorm("x", 256, "ln")
    return b.model("layernorm", [tensor("x", [32, 256])],
                   [tensor(y, [32, 256])])


def gelu():
    b = Builder(3)
    y = b.gelu("x")
    return b.model("gelu", [tensor("x", [32, 256])], [tensor(y, [32, 256])])


def mlp():
    b = Builder(4)
    h = b.gelu(b.linear("x", 64, 256, "fc1"))
    y = b.linear(h, 256, 64, "fc2")
    return b.model("mlp", [tensor("x", ["batch", 64])],
                   [tensor(y, ["batch", 64])])


def encoder(seq=16, hidden=64, heads=4, ffn=256):
    b = Builder(5)
    head = hidden // heads
    x = "x"  # [1, seq, hidden]

    def split_heads(t):
        shape = b.const(b.name("shape"), np.array([1, seq, heads, head],
                                                  dtype=np.int64))
        return b.op("Transpose", [b.op("Reshape", [t, shape])],
                    perm=[0, 2, 1, 3])  # [1, heads, seq, head]

    q = split_heads(b.linear(x, hidden, hidden, "attn.q"))
    k = split_heads(b.linear(x, hidden, hidden, "attn.k"))
    v = split_heads(b.linear(x, hidden, hidden, "attn.v"))
    kt = b.op("Transpose", [k], perm=[0, 1, 3, 2])
    scale = b.const("attn.scale", np.float32(1.0 / np.sqrt(head)))
    scores = b.op("Mul", [b.op("MatMul", [q, kt]), scale], hint="scores")
    probs = b.op("Softmax", [scores], axis=-1, hint="probs")
    ctx = b.op("Transpose", [b.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
    merged = b.op("Reshape", [ctx, b.const("attn.merge_shape", np.array(
        [1, seq, hidden], dtype=np.int64))])
    attn = b.linear(merged, hidden, hidden, "attn.out")
    h = b.layernorm(b.op("Add", [x, attn], hint="residual1"), hidden, "ln1")
    f = b.linear(b.gelu(b.linear(h, hidden, ffn, "ffn.fc1")), ffn, hidden,
                 "ffn.fc2")
    y = b.layernorm(b.op("Add", [h, f], hint="residual2"), hidden, "ln2")
    return b.model("encoder", [tensor("x", [1, seq, hidden])],
                   [tensor(y, [1, seq, hidden])])


MODELS = {
    "softmax": softmax,
    "layernorm": layernorm,
    "gelu": gelu,
    "mlp": mlp,
    "encoder": encoder,
}


def check(models):
    from onnx.reference import ReferenceEvaluator
    rng = np.random.default_rng(0)
    for name, model in models.items():
        feeds = {}
        for input in model.graph.input:
            dims = [d.dim_value or 8 for d in
                    input.type.tensor_type.shape.dim]
            feeds[input.name] = rng.standard_normal(dims).astype(np.float32)
        outputs = ReferenceEvaluator(model).run(None, feeds)
        print(f"{name}: {[o.shape for o in outputs]}, finite: "
              f"{all(np.isfinite(o).all() for o in outputs)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="run each model with onnx's reference evaluator")
    parser.add_argument("--out", default=OUT, help="output directory")
    args = parser.parse_args()
    models = {name: make() for name, make in MODELS.items()}
    if args.check:
        check(models)
        return 0
    os.makedirs(args.out, exist_ok=True)
    for name, model in models.items():
        path = os.path.join(args.out, name + ".onnx")
        onnx.save(model, path)
        print(f"wrote {path} ({os.path.getsize(path)} bytes, "
              f"{len(model.graph.node)} nodes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
