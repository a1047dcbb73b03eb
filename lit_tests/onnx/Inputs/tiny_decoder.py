"""A one-layer decoder with its key/value cache, as exporters write one (issue 22).

    tiny_decoder.py model DIR     DIR/decoder.onnx, DIR/prompt.npy (2 rows),
                                  DIR/prompt_float.npy, DIR/no_cache.onnx,
                                  DIR/decoder_nomask.onnx (no attention_mask:
                                  the causal mask alone, which is what the
                                  all-ones mask of a greedy loop leaves),
                                  DIR/decoder_cumsum.onnx (the positions
                                  the mask's CumSum from past on, as
                                  Hugging Face exports compute them: the
                                  same values with an all-ones mask)
    tiny_decoder.py expect DIR N  DIR/expected.npy: onnx's reference
                                  evaluator's greedy N tokens from the prompt
    tiny_decoder.py compare A B   exit 1 unless the .npy files A and B are
                                  equal; prints both

The model takes input_ids [batch, sequence], attention_mask [batch,
past + sequence] and past_key_values.0.key/value [batch, 2, past, 8], and
gives logits [batch, sequence, 40] and present.0.key/value. Its positions
and causal mask come from the shapes at run time (Shape, Range, Gather,
LessOrEqual, Where), as torch exports write them. The weights are random
with a scale that keeps the top two logits of every step apart (checked
here, so that a tie can never decide the test).
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

VOCAB, HIDDEN, HEADS, HEAD_DIM, POSITIONS = 40, 16, 2, 8, 64


def weights(rng):
    def w(name, *shape, scale=0.6):
        return numpy_helper.from_array(
            (rng.standard_normal(shape) * scale).astype(np.float32), name)
    ints = lambda name, values: numpy_helper.from_array(
        np.array(values, np.int64), name)
    return [
        w("wte", VOCAB, HIDDEN), w("wpe", POSITIONS, HIDDEN),
        w("wq", HIDDEN, HIDDEN), w("wk", HIDDEN, HIDDEN),
        w("wv", HIDDEN, HIDDEN), w("wo", HIDDEN, HIDDEN),
        w("wlm", HIDDEN, VOCAB, scale=1.0),
        ints("heads_shape", [0, 0, HEADS, HEAD_DIM]),
        ints("hidden_shape", [0, 0, HIDDEN]), ints("two", [2]),
        ints("three", [3]), ints("one", [1]), ints("axes_12", [1, 2]),
        ints("axis_1", [1]), ints("axis_0", [0]),
        numpy_helper.from_array(np.array(1 / np.sqrt(HEAD_DIM), np.float32),
                                "scale"),
        numpy_helper.from_array(np.array(-1e9, np.float32), "masked"),
        numpy_helper.from_array(np.array(0, np.int64), "zero"),
        numpy_helper.from_array(np.array(1, np.int64), "step"),
    ]


def nodes(with_mask=True, positions_from_mask=False):
    n = helper.make_node
    heads = lambda x, out: [
        n("MatMul", [x[0], x[1]], [out + "_flat"]),
        n("Reshape", [out + "_flat", "heads_shape"], [out + "_split"]),
        n("Transpose", [out + "_split"], [out], perm=[0, 2, 1, 3])]
    return [
        # Positions past .. past + sequence - 1, from the shapes (or from
        # the mask, counted along its axis 1: "step" is that axis).
        n("Shape", ["past_key_values.0.key"], ["past_1"], start=2, end=3),
        n("Shape", ["input_ids"], ["seq_1"], start=1, end=2),
        n("Squeeze", ["past_1", "axis_0"], ["past"]),
        n("Add", ["past_1", "seq_1"], ["total_1"]),
        n("Squeeze", ["total_1", "axis_0"], ["total"]),
        n("Range", ["past", "total", "step"], ["query_positions"]),
        n("Range", ["zero", "total", "step"], ["key_positions"]),
        n("Gather", ["wte", "input_ids"], ["tokens"]),
        *([n("CumSum", ["attention_mask", "step"], ["mask_count"]),
           n("Sub", ["mask_count", "step"], ["mask_positions"]),
           n("Slice", ["mask_positions", "past_1", "total_1", "axis_1"],
             ["position_ids"]),
           n("Gather", ["wpe", "position_ids"], ["positions"])]
          if positions_from_mask else
          [n("Gather", ["wpe", "query_positions"], ["positions"])]),
        n("Add", ["tokens", "positions"], ["h"]),
        *heads(["h", "wq"], "q"), *heads(["h", "wk"], "k_new"),
        *heads(["h", "wv"], "v_new"),
        n("Concat", ["past_key_values.0.key", "k_new"], ["present.0.key"],
          axis=2),
        n("Concat", ["past_key_values.0.value", "v_new"], ["present.0.value"],
          axis=2),
        n("Transpose", ["present.0.key"], ["k_t"], perm=[0, 1, 3, 2]),
        n("MatMul", ["q", "k_t"], ["scores_raw"]),
        n("Mul", ["scores_raw", "scale"], ["scores"]),
        # Causal (key position <= query position) and the padding mask.
        n("Unsqueeze", ["query_positions", "axis_1"], ["query_column"]),
        n("LessOrEqual", ["key_positions", "query_column"], ["causal"]),
        *([n("Cast", ["attention_mask"], ["keep"], to=TensorProto.BOOL),
           n("Unsqueeze", ["keep", "axes_12"], ["keep_4d"]),
           n("And", ["causal", "keep_4d"], ["allowed"])] if with_mask else []),
        n("Where", ["allowed" if with_mask else "causal", "scores", "masked"],
          ["masked_scores"]),
        n("Softmax", ["masked_scores"], ["p"], axis=-1),
        n("MatMul", ["p", "present.0.value"], ["context"]),
        n("Transpose", ["context"], ["context_t"], perm=[0, 2, 1, 3]),
        n("Reshape", ["context_t", "hidden_shape"], ["merged"]),
        n("MatMul", ["merged", "wo"], ["attended"]),
        n("Add", ["h", "attended"], ["h2"]),
        n("MatMul", ["h2", "wlm"], ["logits"]),
    ]


def make_model(with_cache=True, with_mask=True, positions_from_mask=False):
    rng = np.random.default_rng(22)
    cache = lambda name, length: helper.make_tensor_value_info(
        name, TensorProto.FLOAT, ["batch", HEADS, length, HEAD_DIM])
    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64,
                                      ["batch", "sequence"]),
        helper.make_tensor_value_info("attention_mask", TensorProto.INT64,
                                      ["batch", "total_sequence"]),
        cache("past_key_values.0.key", "past_sequence"),
        cache("past_key_values.0.value", "past_sequence"),
    ]
    outputs = [
        helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                      ["batch", "sequence", VOCAB]),
        cache("present.0.key", "total_sequence"),
        cache("present.0.value", "total_sequence"),
    ]
    if not with_mask:
        inputs = [i for i in inputs if i.name != "attention_mask"]
    graph_nodes = nodes(with_mask, positions_from_mask)
    if not with_cache:
        # The cache as plain inputs under other names: not a decoder that
        # --generate can drive.
        for value in inputs[2:]:
            value.name = value.name.replace("past_key_values", "memory")
        for node in graph_nodes:
            node.input[:] = [i.replace("past_key_values", "memory")
                             for i in node.input]
    graph = helper.make_graph(graph_nodes, "tiny_decoder", inputs, outputs,
                              initializer=weights(rng))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def greedy(model, prompt, tokens):
    """onnx's reference evaluator, step by step, as a user's loop runs it."""
    session = ReferenceEvaluator(model)
    batch = prompt.shape[0]
    empty = np.zeros((batch, HEADS, 0, HEAD_DIM), np.float32)
    past = {"past_key_values.0.key": empty, "past_key_values.0.value": empty}
    ids, total, out = prompt, prompt.shape[1], []
    for step in range(tokens):
        logits, key, value = session.run(None, {
            "input_ids": ids, "attention_mask": np.ones((batch, total), np.int64),
            **past})
        last = logits[:, -1, :]
        top2 = np.sort(last, axis=-1)[:, -2:]
        gap = float((top2[:, 1] - top2[:, 0]).min())
        if gap < 1e-3:
            sys.exit(f"step {step}: the top two logits are {gap} apart; "
                     "pick other weights")
        chosen = last.argmax(axis=-1)
        out.append(chosen)
        past = {"past_key_values.0.key": key, "past_key_values.0.value": value}
        ids, total = chosen.reshape(batch, 1).astype(np.int64), total + 1
    return np.stack(out, axis=1).astype(np.int64)


def main():
    if sys.argv[1] == "model":
        folder = sys.argv[2]
        onnx.save(make_model(), folder + "/decoder.onnx")
        onnx.save(make_model(with_cache=False), folder + "/no_cache.onnx")
        onnx.save(make_model(with_mask=False), folder + "/decoder_nomask.onnx")
        onnx.save(make_model(positions_from_mask=True),
                  folder + "/decoder_cumsum.onnx")
        prompt = np.random.default_rng(5).integers(0, VOCAB, (2, 5))
        np.save(folder + "/prompt.npy", prompt.astype(np.int64))
        np.save(folder + "/prompt_float.npy", prompt.astype(np.float32))
    elif sys.argv[1] == "expect":
        folder, tokens = sys.argv[2], int(sys.argv[3])
        prompt = np.load(folder + "/prompt.npy")
        np.save(folder + "/expected.npy",
                greedy(onnx.load(folder + "/decoder.onnx"), prompt, tokens))
    else:
        a, b = np.load(sys.argv[2]), np.load(sys.argv[3])
        print("expected:", a.tolist())
        print("actual:  ", b.tolist())
        print("equal" if a.shape == b.shape and (a == b).all() else "DIFFERENT")
        return 0 if a.shape == b.shape and (a == b).all() else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
