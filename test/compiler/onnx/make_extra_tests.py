#!/usr/bin/env python3
"""Writes test/compiler/onnx/node-extra/: node tests in the layout of ONNX's backend
node tests (model.onnx, test_data_set_0/{input,output}_K.pb) for the opset
forms that Debian's libonnx-testdata (opsets up to 17) does not cover, or
covers thinly: opset-18 reductions with axes as an input, Split with
num_outputs, Gelu (opset 20), and the old attribute forms (Clip 6, Softmax
11 coerced to 2-D, Squeeze/Unsqueeze 11, Slice 9), plus broadcasting corner
cases, Resize forms the backend tests lack and Upsample (opsets 7 and 9).
Expected outputs come from onnx's reference evaluator (for Upsample, its
Resize with the same semantics), or from NumPy where that evaluator does not
implement an old opset's semantics.

    pip install onnx numpy && python3 test/compiler/onnx/make_extra_tests.py
"""

import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "node-extra")
rng = np.random.default_rng(7)

TYPES = {np.float32: TensorProto.FLOAT, np.int64: TensorProto.INT64,
         np.bool_: TensorProto.BOOL, np.int32: TensorProto.INT32}


def info(name, array):
    return helper.make_tensor_value_info(name, TYPES[array.dtype.type],
                                         list(array.shape))


def write(name, nodes, inputs, outputs, opset, initializers=(),
          expected=None):
    """inputs: {name: array}; outputs: [names]; expected: arrays or None."""
    feeds = dict(inputs)
    graph_inputs = [info(n, a) for n, a in feeds.items()]
    # Output types and shapes from a first run.
    model = helper.make_model(
        helper.make_graph(nodes, name, graph_inputs,
                          [helper.make_tensor_value_info(o, 0, None)
                           for o in outputs],
                          initializer=[numpy_helper.from_array(a, n)
                                       for n, a in initializers]),
        opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    if expected is None:
        expected = ReferenceEvaluator(model).run(None, feeds)
    del model.graph.output[:]
    model.graph.output.extend(
        [info(o, np.asarray(e)) for o, e in zip(outputs, expected)])
    onnx.checker.check_model(model)
    directory = os.path.join(OUT, name)
    data = os.path.join(directory, "test_data_set_0")
    os.makedirs(data)
    onnx.save(model, os.path.join(directory, "model.onnx"))
    for k, (n, a) in enumerate(feeds.items()):
        with open(os.path.join(data, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
    for k, (n, e) in enumerate(zip(outputs, expected)):
        with open(os.path.join(data, f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(np.asarray(e), n)
                    .SerializeToString())


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    x = f32(3, 4, 5)

    # Opset 18: axes as an input (an initializer here), keepdims both ways.
    for op in ["ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
               "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
               "ReduceSumSquare"]:
        data = np.abs(x) + 0.5 if op == "ReduceLogSum" else x
        for keep in [0, 1]:
            write(f"test_{op.lower()}_opset18_axes_keepdims{keep}",
                  [helper.make_node(op, ["x", "axes"], ["y"], keepdims=keep)],
                  {"x": data}, ["y"], 18,
                  initializers=[("axes", np.array([0, -1], dtype=np.int64))])
        write(f"test_{op.lower()}_opset18_default_axes",
              [helper.make_node(op, ["x"], ["y"], keepdims=0)],
              {"x": data}, ["y"], 18)
    write("test_reducemean_opset18_axes_input",
          [helper.make_node("ReduceMean", ["x", "axes"], ["y"])],
          {"x": x, "axes": np.array([1], dtype=np.int64)}, ["y"], 18)
    write("test_reducesum_opset13_noop_empty_axes",
          [helper.make_node("ReduceSum", ["x"], ["y"],
                            noop_with_empty_axes=1)],
          {"x": x}, ["y"], 13)
    write("test_reducelogsumexp_large",
          [helper.make_node("ReduceLogSumExp", ["x"], ["y"], axes=[1])],
          {"x": (x * 100).astype(np.float32)}, ["y"], 13)

    # Split with num_outputs (18), uneven; and split as an input (13).
    write("test_split_num_outputs_uneven",
          [helper.make_node("Split", ["x"], ["a", "b", "c"], axis=0,
                            num_outputs=3)],
          {"x": f32(7, 2)}, ["a", "b", "c"], 18)
    write("test_split_opset11_attr",
          [helper.make_node("Split", ["x"], ["a", "b"], axis=1,
                            split=[1, 3])],
          {"x": f32(2, 4)}, ["a", "b"], 11)

    # Gelu (20).
    for approximate in ["none", "tanh"]:
        write(f"test_gelu_opset20_{approximate}",
              [helper.make_node("Gelu", ["x"], ["y"],
                                approximate=approximate)],
              {"x": f32(4, 6)}, ["y"], 20)

    # Old attribute forms.
    write("test_clip_opset6_attrs",
          [helper.make_node("Clip", ["x"], ["y"], min=-0.5, max=0.7)],
          {"x": f32(3, 4)}, ["y"], 6)
    s = f32(2, 3, 4)
    for op in ["Softmax", "LogSoftmax"]:
        flat = s.reshape(2, 12)
        e = np.exp(flat - flat.max(1, keepdims=True))
        y = e / e.sum(1, keepdims=True)
        if op == "LogSoftmax":
            y = np.log(y)
        write(f"test_{op.lower()}_opset11_coerced_2d",
              [helper.make_node(op, ["x"], ["y"])],
              {"x": s}, ["y"], 11,
              expected=[y.reshape(2, 3, 4).astype(np.float32)])
        write(f"test_{op.lower()}_opset11_axis0",
              [helper.make_node(op, ["x"], ["y"], axis=0)],
              {"x": s}, ["y"], 11,
              expected=[(lambda f: (np.log(f) if op == "LogSoftmax" else f)
                         )((lambda e: e / e.sum())(np.exp(s - s.max())))
                        .astype(np.float32)])
    write("test_squeeze_opset11_attr",
          [helper.make_node("Squeeze", ["x"], ["y"], axes=[0, -1])],
          {"x": f32(1, 3, 1)}, ["y"], 11)
    write("test_unsqueeze_opset11_attr",
          [helper.make_node("Unsqueeze", ["x"], ["y"], axes=[0, 3])],
          {"x": f32(2, 3)}, ["y"], 11)
    write("test_slice_opset9_attrs",
          [helper.make_node("Slice", ["x"], ["y"], starts=[1, -3],
                            ends=[100, -1], axes=[0, 1])],
          {"x": f32(4, 5)}, ["y"], 9)
    write("test_slice_negative_steps_2axes",
          [helper.make_node("Slice", ["x", "s", "e", "a", "t"], ["y"])],
          {"x": f32(5, 6)}, ["y"], 13,
          initializers=[("s", np.array([-1, 4], dtype=np.int64)),
                        ("e", np.array([-100, 0], dtype=np.int64)),
                        ("a", np.array([0, 1], dtype=np.int64)),
                        ("t", np.array([-2, -1], dtype=np.int64))])

    # Broadcasting and shapes.
    write("test_matmul_batch_broadcast",
          [helper.make_node("MatMul", ["a", "b"], ["y"])],
          {"a": f32(2, 1, 3, 4), "b": f32(5, 4, 2)}, ["y"], 13)
    write("test_matmul_vector_matrix",
          [helper.make_node("MatMul", ["a", "b"], ["y"])],
          {"a": f32(4), "b": f32(2, 4, 3)}, ["y"], 13)
    write("test_matmul_matrix_vector",
          [helper.make_node("MatMul", ["a", "b"], ["y"])],
          {"a": f32(3, 4), "b": f32(4)}, ["y"], 13)
    write("test_gemm_trans_alpha_beta_row_bias",
          [helper.make_node("Gemm", ["a", "b", "c"], ["y"], transA=1,
                            transB=1, alpha=0.5, beta=2.0)],
          {"a": f32(4, 3), "b": f32(5, 4), "c": f32(5)}, ["y"], 13)
    write("test_expand_smaller_shape",
          [helper.make_node("Expand", ["x", "shape"], ["y"])],
          {"x": f32(2, 1, 3)}, ["y"], 13,
          initializers=[("shape", np.array([4, 1], dtype=np.int64))])
    write("test_where_three_way_broadcast",
          [helper.make_node("Where", ["c", "x", "y"], ["z"])],
          {"c": rng.random((3, 1)) > 0.5, "x": f32(1, 4), "y": f32(4)},
          ["z"], 16)
    write("test_mean_three_broadcast",
          [helper.make_node("Mean", ["a", "b", "c"], ["y"])],
          {"a": f32(2, 3), "b": f32(3), "c": f32(2, 1)}, ["y"], 13)
    write("test_layernorm_axis1_3d_outputs",
          [helper.make_node("LayerNormalization", ["x", "s", "b"],
                            ["y", "mean", "rstd"], axis=1, epsilon=1e-3)],
          {"x": f32(2, 3, 4), "s": f32(3, 4), "b": f32(3, 4)},
          ["y", "mean", "rstd"], 17)
    write("test_gather_axis1_2d_indices",
          [helper.make_node("Gather", ["x", "i"], ["y"], axis=1)],
          {"x": f32(3, 5)}, ["y"], 13,
          initializers=[("i", np.array([[0, 4], [-1, 2]], dtype=np.int64))])
    write("test_mod_fmod_float",
          [helper.make_node("Mod", ["a", "b"], ["y"], fmod=1)],
          {"a": f32(6), "b": (np.abs(f32(6)) + 0.5)}, ["y"], 13)
    write("test_flatten_axis0",
          [helper.make_node("Flatten", ["x"], ["y"], axis=0)],
          {"x": f32(2, 3, 4)}, ["y"], 13)
    write("test_constantofshape_int64_value",
          [helper.make_node("ConstantOfShape", ["shape"], ["y"],
                            value=helper.make_tensor("v", TensorProto.INT64,
                                                     [1], [7]))],
          {}, ["y"], 13,
          initializers=[("shape", np.array([2, 3], dtype=np.int64))])
    write("test_shape_size_fold_reshape",
          [helper.make_node("Shape", ["x"], ["s"], start=1),
           helper.make_node("ReduceProd", ["s"], ["p"], keepdims=1),
           helper.make_node("Concat", ["one", "p"], ["shape"], axis=0),
           helper.make_node("Reshape", ["x", "shape"], ["y"])],
          {"x": f32(2, 3, 4)}, ["y"], 15,
          initializers=[("one", np.array([2], dtype=np.int64))])
    # Before opset 7: broadcast=1 with an axis; Cast-1 names its type in a
    # string; consumed_inputs hints.
    a, b = f32(2, 3, 4, 5), f32(3, 4)
    write("test_add_opset6_broadcast_axis",
          [helper.make_node("Add", ["a", "b"], ["y"], broadcast=1, axis=1)],
          {"a": a, "b": b}, ["y"], 6,
          expected=[a + b.reshape(3, 4, 1)])
    c = f32(3, 4)
    write("test_cast_opset1_string_to",
          [helper.make_node("Cast", ["x"], ["y"], to="INT32")],
          {"x": (c * 10).astype(np.float32)}, ["y"], 1,
          expected=[np.trunc(c * 10).astype(np.int32)])
    r = f32(3, 4)
    write("test_relu_opset1_consumed_inputs",
          [helper.make_node("Relu", ["x"], ["y"], consumed_inputs=[0])],
          {"x": r}, ["y"], 1, expected=[np.maximum(r, 0)])
    # Gather with indices in a rising progression (one strided slice), and a
    # scalar index (the axis drops).
    write("test_gather_progression",
          [helper.make_node("Gather", ["x", "i"], ["y"], axis=0)],
          {"x": f32(7, 3)}, ["y"], 13,
          initializers=[("i", np.array([1, 3, 5], dtype=np.int64))])
    write("test_gather_scalar_index",
          [helper.make_node("Gather", ["x", "i"], ["y"], axis=1)],
          {"x": f32(2, 4, 3)}, ["y"], 13,
          initializers=[("i", np.array(-1, dtype=np.int64))])
    # LayerNormalization of f16: statistics in f32 (stash_type), Mean and
    # InvStdDev outputs in f32.
    TYPES[np.float16] = TensorProto.FLOAT16
    # (Expected values by the schema, in NumPy: onnx's reference evaluator
    # returns Mean and InvStdDev in the input's type.)
    h = f32(3, 8).astype(np.float16)
    # (A zero bias: y = n * s + b with cancellation would compare f16
    # rounding after each op with a fused kernel's single rounding.)
    hs, hb = f32(8).astype(np.float16), np.zeros(8, np.float16)
    h32 = h.astype(np.float32)
    mean = h32.mean(-1, keepdims=True)
    d = h32 - mean
    rstd = (1 / np.sqrt((d * d).mean(-1, keepdims=True) + 1e-5)).astype(
        np.float32)
    y = (d * rstd).astype(np.float16) * hs + hb
    write("test_layernorm_float16_stash_float",
          [helper.make_node("LayerNormalization", ["x", "s", "b"],
                            ["y", "mean", "rstd"], axis=-1)],
          {"x": h, "s": hs, "b": hb}, ["y", "mean", "rstd"], 17,
          expected=[y, mean, rstd])

    # Resize (issue 20) beyond the backend tests: a rank-3 (1-D) linear
    # downsample, length-1 outputs (pytorch_half_pixel reads -0.5,
    # align_corners 0), a scale that keeps a size but moves the samples,
    # nearest by an integer factor, half_pixel_symmetric, keep_aspect_ratio
    # not_smaller with linear, opset 11's required roi and scales (empty beside
    # sizes), f16 linear.
    def resize(name, x, attrs, scales=None, sizes=None, opset=19):
        inputs, initializers = ["x", ""], []
        if opset < 13:  # roi and scales required, empty where unused
            inputs[1] = "roi"
            initializers.append(("roi", np.zeros(0, np.float32)))
            scales = [] if scales is None else scales
        inputs.append("scales" if scales is not None else "")
        if scales is not None:
            initializers.append(("scales", np.array(scales, np.float32)))
        if sizes is not None:
            inputs.append("sizes")
            initializers.append(("sizes", np.array(sizes, np.int64)))
        write(name, [helper.make_node("Resize", inputs, ["y"], **attrs)],
              {"x": x}, ["y"], opset, initializers=initializers)

    resize("test_resize_linear_1d_asymmetric", f32(1, 4, 20),
           {"mode": "linear", "coordinate_transformation_mode": "asymmetric"},
           scales=[1, 1, 0.6])
    resize("test_resize_linear_pytorch_half_pixel_to_1", f32(1, 2, 5, 4),
           {"mode": "linear",
            "coordinate_transformation_mode": "pytorch_half_pixel"},
           sizes=[1, 2, 1, 3])
    resize("test_resize_linear_align_corners_to_1", f32(1, 2, 5, 4),
           {"mode": "linear", "coordinate_transformation_mode": "align_corners"},
           sizes=[1, 2, 1, 7])
    resize("test_resize_nearest_same_size_moved", f32(1, 1, 5, 6),
           {"mode": "nearest", "nearest_mode": "round_prefer_ceil"},
           scales=[1, 1, 1.1, 1.9])
    resize("test_resize_linear_same_size_moved", f32(1, 1, 5, 6),
           {"mode": "linear"}, scales=[1, 1, 1.1, 1])
    resize("test_resize_nearest_x3_asymmetric_floor", f32(2, 3, 4),
           {"mode": "nearest", "coordinate_transformation_mode": "asymmetric",
            "nearest_mode": "floor"}, scales=[1, 1, 3])
    resize("test_resize_nearest_half_pixel_symmetric", f32(1, 2, 7, 5),
           {"mode": "nearest",
            "coordinate_transformation_mode": "half_pixel_symmetric"},
           scales=[1, 1, 0.7, 1.7])
    resize("test_resize_linear_not_smaller_axes", f32(1, 2, 6, 4),
           {"mode": "linear", "keep_aspect_ratio_policy": "not_smaller",
            "axes": [2, 3]}, sizes=[5, 5])
    resize("test_resize_linear_opset11_sizes", f32(1, 1, 3, 4),
           {"mode": "linear", "coordinate_transformation_mode": "align_corners"},
           sizes=[1, 1, 5, 7], opset=11)
    TYPES[np.float16] = TensorProto.FLOAT16
    resize("test_resize_linear_float16", f32(1, 2, 3, 5).astype(np.float16),
           {"mode": "linear"}, sizes=[1, 2, 7, 4])
    # Upsample (opsets 7 to 9): Resize with asymmetric coordinates and
    # nearest rounding down, as onnxruntime runs it (onnx's reference
    # implements integer nearest scales only): the expected values are
    # Resize-11's on the same input.
    def upsample(name, x, mode, scales, opset):
        if opset < 9:
            node = helper.make_node("Upsample", ["x"], ["y"], mode=mode,
                                    scales=scales)
            initializers = []
        else:
            node = helper.make_node("Upsample", ["x", "s"], ["y"], mode=mode)
            initializers = [("s", np.array(scales, np.float32))]
        same = helper.make_model(helper.make_graph(
            [helper.make_node("Resize", ["x", "", "s"], ["y"], mode=mode,
                              coordinate_transformation_mode="asymmetric",
                              nearest_mode="floor")], name,
            [info("x", x)], [helper.make_tensor_value_info("y", 0, None)],
            [numpy_helper.from_array(np.array(scales, np.float32), "s")]),
            opset_imports=[helper.make_opsetid("", 11)])
        write(name, [node], {"x": x}, ["y"], opset, initializers=initializers,
              expected=ReferenceEvaluator(same).run(None, {"x": x}))

    upsample("test_upsample_opset7_nearest_fraction", f32(1, 2, 3, 4),
             "nearest", [1, 1, 2.5, 1.5], 7)
    upsample("test_upsample_opset9_linear", f32(1, 2, 3, 4), "linear",
             [1, 1, 2, 1.75], 9)
    upsample("test_upsample_opset9_nearest_3d", f32(2, 3, 5), "nearest",
             [1, 2, 3], 9)
    # align_corners with a scale that gives no whole length (7 x 1.5 = 10.5):
    # the corners of 7 map onto those of the 10 outputs, as onnxruntime and
    # PyTorch (F.interpolate(scale_factor=1.5, align_corners=True)) compute
    # it; expected from onnx's Resize given those sizes (its scales form
    # divides by 10.5 - 1 instead).
    x = f32(1, 2, 7, 5)
    sized = helper.make_model(helper.make_graph(
        [helper.make_node("Resize", ["x", "", "", "z"], ["y"], mode="linear",
                          coordinate_transformation_mode="align_corners")],
        "sized", [info("x", x)], [helper.make_tensor_value_info("y", 0, None)],
        [numpy_helper.from_array(np.array([1, 2, 10, 7], np.int64), "z")]),
        opset_imports=[helper.make_opsetid("", 13)])
    write("test_resize_linear_align_corners_fractional_scale",
          [helper.make_node("Resize", ["x", "", "s"], ["y"], mode="linear",
                            coordinate_transformation_mode="align_corners")],
          {"x": x}, ["y"], 13,
          initializers=[("s", np.array([1, 1, 1.5, 1.5], np.float32))],
          expected=ReferenceEvaluator(sized).run(None, {"x": x}))
    # An axis of scale 1 that keeps its size is left alone whatever the
    # mode, as onnx's reference and onnxruntime do: tf_half_pixel_for_nearest
    # with round_prefer_ceil would otherwise read x + 0.5 rounded up.
    x = f32(1, 2, 3, 4)
    write("test_resize_nearest_tf_half_pixel_scale_1",
          [helper.make_node("Resize", ["x", "", "s"], ["y"], mode="nearest",
                            coordinate_transformation_mode=(
                                "tf_half_pixel_for_nearest"),
                            nearest_mode="round_prefer_ceil")],
          {"x": x}, ["y"], 13,
          initializers=[("s", np.array([1, 1, 1, 1], np.float32))],
          expected=[x])
    print(f"wrote {len(os.listdir(OUT))} tests to {OUT}")


if __name__ == "__main__":
    main()
