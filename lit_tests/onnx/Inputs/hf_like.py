#!/usr/bin/env python3
"""Small transformer models built with onnx.helper in the shapes that
torch.onnx.export (opset 17, static shapes) gives Hugging Face models
(lit_tests/onnx/hf-transformers.test; bench/models/export_hf.py exports the
real ones, which need torch and transformers, not in the tests' venv).

  hf_like.py models DIR      writes DIR/{encoder,decoder}.onnx and the inputs
                             DIR/ids.npy, DIR/mask.npy (the last 4 tokens
                             padding), DIR/mask_ones.npy
  hf_like.py compare DIR OUT compares OUT/MODEL/y.npy with onnx's reference
                             evaluator, within 1e-4 of the largest magnitude

One layer, sequence 16, hidden 32, 2 heads of 16, FFN 64, vocabulary 50.
The patterns, node for node as the exports have them:
- the attention mask (a model input, int64) read through the exporter's
  index arithmetic: Flatten, then a Gather at positions Mul(0, Shape's dim)
  + arange, reshaped by a computed Concat of a Shape; combined with And and
  Expanded to [1, heads, S, S] by a shape computed from ConstantOfShape,
  Mul, Equal and Where; Where(mask, 0, -inf) added to the scores; Softmax,
  then IsNaN and Where (fully masked rows);
- encoder (BERT): word, token type (an Expand of a buffer, GatherElements of
  constant positions, Expand again) and position embeddings,
  LayerNormalization, MatMul + bias, the head split with K's transpose
  (0, 2, 3, 1), the scale on Q and on K, Erf GELU; the padding mask from
  GreaterOrEqual of an arange;
- decoder (GPT-2 / Llama): ids through a Reshape, RMSNorm as Pow, ReduceMean,
  Add, Sqrt, Div, Mul; Gemm on a flattened input and a Split into Q, K, V;
  rotary embeddings (Slice, Neg, Concat, cos and sin Unsqueezed); the causal
  mask from LessOrEqual of two aranges; tanh GELU with Pow 3; SiLU.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

S, H, HEADS, D, FFN, VOCAB = 16, 32, 2, 16, 64, 50


class Builder:
    def __init__(self, seed):
        self.nodes, self.inits = [], []
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def name(self, op):
        self.count += 1
        return f"/{op}_{self.count}"

    def node(self, op, inputs, outputs=1, **attrs):
        name = self.name(op)
        outs = [f"{name}_output_{i}" for i in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs[0] if outputs == 1 else outs

    def const(self, value, dtype=np.int64):
        """A Constant node, as the exporter writes every small value."""
        name = self.name("Constant")
        self.nodes.append(helper.make_node(
            "Constant", [], [name + "_output_0"], name=name,
            value=numpy_helper.from_array(np.array(value, dtype=dtype))))
        return name + "_output_0"

    def weight(self, name, shape, scale=0.2):
        value = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        self.inits.append(numpy_helper.from_array(value, name))
        return name

    def computed_shape(self, dims):
        """Expand's shape as the exporter computes it: ConstantOfShape, Mul,
        Equal, Where (a -1 in `dims` keeps the input's dim)."""
        ones = self.node("ConstantOfShape", [self.const([len(dims)])],
                         value=numpy_helper.from_array(np.array([1], np.int64)))
        minus = self.node("Mul", [ones, self.const(-1)])
        target = self.const(dims)
        equal = self.node("Equal", [target, minus])
        return self.node("Where", [equal, ones, target])

    def padding_mask(self, mask_bool, causal):
        """The mask block of the exports: [1, 1, S, S] booleans, True where
        a query may attend, Expanded to [1, HEADS, S, S]."""
        true = self.node("ConstantOfShape", [self.const(np.zeros(0, np.int64))],
                         value=numpy_helper.from_array(np.array([True])))
        arange_row = np.arange(S, dtype=np.int64).reshape(1, 1, 1, S)
        arange_col = np.arange(S, dtype=np.int64).reshape(1, 1, S, 1)
        if causal:
            keep = self.node("LessOrEqual", [self.const(arange_row),
                                             self.const(arange_col)])
        else:
            keep = self.node("GreaterOrEqual", [self.const(arange_col),
                                                self.const(0)])
        both = self.node("And", [true, self.node("Cast", [keep],
                                                 to=TensorProto.BOOL)])
        length = self.node("Gather", [self.node("Shape", [mask_bool]),
                                      self.const([1])], axis=0)
        flat = self.node("Flatten", [mask_bool], axis=2)
        index = self.node("Add", [self.const(arange_row),
                                  self.node("Mul", [self.const(np.zeros((1, 1, 1, 1), np.int64)),
                                                    length])])
        picked = self.node("Gather", [flat, index], axis=0)
        shape = self.node("Concat", [self.node("Shape", [index])], axis=0)
        padded = self.node("Reshape", [self.node("Reshape", [picked, self.const([-1])]),
                                       shape])
        mask = self.node("And", [both, self.node("Cast", [padded], to=TensorProto.BOOL)])
        return self.node("Expand", [mask, self.computed_shape([1, -1, S, S])])

    def attention(self, q, k, v, mask, k_transposed):
        """Scores scaled on Q and K (sqrt of 1/sqrt(D) each), the mask,
        Softmax, the NaN guard, P V, heads merged."""
        scale = self.const(np.float32(D ** -0.25), np.float32)
        scores = self.node("MatMul", [self.node("Mul", [q, scale]),
                                      self.node("Mul", [k_transposed, scale])])
        bias = self.node("Where", [mask, self.const([0.0], np.float32),
                                   self.const([-np.inf], np.float32)])
        probs = self.node("Softmax", [self.node("Add", [scores, bias])], axis=-1)
        probs = self.node("Where", [self.node("IsNaN", [probs]),
                                    self.const([0.0], np.float32), probs])
        out = self.node("MatMul", [probs, v])
        out = self.node("Reshape", [out, self.const([1, -1, S, D])])
        out = self.node("Transpose", [out], perm=[0, 2, 1, 3])
        return self.node("Reshape", [out, self.const([1, S, -1])])

    def heads(self, x, perm=(0, 2, 1, 3)):
        split = self.node("Reshape", [x, self.const([1, S, -1, D])])
        return self.node("Transpose", [split], perm=list(perm))

    def model(self, graph_name, output):
        graph = helper.make_graph(
            self.nodes, graph_name,
            [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, S]),
             helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [1, S])],
            [helper.make_tensor_value_info(output, TensorProto.FLOAT, [1, S, H])],
            initializer=self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        onnx.checker.check_model(model, full_check=True)
        return model


def encoder():
    b = Builder(1)
    words = b.node("Gather", [b.weight("word_embeddings", [VOCAB, H]), "input_ids"])
    buffer = b.node("Expand", [b.const(np.zeros((1, 24), np.int64)),
                               b.computed_shape([1, -1])])
    types = b.node("GatherElements", [buffer, b.const(np.arange(S).reshape(1, S))],
                   axis=1)
    types = b.node("Expand", [types, b.computed_shape([1, S])])
    x = b.node("Add", [words, b.node("Gather", [b.weight("type_embeddings", [2, H]), types])])
    x = b.node("Add", [x, b.node("Gather", [b.weight("position_embeddings", [64, H]),
                                            b.const(np.arange(S).reshape(1, S))])])
    x = b.node("LayerNormalization", [x, b.weight("ln0_w", [H]), b.weight("ln0_b", [H])],
               axis=-1, epsilon=1e-12)
    mask = b.padding_mask(b.node("Cast", ["attention_mask"], to=TensorProto.BOOL),
                          causal=False)

    def linear(x, name, n_in, n_out):
        return b.node("Add", [b.weight(name + "_b", [n_out]),
                              b.node("MatMul", [x, b.weight(name + "_w", [n_in, n_out])])])

    q = b.heads(linear(x, "q", H, H))
    k = b.heads(linear(x, "k", H, H), perm=(0, 2, 3, 1))
    v = b.heads(linear(x, "v", H, H))
    a = linear(b.attention(q, k, v, mask, k), "o", H, H)
    x = b.node("LayerNormalization", [b.node("Add", [a, x]), b.weight("ln1_w", [H]),
                                      b.weight("ln1_b", [H])], axis=-1, epsilon=1e-12)
    h = linear(x, "ffn_in", H, FFN)
    erf = b.node("Erf", [b.node("Div", [h, b.const(np.float32(np.sqrt(2)), np.float32)])])
    h = b.node("Mul", [b.node("Mul", [h, b.node("Add", [erf, b.const(np.float32(1), np.float32)])]),
                       b.const(np.float32(0.5), np.float32)])
    h = linear(h, "ffn_out", FFN, H)
    b.node("LayerNormalization", [b.node("Add", [h, x]), b.weight("ln2_w", [H]),
                                  b.weight("ln2_b", [H])], axis=-1, epsilon=1e-12)
    return b.model("encoder", b.nodes[-1].output[0])


def decoder():
    b = Builder(2)
    ids = b.node("Reshape", ["input_ids", b.const([-1, S])])
    x = b.node("Gather", [b.weight("wte", [VOCAB, H]), ids])
    x = b.node("Add", [x, b.node("Gather", [b.weight("wpe", [64, H]),
                                            b.const(np.arange(S).reshape(1, S))])])
    mask_bool = b.node("Cast", [b.node("Reshape", ["attention_mask", b.const([1, -1])])],
                       to=TensorProto.BOOL)
    mask = b.padding_mask(mask_bool, causal=True)

    def rms_norm(x, name):
        mean = b.node("ReduceMean", [b.node("Pow", [x, b.const(np.float32(2), np.float32)])],
                      axes=[-1], keepdims=1)
        root = b.node("Sqrt", [b.node("Add", [mean, b.const(np.float32(1e-6), np.float32)])])
        inv = b.node("Div", [b.const(np.float32(1), np.float32), root])
        return b.node("Mul", [b.weight(name, [H], 1.0), b.node("Mul", [x, inv])])

    def gemm(x, name, n_in, n_out):
        flat = b.node("Reshape", [x, b.const([-1, n_in])])
        y = b.node("Gemm", [flat, b.weight(name + "_w", [n_in, n_out]),
                            b.weight(name + "_b", [n_out])], alpha=1.0, beta=1.0)
        return b.node("Reshape", [y, b.const([1, S, n_out])])

    positions = np.arange(S)[:, None] / (10000 ** (np.arange(0, D, 2) / D))[None]
    angles = np.concatenate([positions, positions], axis=-1)[None].astype(np.float32)
    cos = b.node("Unsqueeze", [b.const(np.cos(angles), np.float32), b.const([1])])
    sin = b.node("Unsqueeze", [b.const(np.sin(angles), np.float32), b.const([1])])

    def rotary(t):
        first = b.node("Slice", [t, b.const([0]), b.const([D // 2]), b.const([3]),
                                 b.const([1])])
        second = b.node("Slice", [t, b.const([D // 2]), b.const([2 ** 62]),
                                  b.const([3]), b.const([1])])
        rotated = b.node("Concat", [b.node("Neg", [second]), first], axis=-1)
        return b.node("Add", [b.node("Mul", [t, cos]), b.node("Mul", [rotated, sin])])

    qkv = b.node("Split", [gemm(rms_norm(x, "norm0"), "qkv", H, 3 * H),
                           b.const([H, H, H])], outputs=3, axis=2)
    q = rotary(b.heads(qkv[0]))
    k = rotary(b.heads(qkv[1]))
    v = b.heads(qkv[2])
    k_t = b.node("Transpose", [k], perm=[0, 1, 3, 2])
    x = b.node("Add", [gemm(b.attention(q, k, v, mask, k_t), "proj", H, H), x])
    h = gemm(rms_norm(x, "norm1"), "fc", H, FFN)
    inner = b.node("Add", [h, b.node("Mul", [b.node("Pow", [h, b.const(np.float32(3), np.float32)]),
                                             b.const(np.float32(0.044715), np.float32)])])
    tanh = b.node("Tanh", [b.node("Mul", [inner, b.const(np.float32(np.sqrt(2 / np.pi)),
                                                          np.float32)])])
    gelu = b.node("Mul", [b.node("Mul", [h, b.const(np.float32(0.5), np.float32)]),
                          b.node("Add", [tanh, b.const(np.float32(1), np.float32)])])
    silu = b.node("Mul", [gelu, b.node("Sigmoid", [gelu])])
    b.node("Add", [gemm(silu, "fc_out", FFN, H), x])
    return b.model("decoder", b.nodes[-1].output[0])


def main():
    mode, folder = sys.argv[1], sys.argv[2]
    if mode == "models":
        for name, make in [("encoder", encoder), ("decoder", decoder)]:
            model = make()
            model.graph.output[0].name = "y"
            model.graph.node[-1].output[0] = "y"
            onnx.save(model, os.path.join(folder, name + ".onnx"))
        rng = np.random.default_rng(3)
        np.save(os.path.join(folder, "ids.npy"),
                rng.integers(0, VOCAB, (1, S), dtype=np.int64))
        mask = np.ones((1, S), np.int64)
        np.save(os.path.join(folder, "mask_ones.npy"), mask)
        mask[0, -4:] = 0
        np.save(os.path.join(folder, "mask.npy"), mask)
        return 0
    from onnx.reference import ReferenceEvaluator
    out = sys.argv[3]
    failed = 0
    for name in ["encoder", "decoder"]:
        feeds = {"input_ids": np.load(os.path.join(folder, "ids.npy")),
                 "attention_mask": np.load(os.path.join(folder, "mask.npy"))}
        want = ReferenceEvaluator(os.path.join(folder, name + ".onnx")).run(None, feeds)[0]
        got = np.load(os.path.join(out, name, "y.npy"))
        error = float(np.abs(got - want).max() / np.abs(want).max())
        ok = got.shape == want.shape and error <= 1e-4
        print(f"{name}: {'ok' if ok else 'MISMATCH'} (max error {error:.1e} of the largest magnitude)")
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
