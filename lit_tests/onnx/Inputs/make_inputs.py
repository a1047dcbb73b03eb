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
    helper.make_node("Conv", ["x", "k"], ["y"], name="conv0"),
], [f32("x", [1, 1, 4, 4]), f32("k", [1, 1, 3, 3])], [f32("y", [1, 1, 2, 2])])

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

# An embedding lookup whose indices are a model input, through a Cast: the
# importer needs `ids` as a constant (fuse-run compiles its --input value
# into the model, ids_1_3.pb), and reports it as data, not only in a message.
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
