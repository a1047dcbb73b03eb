#!/usr/bin/env python3
"""Writes the small ONNX models and TensorProto files the lit tests of
lit_tests/onnx use (committed next to this script; rerun it after a change):

  pip install onnx numpy && python3 lit_tests/onnx/Inputs/make_inputs.py
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def save(name, nodes, inputs, outputs, initializers=(), opset=17, check=True,
         ir_version=8):
    graph = helper.make_graph(nodes, name, inputs, outputs,
                              initializer=list(initializers))
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = ir_version
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, name + ".onnx"))


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


# A small model for .pb inputs: y = relu(x) + w (w an initializer).
w = numpy_helper.from_array(
    np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32), "w")
save("relu_add", [
    helper.make_node("Relu", ["x"], ["r"], name="relu"),
    helper.make_node("Add", ["r", "w"], ["y"], name="add"),
], [f32("x", [2, 3])], [f32("y", [2, 3])], [w])

# x as a TensorProto with typed float_data, and one with raw_data of the
# wrong shape.
x = helper.make_tensor("x", TensorProto.FLOAT, [2, 3],
                       [-1.0, 2.0, -3.0, 4.0, -5.0, 6.0])
with open(os.path.join(HERE, "x_typed.pb"), "wb") as f:
    f.write(x.SerializeToString())
bad = numpy_helper.from_array(np.ones([3, 2], dtype=np.float32), "x")
with open(os.path.join(HERE, "x_3x2.pb"), "wb") as f:
    f.write(bad.SerializeToString())

# An op Fuse does not import.
save("unsupported_op", [
    helper.make_node("GridSample", ["x", "grid"], ["y"], name="grid0"),
], [f32("x", [1, 1, 4, 4]), f32("grid", [1, 3, 3, 2])], [f32("y", [1, 1, 3, 3])])

# An attribute Fuse does not understand (not a valid ONNX attribute either).
save("unsupported_attr", [
    helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=-1,
                     temperature=2.0),
], [f32("x", [2, 3])], [f32("y", [2, 3])], check=False)

# Dynamic dimensions: a named one and an unnamed one.
save("dynamic", [
    helper.make_node("Relu", ["x"], ["y"], name="relu"),
], [f32("x", ["batch", 8])], [f32("y", ["batch", 8])])
unnamed = helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 8])
save("dynamic_unnamed", [
    helper.make_node("Relu", ["x"], ["y"], name="relu"),
], [unnamed], [f32("y", [None, 8])])

# An element type Fuse does not have.
save("string_input", [
    helper.make_node("Identity", ["x"], ["y"], name="id"),
], [helper.make_tensor_value_info("x", TensorProto.STRING, [4])],
    [helper.make_tensor_value_info("y", TensorProto.STRING, [4])])

# Unsigned and 16-bit integers: ops that read them unsigned (Div, Mod,
# Greater, Max, ArgMax, Cast) on inputs and on initializers that
# helper.make_tensor stores in int32_data (UINT8, INT16, one value per
# int32) and uint64_data (UINT64).
u8 = helper.make_tensor("u8", TensorProto.UINT8, [3], [200, 100, 7])
u64 = helper.make_tensor("u64", TensorProto.UINT64, [2],
                         [2**64 - 1, 2**63 + 6])
i16 = helper.make_tensor("i16", TensorProto.INT16, [2], [-300, 7])
two = helper.make_tensor("two", TensorProto.UINT64, [2], [2, 5])
empty = helper.make_tensor("empty", TensorProto.UINT64, [0, 2], [])


def tensor(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


save("unsigned_ops", [
    helper.make_node("Div", ["a", "b"], ["q"], name="div"),
    helper.make_node("Mod", ["a", "b"], ["r"], name="mod"),
    helper.make_node("Greater", ["a", "b"], ["gt"], name="gt"),
    helper.make_node("Max", ["a", "b"], ["mx"], name="max"),
    helper.make_node("ArgMax", ["u8"], ["am"], name="argmax", keepdims=0),
    helper.make_node("Cast", ["u8"], ["f"], name="cast", to=TensorProto.FLOAT),
    helper.make_node("Div", ["u64", "two"], ["h"], name="half"),
    helper.make_node("Neg", ["i16"], ["n"], name="neg"),
    # Over an empty set: the type's largest and smallest values.
    helper.make_node("ReduceMin", ["empty"], ["emin"], name="emin", axes=[0],
                     keepdims=0),
    helper.make_node("ReduceMax", ["empty"], ["emax"], name="emax", axes=[0],
                     keepdims=0),
], [tensor("a", TensorProto.UINT32, [4]), tensor("b", TensorProto.UINT32, [4])],
    [tensor("q", TensorProto.UINT32, [4]), tensor("r", TensorProto.UINT32, [4]),
     tensor("gt", TensorProto.BOOL, [4]), tensor("mx", TensorProto.UINT32, [4]),
     tensor("am", TensorProto.INT64, []), tensor("f", TensorProto.FLOAT, [3]),
     tensor("h", TensorProto.UINT64, [2]), tensor("n", TensorProto.INT16, [2]),
     tensor("emin", TensorProto.UINT64, [2]),
     tensor("emax", TensorProto.UINT64, [2])],
    [u8, u64, i16, two, empty])

# A shape that is only known at run time.
save("runtime_shape", [
    helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape"),
], [f32("x", [2, 3]), helper.make_tensor_value_info("shape", TensorProto.INT64,
                                                     [2])],
    [f32("y", [3, 2])])

# Opset 11 Softmax: coerced to 2-D at axis 1 (not the last axis alone).
save("softmax_opset11", [
    helper.make_node("Softmax", ["x"], ["y"], name="sm"),
], [f32("x", [2, 3, 4])], [f32("y", [2, 3, 4])], opset=11)

# The value of runtime_shape.onnx's `shape` input, bound at import time.
shape = numpy_helper.from_array(np.array([3, 2], dtype=np.int64), "shape")
with open(os.path.join(HERE, "shape_3x2.pb"), "wb") as f:
    f.write(shape.SerializeToString())

# An output declared with another shape than the one computed.
save("wrong_output_shape", [
    helper.make_node("Relu", ["x"], ["y"], name="relu"),
], [f32("x", [2, 3])], [f32("y", [3, 3])])

# Clip and PRelu whose bounds and slope are constants (every ReLU6,
# torch.clamp and PReLU export): the importer adds those constants while it
# lowers the node (OnnxImporterTest.ClipAndPReluWithConstantOperands).
def scalar(name, value):
    return numpy_helper.from_array(np.array(value, dtype=np.float32), name)


save("clip_constant_min", [
    helper.make_node("Constant", [], ["lo"], name="lo",
                     value=scalar("lo", -0.5)),
    helper.make_node("Clip", ["x", "lo"], ["y"], name="clip"),
], [f32("x", [2, 3, 4])], [f32("y", [2, 3, 4])])
save("clip_initializers", [
    helper.make_node("Clip", ["x", "lo", "hi"], ["y"], name="clip"),
], [f32("x", [2, 3, 4])], [f32("y", [2, 3, 4])],
    [scalar("lo", 0.0), scalar("hi", 6.0)])
save("clip_max_only", [
    helper.make_node("Clip", ["x", "", "hi"], ["y"], name="clip"),
], [f32("x", [2, 3, 4])], [f32("y", [2, 3, 4])], [scalar("hi", 0.25)])
save("clip_opset6", [
    helper.make_node("Clip", ["x"], ["y"], name="clip", min=-1.0, max=0.5),
], [f32("x", [2, 3, 4])], [f32("y", [2, 3, 4])], opset=6)
save("prelu_slope1", [
    helper.make_node("PRelu", ["x", "slope"], ["y"], name="prelu"),
], [f32("x", [2, 3, 4])], [f32("y", [2, 3, 4])],
    [numpy_helper.from_array(np.array([0.25], dtype=np.float32), "slope")])
save("prelu_channel_opset16", [
    helper.make_node("PRelu", ["x", "slope"], ["y"], name="prelu"),
], [f32("x", [2, 3, 4, 5])], [f32("y", [2, 3, 4, 5])],
    [numpy_helper.from_array(
        np.array([0.1, 0.2, 0.3], dtype=np.float32).reshape(3, 1, 1),
        "slope")], opset=16)
save("prelu_opset6", [
    helper.make_node("PRelu", ["x", "slope"], ["y"], name="prelu"),
], [f32("x", [2, 3, 4])], [f32("y", [2, 3, 4])],
    [numpy_helper.from_array(np.array([0.5], dtype=np.float32), "slope")],
    opset=6)
# IR version 3: initializers are also listed as graph inputs.
save("prelu_ir3", [
    helper.make_node("PRelu", ["x", "slope"], ["y"], name="prelu"),
], [f32("x", [2, 3, 4]), f32("slope", [3, 1])], [f32("y", [2, 3, 4])],
    [numpy_helper.from_array(
        np.array([0.5, -0.25, 2.0], dtype=np.float32).reshape(3, 1),
        "slope")], opset=7, ir_version=3)

# Concat of a [2,3] and a [3] along axis 0 (invalid: the ranks differ).
save("concat_rank_mismatch", [
    helper.make_node("Concat", ["a", "b"], ["y"], name="concat", axis=0),
], [f32("a", [2, 3]), f32("b", [3])], [f32("y", [5, 3])], check=False)


# Slices of a [2, 5] input along axis 1 with extreme steps (as NumPy:
# x[:, ::INT64_MIN] and x[:, ::INT64_MAX] take one column each).
def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
save("slice_extreme_steps", [
    helper.make_node("Slice", ["x", "s0", "e0", "axes", "min"], ["down"],
                     name="down"),
    helper.make_node("Slice", ["x", "s1", "e1", "axes", "max"], ["up"],
                     name="up"),
], [f32("x", [2, 5])], [f32("down", [2, 1]), f32("up", [2, 1])],
    [ints("s0", [INT64_MAX]), ints("e0", [INT64_MIN]), ints("axes", [1]),
     ints("min", [INT64_MIN]), ints("s1", [0]), ints("e1", [INT64_MAX]),
     ints("max", [INT64_MAX])])

# Invalid models the ONNX checker refuses (OnnxImporterTest.InvalidModels):
# versions out of range, a value defined twice, a node writing its input.
for opset in (0, 99, -5):
    save(f"bad_opset_{opset}".replace("-", "minus"), [
        helper.make_node("Relu", ["x"], ["y"], name="relu"),
    ], [f32("x", [2])], [f32("y", [2])], opset=opset, check=False)
for ir in (1, 999):
    save(f"bad_ir_{ir}", [
        helper.make_node("Relu", ["x"], ["y"], name="relu"),
    ], [f32("x", [2])], [f32("y", [2])], ir_version=ir, check=False)
save("value_defined_twice", [
    helper.make_node("Relu", ["x"], ["y"], name="relu"),
    helper.make_node("Neg", ["x"], ["y"], name="neg"),
], [f32("x", [2])], [f32("y", [2])], check=False)
save("node_writes_its_input", [
    helper.make_node("Neg", ["x"], ["t"], name="neg"),
    helper.make_node("Relu", ["t"], ["t"], name="relu"),
], [f32("x", [2])], [f32("t", [2])], check=False)
# An initializer given twice (which value holds is undefined), a graph input
# listed twice, a Slice of one axis twice (undefined in ONNX; the second
# slice once replaced the first).
save("initializer_twice", [
    helper.make_node("Add", ["x", "w"], ["y"], name="add"),
], [f32("x", [2])], [f32("y", [2])],
    [numpy_helper.from_array(np.ones(2, np.float32), "w"),
     numpy_helper.from_array(np.zeros(2, np.float32), "w")], check=False)
save("input_listed_twice", [
    helper.make_node("Relu", ["x"], ["y"], name="relu"),
], [f32("x", [2]), f32("x", [2])], [f32("y", [2])], check=False)
save("slice_axis_twice", [
    helper.make_node("Slice", ["x", "s", "e", "axes"], ["y"], name="slice"),
], [f32("x", [2, 5])], [f32("y", [2, 1])],
    [ints("s", [0, 1]), ints("e", [5, 2]), ints("axes", [1, 1])], check=False)
# Shape arithmetic that passes 2^63 (OnnxImporter.ShapeArithmeticOverflow):
# SAME padding for a stride of INT64_MAX and a dilation of 2^62 (the wrapped
# padding ran), split sizes whose end wraps, a Reshape whose known entries'
# product wraps to 4 (the -1 was inferred from it).
save("conv_same_padding_overflow", [
    helper.make_node("Conv", ["x", "w"], ["y"], name="conv",
                     auto_pad="SAME_UPPER", strides=[INT64_MAX, 1],
                     dilations=[2**62, 1]),
], [f32("x", [1, 1, 4, 4]), f32("w", [1, 1, 3, 3])], [f32("y", None)],
    check=False)
save("split_sizes_overflow", [
    helper.make_node("Split", ["x", "split"], ["a", "b", "c"], name="split"),
], [f32("x", [4])], [f32("a", None), f32("b", None), f32("c", None)],
    [ints("split", [1, INT64_MAX, -INT64_MAX + 2])], check=False)
save("reshape_known_overflow", [
    helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape"),
], [f32("x", [16])], [f32("y", None)],
    [ints("shape", [-1, 2**62 + 1, 4])], check=False)
# More shape arithmetic past 2^63 (issue 19, CheckedInt through the importer
# and the Graph; onnx/shape-overflow.test): empty inputs whose concatenated
# axis passes 2^63 (it wrapped to INT64_MIN), num_outputs of INT64_MAX (the
# importer made that many parts), a pad that passes 2^63 (wrapped), a crop of
# INT64_MIN (negated), a Flatten of an empty [2^32, 2^32, 0] at axis 2 (the
# outer product saturated to INT64_MAX).
save("concat_dims_overflow", [
    helper.make_node("Concat", ["a", "b"], ["y"], name="concat", axis=1),
], [f32("a", [0, 2**62]), f32("b", [0, 2**62])], [f32("y", None)], check=False)
save("split_num_outputs_overflow", [
    helper.make_node("Split", ["x"], ["a", "b"], name="split", axis=0,
                     num_outputs=INT64_MAX),
], [f32("x", [4])], [f32("a", None), f32("b", None)], opset=18, check=False)
save("pad_size_overflow", [
    helper.make_node("Pad", ["x", "pads"], ["y"], name="pad"),
], [f32("x", [0, 4])], [f32("y", None)], [ints("pads", [0, INT64_MAX, 0, 2])],
    check=False)
save("pad_crop_overflow", [
    helper.make_node("Pad", ["x", "pads"], ["y"], name="pad"),
], [f32("x", [4])], [f32("y", None)], [ints("pads", [-INT64_MAX - 1, 0])],
    check=False)
save("flatten_outer_overflow", [
    helper.make_node("Flatten", ["x"], ["y"], name="flatten", axis=2),
], [f32("x", [2**32, 2**32, 0])], [f32("y", None)], check=False)
# A graph that lists one output twice (valid ONNX): both copies hold the
# value (onnx/output-listed-twice.test).
save("output_listed_twice", [
    helper.make_node("Exp", ["x"], ["y"], name="exp"),
], [f32("x", [16])], [f32("y", [16]), f32("y", [16])])

# Nodes without outputs (the checker refuses them): one a Shape, which the
# importer evaluates at import time, one a Relu, which it lowers.
save("shape_without_outputs", [
    helper.make_node("Shape", ["x"], [], name="shape"),
    helper.make_node("Relu", ["x"], ["y"], name="relu"),
], [f32("x", [2])], [f32("y", [2])], check=False)
save("relu_without_outputs", [
    helper.make_node("Relu", ["x"], [], name="relu"),
    helper.make_node("Neg", ["x"], ["y"], name="neg"),
], [f32("x", [2])], [f32("y", [2])], check=False)

# An embedding lookup whose indices are a model input, through a Cast: a
# gather at run time (before issue 21 the importer needed `ids` as a constant
# and fuse-run compiled its --input value, ids_1_3.pb, into the model).
save("gather_input_ids", [
    helper.make_node("Cast", ["ids"], ["ids64"], name="cast",
                     to=TensorProto.INT64),
    helper.make_node("Gather", ["table", "ids64"], ["rows"], name="embed",
                     axis=0),
    helper.make_node("Add", ["rows", "x"], ["y"], name="add"),
], [helper.make_tensor_value_info("ids", TensorProto.INT32, [2]),
    f32("x", [2, 4])], [f32("y", [2, 4])],
    [numpy_helper.from_array(
        np.arange(64 * 4, dtype=np.float32).reshape(64, 4), "table")])
ids = numpy_helper.from_array(np.array([1, 3], dtype=np.int32), "ids")
with open(os.path.join(HERE, "ids_1_3.pb"), "wb") as f:
    f.write(ids.SerializeToString())

# Pooling as exported CNNs use it: MaxPool with SAME_UPPER padding, a relu,
# an AveragePool with ceil_mode and count_include_pad, the global pools.
save("pool_stack", [
    helper.make_node("MaxPool", ["x"], ["m"], name="maxpool", kernel_shape=[3, 3],
                     strides=[2, 2], auto_pad="SAME_UPPER"),
    helper.make_node("Relu", ["m"], ["r"], name="relu"),
    helper.make_node("AveragePool", ["r"], ["a"], name="avgpool",
                     kernel_shape=[2, 2], strides=[2, 2], pads=[1, 0, 1, 0],
                     ceil_mode=1, count_include_pad=1),
    helper.make_node("GlobalAveragePool", ["a"], ["y"], name="gap"),
    helper.make_node("GlobalMaxPool", ["x"], ["z"], name="gmp"),
], [f32("x", [1, 4, 11, 11])], [f32("y", [1, 4, 1, 1]), f32("z", [1, 4, 1, 1])])

# MaxPool's optional Indices output is refused, naming the node.
save("maxpool_indices", [
    helper.make_node("MaxPool", ["x"], ["y", "i"], name="pool_with_indices",
                     kernel_shape=[2, 2]),
], [f32("x", [1, 1, 4, 4])],
    [f32("y", [1, 1, 3, 3]),
     helper.make_tensor_value_info("i", TensorProto.INT64, [1, 1, 3, 3])])

# Convolutions and Pad (issue 20): weights are initializers of fixed random
# values (seeded), the inputs random at run time.
rng = np.random.default_rng(20)


def weight(name, shape, dtype=np.float32):
    return numpy_helper.from_array(
        rng.uniform(-1, 1, shape).astype(dtype), name)


def value(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


# 2-D: bias, two groups, strides, dilations, uneven pads.
save("conv_2d_groups", [
    helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv", group=2,
                     strides=[2, 1], dilations=[1, 2], pads=[1, 0, 1, 1],
                     kernel_shape=[3, 3]),
], [f32("x", [2, 4, 7, 6])], [f32("y", [2, 6, 4, 3])],
    [weight("w", [6, 2, 3, 3]), weight("b", [6])])
# 1-D with SAME_UPPER, then a depthwise 2-D one with SAME_LOWER and stride 2,
# with BatchNormalization and Relu after it (a CNN block).
save("conv_1d_same_upper", [
    helper.make_node("Conv", ["x", "w"], ["y"], name="conv",
                     auto_pad="SAME_UPPER", strides=[3]),
], [f32("x", [1, 3, 10])], [f32("y", [1, 4, 4])], [weight("w", [4, 3, 4])])
save("conv_depthwise_bn_relu", [
    helper.make_node("Conv", ["x", "w"], ["c"], name="conv", group=4,
                     auto_pad="SAME_LOWER", strides=[2, 2]),
    helper.make_node("BatchNormalization", ["c", "s", "bb", "m", "v"], ["n"],
                     name="bn", epsilon=1e-3),
    helper.make_node("Relu", ["n"], ["y"], name="relu"),
], [f32("x", [1, 4, 7, 7])], [f32("y", [1, 4, 4, 4])],
    [weight("w", [4, 1, 3, 3]), weight("s", [4]), weight("bb", [4]),
     weight("m", [4]),
     numpy_helper.from_array(rng.uniform(0.5, 2, [4]).astype(np.float32),
                             "v")])
# f16 at opset 17, bf16 at opset 22 (Conv-22 takes bfloat16); VALID pads.
save("conv_f16", [
    helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv",
                     auto_pad="VALID"),
], [value("x", TensorProto.FLOAT16, [1, 3, 6, 6])],
    [value("y", TensorProto.FLOAT16, [1, 5, 4, 4])],
    [weight("w", [5, 3, 3, 3], np.float16), weight("b", [5], np.float16)])
bf16_w = helper.make_tensor("w", TensorProto.BFLOAT16, [4, 2, 3],
                            rng.uniform(-1, 1, 24).tolist())
save("conv_bf16", [
    helper.make_node("Conv", ["x", "w"], ["y"], name="conv", pads=[1, 1]),
], [value("x", TensorProto.BFLOAT16, [1, 2, 8])],
    [value("y", TensorProto.BFLOAT16, [1, 4, 8])], [bf16_w], opset=22)
# Refused: a 3-D convolution, an auto_pad value, pads with SAME_UPPER.
save("conv_3d", [
    helper.make_node("Conv", ["x", "w"], ["y"], name="conv3d"),
], [f32("x", [1, 1, 4, 4, 4])], [f32("y", [1, 1, 2, 2, 2])],
    [weight("w", [1, 1, 3, 3, 3])])
save("conv_bad_auto_pad", [
    helper.make_node("Conv", ["x", "w"], ["y"], name="conv", auto_pad="SAME"),
], [f32("x", [1, 1, 4, 4])], [f32("y", [1, 1, 2, 2])],
    [weight("w", [1, 1, 3, 3])], check=False)
save("conv_pads_and_auto_pad", [
    helper.make_node("Conv", ["x", "w"], ["y"], name="conv",
                     auto_pad="SAME_UPPER", pads=[1, 1, 1, 1]),
], [f32("x", [1, 1, 4, 4])], [f32("y", [1, 1, 4, 4])],
    [weight("w", [1, 1, 3, 3])], check=False)


def ints64(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


# Pad: reflect, edge, constant with a value input, negative pads (a crop),
# the opset-2 attribute form, the axes input of opset 18, and a refused mode.
save("pad_modes", [
    helper.make_node("Pad", ["x", "p1"], ["r"], name="reflect",
                     mode="reflect"),
    helper.make_node("Pad", ["r", "p2"], ["e"], name="edge", mode="edge"),
    helper.make_node("Pad", ["e", "p3", "cv"], ["y"], name="constant"),
], [f32("x", [2, 3, 4])], [f32("y", [2, 7, 7])],
    [ints64("p1", [0, 1, 2, 0, 1, 1]), ints64("p2", [0, 0, -1, 0, 1, 0]),
     ints64("p3", [0, 0, 0, 0, 1, 1]),
     numpy_helper.from_array(np.array(1.5, dtype=np.float32), "cv")])
save("pad_opset2", [
    helper.make_node("Pad", ["x"], ["y"], name="pad", mode="constant",
                     pads=[1, 0, 0, 2], value=-2.0),
], [f32("x", [2, 3])], [f32("y", [3, 5])], opset=2, ir_version=3)
save("pad_axes", [
    helper.make_node("Pad", ["x", "p", "", "axes"], ["y"], name="pad",
                     mode="edge"),
], [f32("x", [2, 3])], [f32("y", [2, 6])],
    [ints64("p", [2, 1]), ints64("axes", [-1])], opset=18)
save("pad_wrap_opset17", [
    helper.make_node("Pad", ["x", "p"], ["y"], name="pad", mode="wrap"),
], [f32("x", [2, 3])], [f32("y", [2, 5])], [ints64("p", [0, 1, 0, 1])],
    check=False)
save("pad_reflect_too_far", [
    helper.make_node("Pad", ["x", "p"], ["y"], name="pad", mode="reflect"),
], [f32("x", [2, 3])], [f32("y", [2, 9])], [ints64("p", [0, 3, 0, 3])])


# Gathers with run-time indices (issue 21): token ids (a model input) into an
# embedding table, a position add and a LayerNormalization; a Gather along
# axis 1 with int32 indices given at run time; the ids through a Reshape
# (GPT-2's export); constant indices out of order (a gather too) and in a
# rising progression (a strided slice). Ids files: two sentences and one with
# an index past the table.
save("gather_runtime", [
    helper.make_node("Gather", ["table", "input_ids"], ["emb"], name="embed",
                     axis=0),
    helper.make_node("Add", ["emb", "pos"], ["s"], name="add_pos"),
    helper.make_node("LayerNormalization", ["s", "gamma", "beta"], ["y"],
                     name="ln", axis=-1, epsilon=1e-5),
    helper.make_node("Gather", ["x", "idx"], ["z"], name="middle", axis=1),
    helper.make_node("Reshape", ["input_ids", "flat_shape"], ["flat"],
                     name="flatten"),
    helper.make_node("Gather", ["table", "flat"], ["rows"], name="rows",
                     axis=0),
    helper.make_node("Gather", ["table", "picked"], ["c"], name="picked",
                     axis=0),
    helper.make_node("Gather", ["table", "every_other"], ["p"],
                     name="every_other", axis=0),
], [value("input_ids", TensorProto.INT64, [2, 6]), f32("x", [3, 5, 4]),
    value("idx", TensorProto.INT32, [2])],
    [f32("y", [2, 6, 16]), f32("z", [3, 2, 4]), f32("rows", [12, 16]),
     f32("c", [3, 16]), f32("p", [3, 16])],
    [weight("table", [50, 16]), weight("pos", [6, 16]), weight("gamma", [16]),
     weight("beta", [16]), ints64("flat_shape", [12]),
     ints64("picked", [4, 0, -1]), ints64("every_other", [1, 3, 5])])
for name, ids in [("ids_sentence_a", [[1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12]]),
                  ("ids_sentence_b", [[49, 0, -1, 20, 21, 3], [5, 5, 5, 5, 5, 5]]),
                  ("ids_out_of_range", [[1, 2, 3, 4, 5, 6], [7, 50, 9, 10, 11, 12]])]:
    with open(os.path.join(HERE, name + ".pb"), "wb") as f:
        f.write(numpy_helper.from_array(np.array(ids, dtype=np.int64),
                                        "input_ids").SerializeToString())


# GatherElements (BERT's export, issue 21): run-time int64 indices along
# axis 1, run-time int32 indices along the last axis (given as -1), constant
# indices (negative ones among them) along axis 0, and a constant gathered
# from a constant as BERT's embeddings do it (token type ids: an Expand of a
# buffer whose shape is computed, then a GatherElements; folded at import),
# and run-time indices into a splat constant (RoBERTa's token types: a splat
# of the indices' shape).
# gather_elements_bad_*: refusals that name the node.
save("gather_elements", [
    helper.make_node("GatherElements", ["x", "i"], ["y"], name="axis1",
                     axis=1),
    helper.make_node("GatherElements", ["x", "j"], ["z"], name="last",
                     axis=-1),
    helper.make_node("GatherElements", ["x", "k"], ["w"], name="constant",
                     axis=0),
    helper.make_node("Expand", ["buffer", "buffer_shape"], ["expanded"],
                     name="expand"),
    helper.make_node("GatherElements", ["expanded", "positions"], ["types"],
                     name="folded", axis=1),
    helper.make_node("Expand", ["zeros", "buffer_shape"], ["zeros_wide"],
                     name="expand_zeros"),
    helper.make_node("GatherElements", ["zeros_wide", "p"], ["splat"],
                     name="splat_data", axis=1),
], [f32("x", [3, 5, 6]), value("i", TensorProto.INT64, [3, 2, 6]),
    value("j", TensorProto.INT32, [3, 5, 2]),
    value("p", TensorProto.INT64, [1, 6])],
    [f32("y", [3, 2, 6]), f32("z", [3, 5, 2]), f32("w", [2, 5, 6]),
     value("types", TensorProto.INT64, [1, 6]),
     value("splat", TensorProto.INT64, [1, 6])],
    [ints64("k", np.resize([2, -1, 0, 1, -3, 1, 0], (2, 5, 6)).tolist()),
     ints64("zeros", [[0] * 8]),
     ints64("buffer", [[0, 1, 2, 3, 4, 5, 6, 7]]),
     ints64("buffer_shape", [1, 8]),
     ints64("positions", [[0, 1, 2, 3, 4, 5]])])
save("gather_elements_bad_rank", [
    helper.make_node("GatherElements", ["x", "i"], ["y"], name="bad_rank",
                     axis=0),
], [f32("x", [3, 5]), value("i", TensorProto.INT64, [3])],
    [f32("y", [3])], check=False)
save("gather_elements_bad_index", [
    helper.make_node("GatherElements", ["x", "i"], ["y"], name="bad_index",
                     axis=1),
], [f32("x", [3, 5])], [f32("y", [3, 1])],
    [ints64("i", [[0], [5], [1]])], check=False)


# The shape ops older and dynamic-axes exports use (issue 21): position ids
# as Range(0, Shape's dim, 1), Unsqueeze, Expand, then a Gather; a float
# Range; Trilu above and below a diagonal (k an initializer); CumSum of the
# attention mask times the mask (RoBERTa's position ids) and an exclusive
# reverse CumSum of floats. range_bad_delta: a zero delta; range_from_input:
# a limit given as a model input (fuse-run binds it at import).
save("shape_ops", [
    helper.make_node("Shape", ["x"], ["shape"], name="shape"),
    helper.make_node("Gather", ["shape", "one"], ["length"], name="length",
                     axis=0),
    helper.make_node("Range", ["zero", "length", "one"], ["positions"],
                     name="range"),
    helper.make_node("Unsqueeze", ["positions", "zero_axis"], ["row"],
                     name="unsqueeze"),
    helper.make_node("Expand", ["row", "ids_shape"], ["ids"], name="expand"),
    helper.make_node("Gather", ["table", "ids"], ["pos"], name="embed",
                     axis=0),
    helper.make_node("Range", ["f_start", "f_limit", "f_delta"], ["fr"],
                     name="float_range"),
    helper.make_node("Trilu", ["x", "k_up"], ["upper"], name="upper",
                     upper=1),
    helper.make_node("Trilu", ["x", "k_low"], ["lower"], name="lower",
                     upper=0),
    helper.make_node("CumSum", ["mask", "one"], ["running"], name="cumsum"),
    helper.make_node("Mul", ["running", "mask"], ["mask_positions"],
                     name="mask_positions"),
    helper.make_node("CumSum", ["x", "minus_one"], ["tail_sums"],
                     name="tail_sums", exclusive=1, reverse=1),
], [f32("x", [2, 6, 8]), value("mask", TensorProto.INT64, [2, 6])],
    [f32("pos", [2, 6, 4]), f32("fr", [4]), f32("upper", [2, 6, 8]),
     f32("lower", [2, 6, 8]), value("mask_positions", TensorProto.INT64, [2, 6]),
     f32("tail_sums", [2, 6, 8])],
    [weight("table", [10, 4]), ints64("zero", 0), ints64("one", 1),
     ints64("minus_one", -1), ints64("zero_axis", [0]),
     ints64("ids_shape", [2, 6]), ints64("k_up", 1), ints64("k_low", -2),
     numpy_helper.from_array(np.array(0.5, np.float32), "f_start"),
     numpy_helper.from_array(np.array(3.0, np.float32), "f_limit"),
     numpy_helper.from_array(np.array(0.75, np.float32), "f_delta")])
save("range_bad_delta", [
    helper.make_node("Range", ["start", "limit", "delta"], ["y"],
                     name="bad_delta"),
], [], [value("y", TensorProto.INT64, [None])],
    [ints64("start", 0), ints64("limit", 4), ints64("delta", 0)],
    check=False)
save("range_from_input", [
    helper.make_node("Range", ["start", "n", "delta"], ["positions"],
                     name="range"),
    helper.make_node("Gather", ["table", "positions"], ["y"], name="embed",
                     axis=0),
], [value("n", TensorProto.INT64, [])], [f32("y", [3, 4])],
    [weight("table", [10, 4]), ints64("start", 0), ints64("delta", 1)])


# GatherND (the dynamo exporter reads the attention mask with one, issue 21):
# constant index pairs over a run-time mask (the export's [1, 1, 1, S, 2]
# pattern), run-time int64 tuples selecting rows (k below the data's rank),
# and run-time tuples with batch_dims 1. gathernd_bad_index: a constant
# index out of range.
save("gathernd", [
    helper.make_node("GatherND", ["mask", "pairs"], ["picked"], name="pairs"),
    helper.make_node("GatherND", ["x", "rows"], ["y"], name="rows"),
    helper.make_node("GatherND", ["x", "batched"], ["z"], name="batched",
                     batch_dims=1),
], [value("mask", TensorProto.INT64, [1, 6]), f32("x", [3, 5, 4]),
    value("rows", TensorProto.INT64, [2, 2]),
    value("batched", TensorProto.INT64, [3, 2, 1])],
    [value("picked", TensorProto.INT64, [1, 1, 1, 6]), f32("y", [2, 4]),
     f32("z", [3, 2, 4])],
    [ints64("pairs", [[[[[0, i] for i in range(6)]]]])])
save("gathernd_bad_index", [
    helper.make_node("GatherND", ["x", "i"], ["y"], name="bad_index"),
], [f32("x", [3, 5])], [f32("y", [2])], [ints64("i", [[0, 1], [3, 0]])],
    check=False)


# A Gather whose indices are a splat constant (the same row for every
# position: RoBERTa's token types) runs with the indices as a constant op.
save("gather_splat_indices", [
    helper.make_node("Gather", ["table", "same"], ["y"], name="same_row",
                     axis=0),
    helper.make_node("Add", ["y", "x"], ["z"], name="add"),
], [f32("x", [2, 3, 16])], [f32("z", [2, 3, 16])],
    [weight("table", [5, 16]), ints64("same", [[2, 2, 2], [2, 2, 2]])])


# Dynamic dims bound by the inputs given (issue 21): two inputs that share
# 'batch' and 'sequence', and an unnamed dim.
save("dynamic_shared", [
    helper.make_node("Add", ["x", "y"], ["s"], name="add"),
    helper.make_node("ReduceSum", ["s", "axes"], ["z"], name="sum",
                     keepdims=0),
], [f32("x", ["batch", "sequence", None]), f32("y", ["batch", "sequence", 4])],
    [f32("z", ["batch", "sequence"])], [ints64("axes", [2])])


# Refusals of the gather and shape ops of issue 21, each naming the node:
# errors_NAME.onnx.
def error_model(name, node, inputs, outputs, initializers=()):
    save("errors_" + name, [node], inputs, outputs, initializers, check=False)


error_model("gather_elements_larger",
            helper.make_node("GatherElements", ["x", "i"], ["y"], name="n",
                             axis=1),
            [f32("x", [3, 5])], [f32("y", [4, 5])],
            [ints64("i", np.zeros((4, 5), np.int64).tolist())])
error_model("gather_elements_float_index",
            helper.make_node("GatherElements", ["x", "i"], ["y"], name="n"),
            [f32("x", [3, 5]), f32("i", [3, 5])], [f32("y", [3, 5])])
error_model("gathernd_long_tuples",
            helper.make_node("GatherND", ["x", "i"], ["y"], name="n"),
            [f32("x", [3, 5]), value("i", TensorProto.INT64, [2, 3])],
            [f32("y", [2])])
error_model("gathernd_batch_dims",
            helper.make_node("GatherND", ["x", "i"], ["y"], name="n",
                             batch_dims=2),
            [f32("x", [3, 5]), value("i", TensorProto.INT64, [3, 1])],
            [f32("y", [3])])
error_model("gathernd_batch_mismatch",
            helper.make_node("GatherND", ["x", "i"], ["y"], name="n",
                             batch_dims=1),
            [f32("x", [3, 5]), value("i", TensorProto.INT64, [2, 1])],
            [f32("y", [2])])
error_model("range_not_scalar",
            helper.make_node("Range", ["s", "l", "d"], ["y"], name="n"),
            [], [value("y", TensorProto.INT64, [None])],
            [ints64("s", [0, 1]), ints64("l", 4), ints64("d", 1)])
error_model("range_types",
            helper.make_node("Range", ["s", "l", "d"], ["y"], name="n"),
            [], [value("y", TensorProto.INT64, [None])],
            [ints64("s", 0), numpy_helper.from_array(np.array(4, np.int32), "l"),
             ints64("d", 1)])
error_model("range_float_delta",
            helper.make_node("Range", ["s", "l", "d"], ["y"], name="n"),
            [], [f32("y", [None])],
            [numpy_helper.from_array(np.array(v, np.float32), k)
             for k, v in [("s", 0), ("l", 4), ("d", 0)]])
error_model("trilu_rank1",
            helper.make_node("Trilu", ["x"], ["y"], name="n"),
            [f32("x", [4])], [f32("y", [4])])
error_model("trilu_two_k",
            helper.make_node("Trilu", ["x", "k"], ["y"], name="n"),
            [f32("x", [4, 4])], [f32("y", [4, 4])], [ints64("k", [1, 2])])
error_model("cumsum_scalar",
            helper.make_node("CumSum", ["x", "a"], ["y"], name="n"),
            [f32("x", [])], [f32("y", [])], [ints64("a", 0)])
error_model("cumsum_long",
            helper.make_node("CumSum", ["x", "a"], ["y"], name="n"),
            [f32("x", [5000])], [f32("y", [5000])], [ints64("a", 0)])


# Folding at import evaluates a node whose inputs are all small constants;
# it stops where the node's tensors would hold more than 2^22 elements in
# all, and the node is lowered into the graph instead: an Expand of a scalar
# to 2^40 elements is then refused as the graph's (the fuzz replay under
# ASan found the interpreter allocating 1.6 TB for such a fold), a CumSum of
# 4096 constants (a 4096 x 4096 mask) runs as kernels.
save("fold_huge_expand", [
    helper.make_node("Expand", ["one", "shape"], ["y"], name="expand"),
], [], [f32("y", [1 << 20, 1 << 20])],
    [numpy_helper.from_array(np.array(1.0, dtype=np.float32), "one"),
     ints64("shape", [1 << 20, 1 << 20])], check=False)
save("fold_large_cumsum", [
    helper.make_node("CumSum", ["c", "axis"], ["s"], name="cumsum"),
    helper.make_node("Add", ["s", "x"], ["y"], name="add"),
], [f32("x", [4096])], [f32("y", [4096])],
    [numpy_helper.from_array(np.linspace(-1, 1, 4096, dtype=np.float32), "c"),
     numpy_helper.from_array(np.array(0, dtype=np.int64), "axis")])


# Found by the structured graph generator (fuzz/onnx_graphs.py): an
# input the op does not have at the model's opset was ignored (ReduceMean's
# axes before opset 18: the mean over every axis, exit 0), and a Reshape
# between different element counts was refused by the graph's verifier
# ('op #0 (reshape): result type ...') instead of the importer.
error_model("reduce_mean_axes_input_opset17",
            helper.make_node("ReduceMean", ["x", "axes"], ["y"], name="n",
                             keepdims=1),
            [f32("x", [2, 3])], [f32("y", None)], [ints64("axes", [-1])])
error_model("reduce_mean_axes_input_folded",
            helper.make_node("ReduceMean", ["c", "axes"], ["y"], name="n",
                             keepdims=1),
            [], [f32("y", None)],
            [numpy_helper.from_array(np.ones((2, 3), np.float32), "c"),
             ints64("axes", [-1])])
error_model("reshape_empty_to_6",
            helper.make_node("Reshape", ["x", "shape"], ["y"], name="n"),
            [f32("x", [0, 7])], [f32("y", [6])], [ints64("shape", [6])])
error_model("reshape_to_scalar",
            helper.make_node("Reshape", ["x", "shape"], ["y"], name="n"),
            [f32("x", [4])], [f32("y", [])], [ints64("shape", [])])
# Expand's shape holds sizes only (Reshape's -1 is not one): a negative
# entry was the graph verifier's 'negative dimension: tensor<2x-1xf32>'.
error_model("expand_negative_size",
            helper.make_node("Expand", ["x", "shape"], ["y"], name="n"),
            [f32("x", [2, 1])], [f32("y", None)], [ints64("shape", [2, -1])])
# Tile's repeats: one per dim of the input, none negative, known at import.
error_model("tile_repeats",
            helper.make_node("Tile", ["x", "r"], ["y"], name="n"),
            [f32("x", [2, 3])], [f32("y", None)], [ints64("r", [2])])
error_model("tile_negative",
            helper.make_node("Tile", ["x", "r"], ["y"], name="n"),
            [f32("x", [2, 3])], [f32("y", None)], [ints64("r", [2, -1])])
error_model("tile_runtime_repeats",
            helper.make_node("Tile", ["x", "r"], ["y"], name="n"),
            [f32("x", [2, 3]), tensor("r", TensorProto.INT64, [2])],
            [f32("y", None)])
# An optional input the lowering has no use for is still read: Dropout's
# ratio (an input from opset 12) outside training.
save("dropout_ratio_input",
     [helper.make_node("Dropout", ["x", "r"], ["y"], name="n")],
     [f32("x", [4])], [f32("y", [4])],
     [numpy_helper.from_array(np.array(0.25, np.float32), "r")])

# Resize (issue 20): scales or sizes as initializers (roi empty), random
# inputs at run time; the output shapes declared, so the importer's sizes are
# checked against ONNX's.


def floats(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.float32), name)


def resize(name, x_shape, y_shape, scales=None, sizes=None, elem=TensorProto.FLOAT,
           opset=19, check=True, **attrs):
    inputs = ["x", "", "scales" if scales is not None else ""]
    initializers = []
    if scales is not None:
        initializers.append(floats("scales", scales))
    if sizes is not None:
        inputs.append("sizes")
        initializers.append(ints64("sizes", sizes))
    save(name, [helper.make_node("Resize", inputs, ["y"], name="resize",
                                 **attrs)],
         [value("x", elem, x_shape)], [value("y", elem, y_shape)],
         initializers, opset=opset, check=check)


# Nearest: x2 as torch exports nn.Upsample (asymmetric, floor: a broadcast);
# sizes 5x7 -> 8x3 with round_prefer_ceil and half_pixel (gathers); a
# downsample by 2 (strided slices); axes given (opset 18), ceil.
resize("resize_nearest_x2", [1, 3, 4, 5], [1, 3, 8, 10],
       scales=[1, 1, 2, 2], mode="nearest",
       coordinate_transformation_mode="asymmetric", nearest_mode="floor")
resize("resize_nearest_sizes", [2, 2, 5, 7], [2, 2, 8, 3],
       sizes=[2, 2, 8, 3], mode="nearest", nearest_mode="round_prefer_ceil")
resize("resize_nearest_down", [1, 2, 8, 6], [1, 2, 4, 3],
       scales=[1, 1, 0.5, 0.5], mode="nearest")
resize("resize_nearest_axes", [1, 2, 3, 4], [1, 2, 7, 9],
       sizes=[9, 7], axes=[3, 2], mode="nearest", nearest_mode="ceil",
       coordinate_transformation_mode="align_corners")
# Linear: x2 bilinear with half_pixel (torch's align_corners=False at opset
# 17 exports pytorch_half_pixel; both are here), align_corners with sizes,
# a 1-D (rank 3) downsample by 3/5, f16 (computed in f32), and an opset 11
# model (roi and scales required inputs, scales empty beside sizes).
resize("resize_linear_x2", [1, 3, 4, 5], [1, 3, 8, 10],
       scales=[1, 1, 2, 2], mode="linear")
resize("resize_linear_pytorch", [2, 3, 6, 4], [2, 3, 9, 1],
       sizes=[2, 3, 9, 1], mode="linear",
       coordinate_transformation_mode="pytorch_half_pixel")
resize("resize_linear_align_corners", [1, 2, 5, 5], [1, 2, 7, 3],
       sizes=[1, 2, 7, 3], mode="linear",
       coordinate_transformation_mode="align_corners")
resize("resize_linear_1d", [1, 4, 20], [1, 4, 12], scales=[1, 1, 0.6],
       mode="linear", coordinate_transformation_mode="asymmetric")
resize("resize_linear_f16", [1, 2, 3, 3], [1, 2, 6, 5],
       sizes=[1, 2, 6, 5], elem=TensorProto.FLOAT16, mode="linear")
save("resize_opset11_sizes", [
    helper.make_node("Resize", ["x", "roi", "scales", "sizes"], ["y"],
                     name="resize", mode="linear",
                     coordinate_transformation_mode="align_corners")],
     [f32("x", [1, 1, 3, 4])], [f32("y", [1, 1, 5, 5])],
     [floats("roi", []), floats("scales", []), ints64("sizes", [1, 1, 5, 5])],
     opset=11)

# Cubic (run), then refused, each naming the node: antialias,
# exclude_outside with linear, tf_crop_and_resize, opset 10, linear on
# integers, an unknown nearest_mode, both scales and sizes, scales computed
# at run time.
resize("resize_cubic", [1, 1, 4, 4], [1, 1, 8, 8], scales=[1, 1, 2, 2],
       mode="cubic")
resize("resize_antialias", [1, 1, 8, 8], [1, 1, 4, 4], scales=[1, 1, 0.5, 0.5],
       mode="linear", antialias=1)
resize("resize_exclude_outside", [1, 1, 4, 4], [1, 1, 8, 8],
       scales=[1, 1, 2, 2], mode="linear", exclude_outside=1)
save("resize_crop", [
    helper.make_node("Resize", ["x", "roi", "scales"], ["y"], name="resize",
                     mode="linear",
                     coordinate_transformation_mode="tf_crop_and_resize")],
     [f32("x", [1, 1, 4, 4])], [f32("y", [1, 1, 8, 8])],
     [floats("roi", [0, 0, 0.2, 0.2, 1, 1, 0.8, 0.8]),
      floats("scales", [1, 1, 2, 2])])
save("resize_opset10", [
    helper.make_node("Resize", ["x", "scales"], ["y"], name="resize")],
     [f32("x", [1, 1, 4, 4])], [f32("y", [1, 1, 8, 8])],
     [floats("scales", [1, 1, 2, 2])], opset=10)
resize("resize_linear_int", [1, 1, 4, 4], [1, 1, 8, 8], scales=[1, 1, 2, 2],
       elem=TensorProto.INT32, mode="linear")
resize("resize_bad_nearest_mode", [1, 1, 4, 4], [1, 1, 8, 8],
       scales=[1, 1, 2, 2], nearest_mode="round_half_even", check=False)
resize("resize_scales_and_sizes", [1, 1, 4, 4], [1, 1, 8, 8],
       scales=[1, 1, 2, 2], sizes=[1, 1, 8, 8], check=False)
save("resize_runtime_scales", [
    helper.make_node("Resize", ["x", "", "scales"], ["y"], name="resize")],
     [f32("x", [1, 1, 4, 4]), f32("scales", [4])], [f32("y", None)], check=False)

# Resize's output lengths from hostile scales and sizes (issue 19,
# resize-overflow.test): each computed in double and checked, an error naming
# the node and the axis, exit 2.
nan, inf = float("nan"), float("inf")
resize("resize_scales_nan", [1, 4], [1, 4], scales=[1, nan], check=False)
resize("resize_scales_inf", [1, 4], [1, 4], scales=[1, inf], check=False)
resize("resize_scales_zero", [1, 4], [1, 4], scales=[0, 1], check=False)
resize("resize_scales_huge", [1, 4], [1, 4], scales=[1, 3e38], check=False)
resize("resize_scales_tiny", [2, 4], [2, 0], scales=[1, 1e-30], check=False)
resize("resize_sizes_int64_max", [2, 4], [2, 4], sizes=[2, 2**63 - 1],
       check=False)
resize("resize_policy_overflow", [2**20, 1], [2**20, 1], sizes=[1, 2**62],
       keep_aspect_ratio_policy="not_smaller", check=False)
resize("resize_axis_too_long", [1, 4], [1, 4], scales=[1, 2**28], check=False)
resize("resize_sizes_axis_too_long", [2, 4], [2, 4], sizes=[1, 2**30],
       check=False)
save("upsample_scales_inf", [
    helper.make_node("Upsample", ["x", "s"], ["y"], name="up")],
     [f32("x", [1, 4])], [f32("y", None)], [floats("s", [1, inf])], opset=9,
     check=False)
save("upsample_scales_huge", [
    helper.make_node("Upsample", ["x", "s"], ["y"], name="up")],
     [f32("x", [1, 4])], [f32("y", None)], [floats("s", [1, 1e30])], opset=9,
     check=False)

# A float constant where integers are read (Reshape's shape): NaN or 1e30
# converted to int64 was undefined behaviour (INT64_MIN on x86, reported as
# "a negative entry"); shape-overflow.test.
for name, bad in (("reshape_float_nan", nan), ("reshape_float_huge", 1e30)):
    save(name, [helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape")],
         [f32("x", [2, 3])], [f32("y", None)], [floats("s", [bad, 2])],
         check=False)

# Pools whose window coordinates pass 2^31 though the tensors are small
# (issue 19, window-index-width.test): dilated by 2^62 over 3 rows, every
# window of a row lies in the padding (max: -inf, as the reference computes);
# the host computed the coordinates in i32, where they wrapped, and read
# elements.
save("maxpool_huge_dilation", [
    helper.make_node("MaxPool", ["x"], ["y"], name="pool", auto_pad="SAME_LOWER",
                     kernel_shape=[2, 3], dilations=[2**62, 2], strides=[1, 3])],
     [f32("x", [1, 4, 3, 1])], [f32("y", None)], check=False)
save("avgpool_huge_dilation", [
    helper.make_node("AveragePool", ["x"], ["y"], name="pool",
                     auto_pad="SAME_UPPER", kernel_shape=[2, 2],
                     dilations=[2**40 + 1, 1], count_include_pad=0)],
     [f32("x", [1, 2, 5, 4])], [f32("y", None)], check=False)
save("conv_huge_dilation", [
    helper.make_node("Conv", ["x", "w"], ["y"], name="conv", auto_pad="SAME_UPPER",
                     dilations=[2**40 + 1, 1])],
     [f32("x", [1, 2, 5, 4])], [f32("y", None)],
     [numpy_helper.from_array(
         np.arange(24, dtype=np.float32).reshape(3, 2, 2, 2) / 10, "w")],
     check=False)

# An initializer whose dims ask 2^31 - 1 elements and whose data holds 2
# (raw_data, and float_data): refused before the tensor is allocated; the
# importer zero-filled 16 GiB first (issue 19, shape-overflow.test).
big = ints64("sizes", [1, 8])
big.dims[:] = [2**31 - 1]
save("initializer_dims_past_data", [
    helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], name="resize")],
     [f32("x", [1, 4])], [f32("y", None)], [big], check=False)
big = helper.make_tensor("w", TensorProto.FLOAT, [2], [1.0, 2.0])
big.dims[:] = [2**31 - 1]
save("initializer_dims_past_float_data", [
    helper.make_node("Add", ["x", "w"], ["y"], name="add")],
     [f32("x", [2])], [f32("y", None)], [big], check=False)

# A pool's dilated window from its attributes alone passes 2^63 (2^31 taps
# dilated by 2^62): the importer's pad check multiplied them raw (signed
# overflow; it reported an extent of -2^62) (issue 19, shape-overflow.test).
save("pool_window_overflow", [
    helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2**31],
                     dilations=[2**62], pads=[1, 1])],
     [f32("x", [1, 1, 4])], [f32("y", None)], check=False)

# Pooling (issue 20): storage_order shapes only MaxPool's Indices output, so
# a MaxPool without it runs; a negative pad, and a pad as wide as the dilated
# window (a window wholly in the padding: no element to reduce), are refused.
save("maxpool_storage_order", [
    helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 2],
                     storage_order=1)],
     [f32("x", [1, 2, 4, 4])], [f32("y", [1, 2, 3, 3])])
save("pool_negative_pad", [
    helper.make_node("AveragePool", ["x"], ["y"], name="pool",
                     kernel_shape=[2, 2], pads=[-1, 0, 0, 0])],
     [f32("x", [1, 1, 4, 4])], [f32("y", None)], check=False)
save("pool_pad_past_window", [
    helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 3],
                     dilations=[1, 2], pads=[1, 4, 2, 0])],
     [f32("x", [1, 1, 6, 6])], [f32("y", None)], check=False)

# Resize's sizes as torch's exporter computes them for F.interpolate(z,
# size=skip.shape[2:]) (lraspp_mobilenet_v3_large): Shape, Slice, Concat
# with z's leading dims, folded at import.
save("resize_sizes_from_shape", [
    helper.make_node("Shape", ["skip"], ["shape"], name="shape"),
    helper.make_node("Slice", ["shape", "start", "end"], ["hw"], name="slice"),
    helper.make_node("Concat", ["lead", "hw"], ["sizes"], name="concat", axis=0),
    helper.make_node("Resize", ["z", "", "", "sizes"], ["r"], name="resize",
                     mode="linear", coordinate_transformation_mode="half_pixel",
                     nearest_mode="floor", cubic_coeff_a=-0.75),
    helper.make_node("Add", ["r", "skip"], ["y"], name="add")],
     [f32("z", [1, 3, 5, 6]), f32("skip", [1, 3, 10, 12])],
     [f32("y", [1, 3, 10, 12])],
     [ints64("start", [2]), ints64("end", [4]), ints64("lead", [1, 3])])

# Upsample (opsets 7 to 9) is Resize with asymmetric coordinates and nearest
# rounding down: one that runs (opset 7, scales as an attribute), and its
# refusals: opset 6, a scale below 1, an unknown mode.
save("upsample_opset7", [
    helper.make_node("Upsample", ["x"], ["y"], name="up", mode="nearest",
                     scales=[1.0, 1.0, 2.0, 1.5])],
     [f32("x", [1, 2, 3, 4])], [f32("y", [1, 2, 6, 6])], opset=7)
save("upsample_opset6", [
    helper.make_node("Upsample", ["x"], ["y"], name="up", width_scale=2.0,
                     height_scale=2.0)],
     [f32("x", [1, 1, 2, 2])], [f32("y", None)], opset=6, check=False)
save("upsample_below_1", [
    helper.make_node("Upsample", ["x", "s"], ["y"], name="up")],
     [f32("x", [1, 1, 4, 4])], [f32("y", None)],
     [floats("s", [1, 1, 0.5, 1])], opset=9, check=False)
save("upsample_bilinear", [
    helper.make_node("Upsample", ["x", "s"], ["y"], name="up", mode="bilinear")],
     [f32("x", [1, 1, 4, 4])], [f32("y", None)],
     [floats("s", [1, 1, 2, 2])], opset=9, check=False)

# Gathers whose indices are computed in the graph (issue 21's kernel error
# channel): idx = ids + 90 into a [100, 8] table (an embedding row per id)
# and a [100] line (an element per id). The ids files: inside the axes
# (-190 -> -100 and 9 -> 99 among them), one id past (10 -> 100) and one
# before (-191 -> -101).
save("gather_computed_index", [
    helper.make_node("Add", ["ids", "offset"], ["idx"], name="offset_ids"),
    helper.make_node("Gather", ["table", "idx"], ["rows"], name="rows",
                     axis=0),
    helper.make_node("Gather", ["line", "idx"], ["picks"], name="picks",
                     axis=0),
], [value("ids", TensorProto.INT64, [2, 16])],
    [f32("rows", [2, 16, 8]), f32("picks", [2, 16])],
    [numpy_helper.from_array(np.array(90, np.int64), "offset"),
     numpy_helper.from_array(
         np.arange(800, dtype=np.float32).reshape(100, 8) / 8, "table"),
     numpy_helper.from_array(np.arange(100, dtype=np.float32) + 0.5,
                             "line")])
inside = (np.arange(32, dtype=np.int64) * 7 % 200 - 190).reshape(2, 16)
inside[1, 3] = 9
past = np.zeros((2, 16), np.int64)
past[1, 13] = 10
before = np.zeros((2, 16), np.int64)
before[0, 2] = -191
for name, ids in [("ids_offset_inside", inside), ("ids_offset_past", past),
                  ("ids_offset_before", before)]:
    with open(os.path.join(HERE, name + ".pb"), "wb") as f:
        f.write(numpy_helper.from_array(ids, "ids").SerializeToString())

# Einsum as exporters emit it (issue 21): attention's Q.K^T (read
# transposed, no transpose op) and P.V, batched matmul, a transpose, a sum,
# an outer product (rotary frequencies), a transposed left operand, an
# elementwise product, a broadcast ellipsis batch, three operands, a
# diagonal and an implicit result; then equations Fuse refuses, each naming
# the node.
einsums = [
    ("qk", "bhqd,bhkd->bhqk", [[2, 3, 5, 4], [2, 3, 6, 4]], [2, 3, 5, 6]),
    ("pv", "bhqk,bhkd->bhqd", [[2, 3, 5, 6], [2, 3, 6, 4]], [2, 3, 5, 4]),
    ("bmm", "bij,bjk->bik", [[2, 3, 4], [2, 4, 5]], [2, 3, 5]),
    ("transpose", "ij->ji", [[3, 4]], [4, 3]),
    ("rowsum", "ij->i", [[3, 4]], [3]),
    ("outer", "i,j->ij", [[5], [3]], [5, 3]),
    ("left_transposed", "ji,jk->ik", [[4, 3], [4, 5]], [3, 5]),
    ("hadamard", "ij,ij->ij", [[3, 4], [3, 4]], [3, 4]),
    ("ellipsis", "...ij,...jk->...ik", [[1, 3, 4], [2, 4, 5]], [2, 3, 5]),
    ("chain", "ij,jk,kl->il", [[2, 3], [3, 4], [4, 5]], [2, 5]),
    ("diagonal", "ii->i", [[4, 4]], [4]),
    ("implicit", "ij,jk", [[2, 3], [3, 4]], [2, 4]),
]
nodes, inputs, outputs = [], [], []
for name, equation, shapes, out in einsums:
    names = [f"{name}_{k}" for k in range(len(shapes))]
    nodes.append(helper.make_node("Einsum", names, [name], name=name,
                                  equation=equation))
    inputs += [f32(n, s) for n, s in zip(names, shapes)]
    outputs.append(f32(name, out))
save("einsum_forms", nodes, inputs, outputs, opset=12)

for name, equation, shapes in [
        ("einsum_terms", "ij,jk->ik", [[2, 3]]),
        ("einsum_rank", "ijk->i", [[2, 3]]),
        ("einsum_unknown_label", "ij->ik", [[2, 3]]),
        ("einsum_character", "i1->i", [[2, 3]]),
        ("einsum_two_ellipses", "...i...->i", [[2, 3]]),
        ("einsum_sizes", "ij,jk->ik", [[2, 3], [4, 5]]),
        ("einsum_unequal_diagonal", "ii->i", [[2, 3]])]:
    names = [f"x{k}" for k in range(len(shapes))]
    error_model(name,
                helper.make_node("Einsum", names, ["y"], name="n",
                                 equation=equation),
                [f32(n, s) for n, s in zip(names, shapes)], [f32("y", [2])])
error_model("einsum_types",
            helper.make_node("Einsum", ["x", "k"], ["y"], name="n",
                             equation="i,i->"),
            [f32("x", [3]), value("k", TensorProto.INT64, [3])],
            [f32("y", [])])

# ScatterND and ScatterElements with run-time indices (issue 21): a cache
# written at run-time (batch, position) tuples, a ScatterND add at constant
# tuples with a duplicate, ScatterElements along axis 1 with run-time int32
# indices (max) and with negative constant ones (none). Index files: inside
# (negative ones among them) and one position past the cache. Then the
# refusals, each naming the node.
save("scatter_forms", [
    helper.make_node("ScatterND", ["cache", "where", "rows"], ["written"],
                     name="write_cache"),
    helper.make_node("ScatterND", ["x", "tuples", "u"], ["added"],
                     name="add_tuples", reduction="add"),
    helper.make_node("ScatterElements", ["y", "cols", "v"], ["maxed"],
                     name="max_elements", axis=1, reduction="max"),
    helper.make_node("ScatterElements", ["y", "fixed", "v"], ["placed"],
                     name="place_elements", axis=1),
], [f32("cache", [2, 8, 4]), value("where", TensorProto.INT64, [2, 1, 2]),
    f32("rows", [2, 1, 4]), f32("x", [4, 3]), f32("u", [3, 3]),
    f32("y", [3, 5]), value("cols", TensorProto.INT32, [3, 2]),
    f32("v", [3, 2])],
    [f32("written", [2, 8, 4]), f32("added", [4, 3]), f32("maxed", [3, 5]),
     f32("placed", [3, 5])],
    [ints64("tuples", [[1], [3], [1]]),
     ints64("fixed", [[0, -1], [4, 2], [-5, 3]])], opset=18)
for name, where in [("where_inside", [[[0, 5]], [[1, -1]]]),
                    ("where_past", [[[0, 5]], [[1, 8]]])]:
    with open(os.path.join(HERE, name + ".pb"), "wb") as f:
        f.write(numpy_helper.from_array(np.array(where, np.int64),
                                        "where").SerializeToString())
with open(os.path.join(HERE, "cols_inside.pb"), "wb") as f:
    f.write(numpy_helper.from_array(
        np.array([[0, 4], [-1, -1], [2, 2]], np.int32), "cols").SerializeToString())

error_model("scatternd_updates_shape",
            helper.make_node("ScatterND", ["x", "i", "u"], ["y"], name="n"),
            [f32("x", [4, 3]), value("i", TensorProto.INT64, [2, 1]),
             f32("u", [2, 4])], [f32("y", [4, 3])])
error_model("scatternd_float_indices",
            helper.make_node("ScatterND", ["x", "i", "u"], ["y"], name="n"),
            [f32("x", [4, 3]), f32("i", [2, 1]), f32("u", [2, 3])],
            [f32("y", [4, 3])])
error_model("scatternd_reduction",
            helper.make_node("ScatterND", ["x", "i", "u"], ["y"], name="n",
                             reduction="sub"),
            [f32("x", [4, 3]), value("i", TensorProto.INT64, [2, 1]),
             f32("u", [2, 3])], [f32("y", [4, 3])])
error_model("scatternd_long_tuples",
            helper.make_node("ScatterND", ["x", "i", "u"], ["y"], name="n"),
            [f32("x", [4, 3]), value("i", TensorProto.INT64, [2, 3]),
             f32("u", [2])], [f32("y", [4, 3])])
error_model("scatternd_constant_index",
            helper.make_node("ScatterND", ["x", "i", "u"], ["y"], name="n"),
            [f32("x", [4, 3]), f32("u", [2, 3])], [f32("y", [4, 3])],
            [ints64("i", [[1], [4]])])
error_model("scatter_elements_updates_shape",
            helper.make_node("ScatterElements", ["x", "i", "u"], ["y"],
                             name="n"),
            [f32("x", [4, 3]), value("i", TensorProto.INT64, [2, 3]),
             f32("u", [2, 2])], [f32("y", [4, 3])])
error_model("scatter_elements_rank",
            helper.make_node("ScatterElements", ["x", "i", "u"], ["y"],
                             name="n"),
            [f32("x", [4, 3]), value("i", TensorProto.INT64, [2]),
             f32("u", [2])], [f32("y", [4, 3])])
error_model("scatter_elements_constant_index",
            helper.make_node("ScatterElements", ["x", "i", "u"], ["y"],
                             name="n", axis=1),
            [f32("x", [4, 3]), f32("u", [1, 2])], [f32("y", [4, 3])],
            [ints64("i", [[0, -4]])])


# Shape arithmetic over dynamic dims as exporters write it (issue 22, the
# importer's symbolicDims): Shape -> Gather -> Unsqueeze -> Concat ->
# Reshape (with a -1), Range over a dim, a dim's value used as data, the
# Where(shape == -1, 1, shape) -> Expand idiom, ConstantOfShape of a
# symbolic shape, and a Slice of a table up to a dim.
# y = x + position (Range) + sequence + table[0, position].
def i64s(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


table = numpy_helper.from_array(
    (np.arange(64, dtype=np.float32) * 0.125).reshape(1, 64), "table")
save("symbolic_shapes", [
    helper.make_node("Shape", ["x"], ["s"], name="shape"),
    helper.make_node("Gather", ["s", "zero"], ["b"], name="batch", axis=0),
    helper.make_node("Gather", ["s", "one"], ["n"], name="sequence", axis=0),
    helper.make_node("Unsqueeze", ["b", "axes0"], ["bu"], name="bu"),
    helper.make_node("Unsqueeze", ["n", "axes0"], ["nu"], name="nu"),
    helper.make_node("Concat", ["bu", "nu", "two", "four"], ["t4"],
                     name="t4", axis=0),
    helper.make_node("Reshape", ["x", "t4"], ["r"], name="split_heads"),
    helper.make_node("Transpose", ["r"], ["tr"], name="tr",
                     perm=[0, 2, 1, 3]),
    helper.make_node("Cast", ["n"], ["nl"], name="nl", to=TensorProto.INT64),
    helper.make_node("Range", ["start", "nl", "step"], ["pos"], name="range"),
    helper.make_node("Cast", ["pos"], ["posf"], name="posf",
                     to=TensorProto.FLOAT),
    helper.make_node("Reshape", ["posf", "pos_shape"], ["pos4"], name="pos4"),
    helper.make_node("Add", ["tr", "pos4"], ["a"], name="add_pos"),
    helper.make_node("Transpose", ["a"], ["back"], name="back",
                     perm=[0, 2, 1, 3]),
    helper.make_node("Concat", ["bu", "minus_one", "eight"], ["flat"],
                     name="flat", axis=0),
    helper.make_node("Reshape", ["back", "flat"], ["y0"], name="merge_heads"),
    helper.make_node("Concat", ["bu", "nu"], ["shp"], name="shp", axis=0),
    helper.make_node("ConstantOfShape", ["shp"], ["ones"], name="ones",
                     value=numpy_helper.from_array(
                         np.array([1.0], dtype=np.float32), "v")),
    helper.make_node("Shape", ["shp"], ["shp_len"], name="shp_len"),
    helper.make_node("ConstantOfShape", ["shp_len"], ["ones_i"],
                     name="ones_i", value=i64s("v", [1])),
    helper.make_node("Mul", ["ones_i", "minus_one"], ["neg"], name="neg"),
    helper.make_node("Equal", ["shp", "neg"], ["eq"], name="eq"),
    helper.make_node("Where", ["eq", "ones_i", "shp"], ["ws"], name="where"),
    helper.make_node("Unsqueeze", ["ones", "axes2"], ["ones3"], name="ones3"),
    helper.make_node("Concat", ["ws", "eight"], ["tgt"], name="tgt", axis=0),
    helper.make_node("Expand", ["ones3", "tgt"], ["e"], name="expand"),
    helper.make_node("Gather", ["s", "one_1d"], ["nsz"], name="nsz", axis=0),
    helper.make_node("Cast", ["nsz"], ["nf"], name="nf", to=TensorProto.FLOAT),
    helper.make_node("Mul", ["e", "nf"], ["sc"], name="scale"),
    helper.make_node("Slice", ["table", "start_1d", "nu", "axes1"], ["sl"],
                     name="slice_table"),
    helper.make_node("Reshape", ["sl", "tab_shape"], ["sl3"], name="sl3"),
    helper.make_node("Add", ["y0", "sc"], ["y1"], name="add_n"),
    helper.make_node("Add", ["y1", "sl3"], ["y"], name="add_table"),
], [f32("x", ["batch", "sequence", 8])], [f32("y", ["batch", "sequence", 8])],
    [i64s("zero", 0), i64s("one", 1), i64s("axes0", [0]), i64s("two", [2]),
     i64s("four", [4]), i64s("start", 0), i64s("step", 1),
     i64s("pos_shape", [1, 1, -1, 1]), i64s("minus_one", [-1]),
     i64s("eight", [8]), i64s("axes2", [2]), i64s("one_1d", [1]),
     i64s("start_1d", [0]), i64s("axes1", [1]), i64s("tab_shape", [0, -1, 1]),
     table])

# A Range whose length over a dynamic dim is no dim expression (step 2).
save("symbolic_range_step", [
    helper.make_node("Shape", ["x"], ["s"], name="shape"),
    helper.make_node("Gather", ["s", "zero"], ["n"], name="n", axis=0),
    helper.make_node("Range", ["zero", "n", "two"], ["y"], name="range2"),
], [f32("x", ["sequence"])],
    [helper.make_tensor_value_info("y", TensorProto.INT64, [None])],
    [i64s("zero", 0), i64s("two", 2)])


# A dynamic-axes layer that fuse-run compiles once for every length (issue
# 22): a layer norm and a softmax over the static last dim, and a Reshape to
# [-1, 16] and back to Shape(x) around a Relu. Variants whose kernels need a
# static value of the dims, for which the bound import is compiled instead:
# symbolic_layer_matmul ends in a MatMul; symbolic_layer_positions adds
# position embeddings (Range over the sequence, a Gather from a table: a
# slice of it); symbolic_layer_ramp adds the positions themselves as data
# (Range over the sequence, cast and scaled: an iota, which a host pointwise
# kernel reads from its dims array).
def symbolic_layer(name, positions=False, matmul=False, ramp=False):
    nodes = [helper.make_node("Shape", ["x"], ["s"], name="shape")]
    if ramp:
        nodes += [
            helper.make_node("Gather", ["s", "one"], ["n"], name="n", axis=0),
            helper.make_node("Range", ["zero", "n", "one"], ["pos"],
                             name="pos"),
            helper.make_node("Cast", ["pos"], ["posf"], name="posf",
                             to=TensorProto.FLOAT),
            helper.make_node("Unsqueeze", ["posf", "last"], ["pos2"],
                             name="pos2"),
            helper.make_node("Mul", ["pos2", "step"], ["pe"], name="pe"),
        ]
    elif positions:
        nodes += [
            helper.make_node("Gather", ["s", "one"], ["n"], name="n", axis=0),
            helper.make_node("Range", ["zero", "n", "one"], ["pos"],
                             name="pos"),
            helper.make_node("Gather", ["table", "pos"], ["pe"], name="pe",
                             axis=0),
        ]
    else:
        nodes.append(helper.make_node("Identity", ["beta"], ["pe"],
                                      name="pe"))
    nodes += [
        helper.make_node("Add", ["x", "pe"], ["h"], name="add_pe"),
        helper.make_node("ReduceMean", ["h"], ["m"], name="mean", axes=[-1]),
        helper.make_node("Sub", ["h", "m"], ["d"], name="center"),
        helper.make_node("Mul", ["d", "d"], ["d2"], name="square"),
        helper.make_node("ReduceMean", ["d2"], ["v"], name="var", axes=[-1]),
        helper.make_node("Add", ["v", "eps"], ["ve"], name="add_eps"),
        helper.make_node("Sqrt", ["ve"], ["sd"], name="sd"),
        helper.make_node("Div", ["d", "sd"], ["nrm"], name="norm"),
        helper.make_node("Mul", ["nrm", "gamma"], ["g"], name="gamma"),
        helper.make_node("Add", ["g", "beta"], ["ln"], name="beta"),
        helper.make_node("Reshape", ["ln", "rows"], ["flat"], name="flat"),
        helper.make_node("Relu", ["flat"], ["r"], name="relu"),
        helper.make_node("Reshape", ["r", "s"], ["back"], name="back"),
        helper.make_node("Softmax", ["back"], ["sm" if matmul else "y"],
                         name="softmax", axis=-1),
    ]
    inits = [numpy_helper.from_array(np.array(1e-5, np.float32), "eps"),
             layer_gamma, layer_beta, i64s("rows", [-1, 16])]
    if positions:
        inits += [i64s("zero", 0), i64s("one", 1), layer_table]
    if ramp:
        inits += [i64s("zero", 0), i64s("one", 1), i64s("last", [-1]),
                  numpy_helper.from_array(np.array(0.01, np.float32), "step")]
    if matmul:
        nodes.append(helper.make_node("MatMul", ["sm", "w"], ["y"],
                                      name="matmul"))
        inits.append(layer_w)
    save(name, nodes, [f32("x", ["batch", "sequence", 16])],
         [f32("y", ["batch", "sequence", 16])], inits, opset=17)


layer_gamma = weight("gamma", [16])
layer_beta = weight("beta", [16])
layer_w = weight("w", [16, 16])
layer_table = weight("table", [256, 16])
symbolic_layer("symbolic_layer")
symbolic_layer("symbolic_layer_matmul", matmul=True)
symbolic_layer("symbolic_layer_positions", positions=True)
symbolic_layer("symbolic_layer_ramp", ramp=True)

# Two inputs that share the dynamic dims: y = x * mask[..., None].
save("symbolic_masked", [
    helper.make_node("Unsqueeze", ["mask", "last"], ["m3"], name="m3"),
    helper.make_node("Mul", ["x", "m3"], ["y"], name="masked"),
], [f32("x", ["batch", "sequence", 16]), f32("mask", ["batch", "sequence"])],
    [f32("y", ["batch", "sequence", 16])], [i64s("last", [-1])])

# A mask read at batch_idx * sequence + kv_idx from its flattened values,
# as exports of transformers' mask functions index it: the importer's
# affine index forms make the Gather a reshape, and q_idx >= 0 (true
# everywhere) a splat, so the model takes its dims at run time.
# y = x * mask[..., None] * (q_idx >= 0)[:, None].
save("symbolic_mask_gather", [
    helper.make_node("Shape", ["mask"], ["ms"], name="ms"),
    helper.make_node("Gather", ["ms", "zero"], ["nb"], name="nb", axis=0),
    helper.make_node("Gather", ["ms", "one"], ["ns"], name="ns", axis=0),
    helper.make_node("Range", ["zero", "nb", "one"], ["bi"], name="bi"),
    helper.make_node("Range", ["zero", "ns", "one"], ["si"], name="si"),
    helper.make_node("Unsqueeze", ["bi", "last"], ["b2"], name="b2"),
    helper.make_node("Mul", ["b2", "ns"], ["rows"], name="rows"),
    helper.make_node("Unsqueeze", ["si", "first"], ["s2"], name="s2"),
    helper.make_node("Add", ["rows", "s2"], ["idx"], name="idx"),
    helper.make_node("Reshape", ["mask", "minus_one"], ["flat"], name="flat"),
    helper.make_node("Gather", ["flat", "idx"], ["g"], name="read", axis=0),
    helper.make_node("Unsqueeze", ["g", "last"], ["g3"], name="g3"),
    helper.make_node("Mul", ["x", "g3"], ["xm"], name="masked"),
    helper.make_node("GreaterOrEqual", ["si", "zero"], ["q"], name="q"),
    helper.make_node("Cast", ["q"], ["qf"], name="qf", to=TensorProto.FLOAT),
    helper.make_node("Unsqueeze", ["qf", "last"], ["q2"], name="q2"),
    helper.make_node("Mul", ["xm", "q2"], ["y"], name="valid"),
], [f32("x", ["batch", "sequence", 16]), f32("mask", ["batch", "sequence"])],
    [f32("y", ["batch", "sequence", 16])],
    [i64s("zero", 0), i64s("one", 1), i64s("last", [-1]), i64s("first", [0]),
     i64s("minus_one", [-1])])

# Tensors with a dim of 0 (a batch of 0, rows of no element), which the
# reference runtime and onnxruntime run: a softmax over 0 rows and over rows
# of 0 elements, a LayerNormalization of 0 rows, a convolution of a batch of
# 0 with a bias and a relu after it, and a concat of an empty tensor with
# another.
save("empty_softmax_rows", [
    helper.make_node("Softmax", ["x"], ["y"], name="softmax", axis=-1),
], [f32("x", [0, 3])], [f32("y", [0, 3])])
save("empty_softmax_axis", [
    helper.make_node("Softmax", ["x"], ["y"], name="softmax", axis=-1),
], [f32("x", [3, 0])], [f32("y", [3, 0])])
save("empty_layernorm", [
    helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"], name="ln",
                     axis=-1),
], [f32("x", [0, 8]), f32("g", [8]), f32("b", [8])], [f32("y", [0, 8])])
save("empty_conv_batch", [
    helper.make_node("Conv", ["x", "w", "bias"], ["c"], name="conv",
                     pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c"], ["y"], name="relu"),
], [f32("x", [0, 2, 5, 5]), f32("w", [3, 2, 3, 3]), f32("bias", [3])],
    [f32("y", [0, 3, 5, 5])])
save("empty_concat", [
    helper.make_node("Neg", ["e"], ["n"], name="neg"),
    helper.make_node("Concat", ["x", "n"], ["y"], name="concat", axis=0),
], [f32("x", [2, 3]), f32("e", [0, 3])], [f32("y", [2, 3])])

# An input declared with no shape at all (no rank; onnxruntime takes any),
# a Relu of it plus a shaped input: the importer takes the shape of the
# value given for it.
save("input_without_shape", [
    helper.make_node("Relu", ["x"], ["r"], name="relu"),
    helper.make_node("Add", ["r", "b"], ["y"], name="add"),
], [helper.make_tensor_value_info("x", TensorProto.FLOAT, None),
    f32("b", [2, 3])], [f32("y", None)], check=False)

# ConvTranspose, DepthToSpace, SpaceToDepth and EyeLike (weights drawn from
# a generator of their own: the models above stay byte-identical). A U-Net's
# 2x2 stride-2 upsampling with a bias; a 1-D dilated one whose begin pad
# exceeds the window's reach (the spread input cropped); output_shape with
# SAME_LOWER (one more row than the full size: a negative end pad); groups
# with pads and output_padding; then the refusals.
rng_t = np.random.default_rng(36)


def weight_t(name, shape):
    return numpy_helper.from_array(
        rng_t.uniform(-1, 1, shape).astype(np.float32), name)


save("convtranspose_forms", [
    helper.make_node("ConvTranspose", ["x", "w1", "b1"], ["unet"],
                     name="unet", kernel_shape=[2, 2], strides=[2, 2]),
    helper.make_node("ConvTranspose", ["x1d", "w3"], ["dilated"],
                     name="dilated", dilations=[2], pads=[5, 0]),
    helper.make_node("ConvTranspose", ["x", "w4"], ["same"], name="same",
                     strides=[3, 2], auto_pad="SAME_LOWER",
                     output_shape=[16, 13]),
], [f32("x", [2, 4, 5, 7]), f32("x1d", [1, 3, 6])],
    [f32("unet", [2, 6, 10, 14]), f32("dilated", [1, 2, 5]),
     f32("same", [2, 3, 16, 13])],
    [weight_t("w1", [4, 6, 2, 2]), weight_t("b1", [6]),
     weight_t("w3", [3, 2, 3]), weight_t("w4", [4, 3, 3, 4])])
# Groups (onnx's reference evaluator cannot run these: the conformance
# suite's test_convtranspose_group_2 checks them against ONNX's data).
save("convtranspose_groups", [
    helper.make_node("ConvTranspose", ["x", "w2"], ["groups"], name="groups",
                     strides=[2, 2], pads=[1, 1, 1, 1],
                     output_padding=[1, 1], group=2),
], [f32("x", [2, 4, 5, 7])], [f32("groups", [2, 6, 10, 14])],
    [weight_t("w2", [4, 3, 3, 3])])
save("space_depth_eye", [
    helper.make_node("DepthToSpace", ["x"], ["dcr"], name="dcr", blocksize=2),
    helper.make_node("DepthToSpace", ["x"], ["crd"], name="crd", blocksize=2,
                     mode="CRD"),
    helper.make_node("SpaceToDepth", ["dcr"], ["back"], name="s2d",
                     blocksize=2),
    helper.make_node("EyeLike", ["m"], ["eye"], name="eye", k=1,
                     dtype=TensorProto.INT32),
], [f32("x", [1, 8, 3, 5]), f32("m", [4, 6])],
    [f32("dcr", [1, 2, 6, 10]), f32("crd", [1, 2, 6, 10]),
     f32("back", [1, 8, 3, 5]),
     helper.make_tensor_value_info("eye", TensorProto.INT32, [4, 6])])
save("convtranspose_3d", [
    helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="up3d"),
], [f32("x", [1, 1, 2, 2, 2])], [f32("y", [1, 1, 4, 4, 4])],
    [weight_t("w", [1, 1, 3, 3, 3])])
save("convtranspose_dynamic", [
    helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="up",
                     strides=[2, 2]),
], [f32("x", [1, 2, "height", 4])], [f32("y", [1, 2, None, 9])],
    [weight_t("w", [2, 2, 3, 3])])
save("depthtospace_bad_block", [
    helper.make_node("DepthToSpace", ["x"], ["y"], name="d2s", blocksize=3),
], [f32("x", [1, 8, 2, 2])], [f32("y", [1, 1, 6, 6])], check=False)

# Several unsupported ops: the refusal of the first names the others, each
# with its node count (a custom domain's op by domain and type).
save("unsupported_ops_several", [
    helper.make_node("Relu", ["x"], ["r"], name="relu"),
    helper.make_node("GridSample", ["r", "grid"], ["g1"], name="grid1"),
    helper.make_node("GridSample", ["g1", "grid"], ["g2"], name="grid2"),
    helper.make_node("NonZero", ["g2"], ["where"], name="nonzero"),
    helper.make_node("Gelu", ["g2"], ["y"], name="custom",
                     domain="com.example"),
], [f32("x", [1, 1, 4, 4]), f32("grid", [1, 3, 3, 2])],
    [f32("y", [1, 1, 3, 3]),
     helper.make_tensor_value_info("where", TensorProto.INT64, [4, None])],
    check=False)

# LSTM and GRU, unrolled at import: a bidirectional LSTM with biases,
# initial states and peepholes; a reverse GRU with linear_before_reset;
# then refusals (an activation other than the defaults, a shorter
# sequence).
rng_r = np.random.default_rng(37)


def weight_r(name, shape):
    return numpy_helper.from_array(
        rng_r.uniform(-0.5, 0.5, shape).astype(np.float32), name)


save("recurrent_forms", [
    helper.make_node("LSTM", ["x", "lw", "lr", "lb", "", "h0", "c0", "lp"],
                     ["ly", "lyh", "lyc"], name="lstm", hidden_size=5,
                     direction="bidirectional"),
    helper.make_node("GRU", ["x", "gw", "gr", "gb"], ["gy", "gyh"],
                     name="gru", hidden_size=6, direction="reverse",
                     linear_before_reset=1),
], [f32("x", [4, 2, 3]), f32("h0", [2, 2, 5]), f32("c0", [2, 2, 5])],
    [f32("ly", [4, 2, 2, 5]), f32("lyh", [2, 2, 5]), f32("lyc", [2, 2, 5]),
     f32("gy", [4, 1, 2, 6]), f32("gyh", [1, 2, 6])],
    [weight_r("lw", [2, 20, 3]), weight_r("lr", [2, 20, 5]),
     weight_r("lb", [2, 40]), weight_r("lp", [2, 15]),
     weight_r("gw", [1, 18, 3]), weight_r("gr", [1, 18, 6]),
     weight_r("gb", [1, 36])])
save("lstm_relu_activation", [
    helper.make_node("LSTM", ["x", "w", "r"], ["y"], name="lstm",
                     hidden_size=2, activations=["Sigmoid", "Relu", "Tanh"]),
], [f32("x", [3, 1, 2])], [f32("y", [3, 1, 1, 2])],
    [weight_r("w", [1, 8, 2]), weight_r("r", [1, 8, 2])])
save("gru_short_sequence", [
    helper.make_node("GRU", ["x", "w", "r", "", "lens"], ["y"], name="gru",
                     hidden_size=2),
], [f32("x", [3, 2, 2])], [f32("y", [3, 1, 2, 2])],
    [weight_r("w", [1, 6, 2]), weight_r("r", [1, 6, 2]),
     numpy_helper.from_array(np.array([3, 2], dtype=np.int32), "lens")])

# TopK in K rounds: float rows with ties and -inf (K = 4 of 6, largest),
# int64 with the type's extremes repeated (all 5, smallest), and a K past
# the round limit (refused).
save("topk_forms", [
    helper.make_node("TopK", ["x", "k4"], ["values", "indices"], name="top",
                     axis=1),
    helper.make_node("TopK", ["n", "k5"], ["low", "low_indices"],
                     name="bottom", largest=0),
], [f32("x", [2, 6]), helper.make_tensor_value_info("n", TensorProto.INT64,
                                                     [5])],
    [f32("values", [2, 4]),
     helper.make_tensor_value_info("indices", TensorProto.INT64, [2, 4]),
     helper.make_tensor_value_info("low", TensorProto.INT64, [5]),
     helper.make_tensor_value_info("low_indices", TensorProto.INT64, [5])],
    [ints64("k4", [4]), ints64("k5", [5])])
save("topk_too_many", [
    helper.make_node("TopK", ["x", "k"], ["values", "indices"], name="top"),
], [f32("x", [400])],
    [f32("values", [300]),
     helper.make_tensor_value_info("indices", TensorProto.INT64, [300])],
    [ints64("k", [300])])

# Batchwise (layout 1) LSTM with initial states [batch, dirs, hidden]: batch
# 3, two directions (the states' axes must not be read as [dirs, batch]).
save("recurrent_batchwise", [
    helper.make_node("LSTM", ["x", "w", "r", "b", "", "h0", "c0"],
                     ["y", "yh", "yc"], name="lstm", hidden_size=4,
                     direction="bidirectional", layout=1),
], [f32("x", [3, 5, 2]), f32("h0", [3, 2, 4]), f32("c0", [3, 2, 4])],
    [f32("y", [3, 5, 2, 4]), f32("yh", [3, 2, 4]), f32("yc", [3, 2, 4])],
    [weight_r("w", [2, 16, 2]), weight_r("r", [2, 16, 4]),
     weight_r("b", [2, 32])])
