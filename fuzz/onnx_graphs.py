#!/usr/bin/env python3
"""Random ONNX graphs of the supported ops, for fuzzing the importer and the tool path.

    onnx_graphs.py --build BUILD --seeds A:B [--check] [--extended] [--timeout S] [--keep DIR]
    onnx_graphs.py --write DIR --seeds A:B

Each seed makes one model (random.Random(seed): the same model on every
machine): graph inputs of random ranks and dims (zero dims, dims near the
importer's 2^31-element bound and far past it, now and then a dim_param), then
a few nodes of the supported ops whose inputs are drawn from the values made so
far, with random attributes (negative and out-of-range axes, zero and extreme
steps, wrong attribute types), shapes from onnx.shape_inference where it can
tell. About one model in four is then made hostile at the graph level: two
nodes defining one value, a node reading a name nothing defines, an output
listed twice, an initializer whose data does not match its shape, an input
that shares an initializer's name, an odd opset or IR version. --extended also
draws Resize and Upsample (NaN, infinite, zero, negative and huge scales and
sizes), Conv and pooling (hostile windows, strides, pads, dilations, groups):
other models for the same seeds, so CI's fixed seeds run without it.

--build runs `fuse-run MODEL` (import, compile and run on the host) on each;
with --check, models whose inputs hold at most 2^16 elements run with --check
against the reference runtime. A model passes when fuse-run exits 0, or exits
2 with a message and no crash text ('LLVM ERROR', 'Assertion', 'terminate',
sanitizer reports). Anything else (a signal, a timeout, exit 1 from a failed
--check, another exit status) is a finding, printed with the seed that makes it
again; the exit status is then 1. --write writes the models as SEED.onnx
(a seed corpus for scripts/fuzz.sh onnx). Needs the onnx package.
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FLOAT = TensorProto.FLOAT
INT64 = TensorProto.INT64
BOOL = TensorProto.BOOL

UNARY = ["Abs", "Neg", "Exp", "Log", "Sqrt", "Tanh", "Sigmoid", "Relu", "Erf",
         "Floor", "Ceil", "Round", "Reciprocal", "Sin", "Cos", "Softplus",
         "Softsign", "Sign", "Identity", "Gelu", "Mish", "HardSwish"]
BINARY = ["Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mod", "PRelu"]
COMPARE = ["Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"]
REDUCE = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
          "ReduceSumSquare", "ReduceLogSumExp", "ReduceLogSum"]
# --extended only (so that the seeds CI replays make the same models).
EXTENDED = ["resize", "resize", "upsample", "conv", "conv", "pool"]
RESIZE_SCALES = [1.0, 2.0, 0.5, 1.7, 0.0, -1.0, float("nan"), float("inf"), 1e-30, 3e38,
                 2.0**31, 2.0**40]
RESIZE_SIZES = [0, 1, 2, 3, 5, 8, -1, 2**24 + 1, 2**31, 2**40, 2**62, 2**63 - 1]
SMALL_DIMS = [0, 1, 1, 2, 2, 3, 3, 4, 5, 7, 8, 16]
HUGE_DIMS = [2**15, 2**16 + 1, 2**31 - 1, 2**31, 2**32 + 3, 2**40, 2**62,
             2**63 - 1]


def infer_shapes(model):
    """onnx.shape_inference's model, or None where it fails. onnx's own shape
    inference aborts the process on some hostile models
    (onnx 1.23: a Slice with extreme steps fails an assertion in std::clamp),
    so models with a Slice infer in a child process."""
    if not any(node.op_type == "Slice" for node in model.graph.node):
        try:
            return onnx.shape_inference.infer_shapes(model, strict_mode=False)
        except Exception:  # noqa: BLE001 - a hostile model may not infer
            return None
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        try:
            data = onnx.shape_inference.infer_shapes(
                model, strict_mode=False).SerializeToString()
        except Exception:  # noqa: BLE001 - a hostile model may not infer
            data = b""
        with os.fdopen(write, "wb") as out:
            out.write(data)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        return None
    inferred = onnx.ModelProto()
    inferred.ParseFromString(data)
    return inferred


class Builder:
    """One random model: values with their (possibly unknown) shapes."""

    def __init__(self, seed, extended=False):
        self.r = random.Random(seed)
        self.extended = extended
        self.seed = seed
        self.nodes = []
        self.inputs = []
        self.initializers = []
        self.values = []  # (name, elem_type, shape or None)
        self.count = 0

    def name(self, prefix="v"):
        self.count += 1
        return "%s%d" % (prefix, self.count)

    def dim(self):
        r = self.r
        if r.random() < 0.015:
            return r.choice(HUGE_DIMS)
        if r.random() < 0.015:
            return "N"
        return r.choice(SMALL_DIMS)

    def shape(self, rank=None):
        rank = self.r.choice([0, 1, 1, 2, 2, 2, 3, 3, 4]) if rank is None else rank
        return [self.dim() for _ in range(rank)]

    def add_input(self, elem=FLOAT, shape=None):
        name = self.name("x")
        shape = self.shape() if shape is None else shape
        self.inputs.append(helper.make_tensor_value_info(name, elem, shape))
        self.values.append((name, elem, shape))
        return name

    def constant(self, array, as_initializer=None):
        name = self.name("c")
        tensor = numpy_helper.from_array(np.asarray(array), name)
        if as_initializer is None:
            as_initializer = self.r.random() < 0.5
        if as_initializer:
            self.initializers.append(tensor)
        else:
            self.nodes.append(helper.make_node("Constant", [], [name], value=tensor))
        return name

    def pick(self, elem=None, like=None):
        """A value made so far; with `like`, mostly one of the same shape."""
        if like is not None and like[2] is not None and self.r.random() < 0.7:
            same = [v for v in self.values if v[2] == like[2]]
            if same:
                return self.r.choice(same)
        pool = [v for v in self.values if elem is None or v[1] == elem]
        if not pool:
            return self.add_input(elem or FLOAT)
        return self.r.choice(pool)

    def rank_of(self, value):
        shape = value[2]
        return len(shape) if shape is not None else self.r.randint(0, 4)

    def axis(self, rank):
        """Mostly valid axes (both signs), now and then out of range."""
        r = self.r
        if r.random() < 0.1:
            return r.choice([rank, -rank - 1, 2**31, -2**63, 2**63 - 1])
        if rank == 0:
            return 0
        return r.randint(-rank, rank - 1)

    def node(self, op, inputs, outputs=1, **attrs):
        names = [self.name() for _ in range(outputs)]
        node = helper.make_node(op, inputs, names)
        for key, value in attrs.items():
            empty = isinstance(value, list) and not value
            node.attribute.append(helper.make_attribute(
                key, value, attr_type=onnx.AttributeProto.INTS if empty else None))
        self.nodes.append(node)
        for n in names:
            self.values.append((n, FLOAT, None))
        return names[0]

    def add_node(self):
        r = self.r
        kind = r.choice(["unary", "binary", "binary", "compare", "reduce",
                         "matmul", "gemm", "transpose", "reshape", "concat",
                         "slice", "softmax", "gather", "expand", "squeeze",
                         "unsqueeze", "cast", "flatten", "where", "clip",
                         "split", "pad", "cumsum", "argmax", "layernorm",
                         "trilu", "range", "constantofshape"])
        if self.extended and r.random() < 0.4:
            kind = r.choice(EXTENDED)
        x = self.pick()
        if kind in EXTENDED:
            return self.add_extended(kind, x, self.rank_of(x))
        rank = self.rank_of(x)
        if kind == "unary":
            return self.node(r.choice(UNARY), [x[0]])
        if kind == "binary":
            y = self.pick(like=x) if r.random() < 0.8 else x
            return self.node(r.choice(BINARY), [x[0], y[0]])
        if kind == "compare":
            y = self.pick(like=x)
            out = self.node(r.choice(COMPARE), [x[0], y[0]])
            return self.node("Cast", [out], to=FLOAT)
        if kind == "reduce":
            op = r.choice(REDUCE)
            keep = r.choice([0, 1])
            if r.random() < 0.3:
                return self.node(op, [x[0]], keepdims=keep)
            axes = sorted({self.axis(rank) for _ in range(r.randint(1, 2))})
            if r.random() < 0.5:
                return self.node(op, [x[0], self.constant(np.array(axes, np.int64))],
                                 keepdims=keep,
                                 noop_with_empty_axes=r.choice([0, 1]))
            return self.node(op, [x[0]], axes=axes, keepdims=keep)
        if kind == "matmul":
            y = self.pick()
            return self.node("MatMul", [x[0], y[0]])
        if kind == "gemm":
            y = self.pick()
            inputs = [x[0], y[0]]
            if r.random() < 0.5:
                inputs.append(self.pick()[0])
            return self.node("Gemm", inputs, transA=r.choice([0, 1]),
                             transB=r.choice([0, 1]), alpha=r.choice([1.0, 0.5, -2.0]))
        if kind == "transpose":
            perm = list(range(rank))
            r.shuffle(perm)
            if r.random() < 0.1 and perm:
                perm[0] = r.choice([perm[-1], rank, -1])
            return self.node("Transpose", [x[0]], perm=perm)
        if kind == "reshape":
            shape = [r.choice([-1, 0, 1, 2, 3, 4, 6, 8]) for _ in range(r.randint(0, 4))]
            if r.random() < 0.05:
                shape = [-1, -1]
            if r.random() < 0.05:
                shape = [2**62, 4]
            return self.node("Reshape", [x[0], self.constant(np.array(shape, np.int64))],
                             allowzero=r.choice([0, 0, 1]))
        if kind == "concat":
            others = [self.pick(like=x)[0] for _ in range(r.randint(0, 3))]
            return self.node("Concat", [x[0]] + others, axis=self.axis(rank))
        if kind == "slice":
            n = r.randint(1, max(1, rank))
            axes = [self.axis(rank) for _ in range(n)]
            extreme = [0, 1, -1, 2, -2, 3, 2**63 - 1, -2**63, 2**31]
            starts = [r.choice(extreme) for _ in range(n)]
            ends = [r.choice(extreme) for _ in range(n)]
            steps = [r.choice([1, 1, 2, -1, -2, 3, 0, 2**63 - 1, -2**63]) for _ in range(n)]
            inputs = [x[0], self.constant(np.array(starts, np.int64)),
                      self.constant(np.array(ends, np.int64))]
            if r.random() < 0.8:
                inputs.append(self.constant(np.array(axes, np.int64)))
                if r.random() < 0.8:
                    inputs.append(self.constant(np.array(steps, np.int64)))
            return self.node("Slice", inputs)
        if kind == "softmax":
            return self.node(r.choice(["Softmax", "LogSoftmax"]), [x[0]],
                             axis=self.axis(rank))
        if kind == "gather":
            op = r.choice(["Gather", "GatherElements"])
            indices = np.array([r.choice([0, 1, -1, 2, 5, -7, 2**40])
                                for _ in range(r.randint(0, 4))], np.int64)
            if op == "GatherElements":
                indices = indices.reshape([len(indices)] + [1] * max(0, rank - 1)) if rank else indices
            return self.node(op, [x[0], self.constant(indices)], axis=self.axis(rank))
        if kind == "expand":
            shape = [r.choice([1, 2, 3, 4, 0, -1]) for _ in range(r.randint(0, 4))]
            if r.random() < 0.05:
                shape = [2**20, 2**20]
            return self.node("Expand", [x[0], self.constant(np.array(shape, np.int64))])
        if kind in ("squeeze", "unsqueeze"):
            axes = [self.axis(rank + (kind == "unsqueeze")) for _ in range(r.randint(0, 2))]
            op = "Squeeze" if kind == "squeeze" else "Unsqueeze"
            if kind == "squeeze" and not axes:
                return self.node(op, [x[0]])
            return self.node(op, [x[0], self.constant(np.array(axes, np.int64))])
        if kind == "cast":
            to = r.choice([FLOAT, INT64, BOOL, TensorProto.DOUBLE, TensorProto.INT32,
                           TensorProto.FLOAT16])
            out = self.node("Cast", [x[0]], to=to)
            return self.node("Cast", [out], to=FLOAT)
        if kind == "flatten":
            return self.node("Flatten", [x[0]], axis=self.axis(rank + 1))
        if kind == "where":
            c = self.node("Greater", [x[0], self.pick(like=x)[0]])
            return self.node("Where", [c, x[0], self.pick(like=x)[0]])
        if kind == "clip":
            lo = self.constant(np.array(r.choice([-1.0, 0.0, np.inf]), np.float32))
            hi = self.constant(np.array(r.choice([1.0, 6.0, -np.inf]), np.float32))
            return self.node("Clip", [x[0], lo, hi])
        if kind == "split":
            outputs = r.randint(1, 3)
            inputs = [x[0]]
            if r.random() < 0.5:
                inputs.append(self.constant(np.array(
                    [r.choice([0, 1, 2, 3, -1]) for _ in range(outputs)], np.int64)))
            return self.node("Split", inputs, outputs=outputs, axis=self.axis(rank))
        if kind == "pad":
            pads = [r.choice([0, 1, 2, -1, 2**40]) for _ in range(2 * rank)]
            return self.node("Pad", [x[0], self.constant(np.array(pads, np.int64))],
                             mode=r.choice(["constant", "reflect", "edge", "wrap"]))
        if kind == "cumsum":
            return self.node("CumSum", [x[0], self.constant(np.array(self.axis(rank), np.int64))],
                             exclusive=r.choice([0, 1]), reverse=r.choice([0, 1]))
        if kind == "argmax":
            out = self.node(r.choice(["ArgMax", "ArgMin"]), [x[0]], axis=self.axis(rank),
                            keepdims=r.choice([0, 1]))
            return self.node("Cast", [out], to=FLOAT)
        if kind == "layernorm":
            scale = self.pick()[0]
            return self.node("LayerNormalization", [x[0], scale], axis=self.axis(rank),
                             epsilon=r.choice([1e-5, 0.0]))
        if kind == "trilu":
            inputs = [x[0]]
            if r.random() < 0.5:
                inputs.append(self.constant(np.array(r.choice([0, 1, -1, 2**62]), np.int64)))
            return self.node("Trilu", inputs, upper=r.choice([0, 1]))
        if kind == "range":
            start, limit, delta = (r.choice([0.0, 1.0, -3.0, 1e30]) for _ in range(3))
            out = self.node("Range", [self.constant(np.array(start, np.float32)),
                                      self.constant(np.array(limit, np.float32)),
                                      self.constant(np.array(delta, np.float32))])
            return out
        shape = [r.choice([0, 1, 2, 3, -1, 2**40]) for _ in range(r.randint(0, 3))]
        return self.node("ConstantOfShape", [self.constant(np.array(shape, np.int64))],
                         value=numpy_helper.from_array(np.array([1.5], np.float32)))

    def add_extended(self, kind, x, rank):
        """The --extended ops: Resize and Upsample with hostile scales and
        sizes, Conv and pooling with hostile windows, strides and pads."""
        r = self.r
        if kind == "resize":
            attrs = {"mode": r.choice(["nearest", "linear", "cubic"]),
                     "coordinate_transformation_mode": r.choice(
                         ["half_pixel", "asymmetric", "align_corners",
                          "pytorch_half_pixel", "half_pixel_symmetric",
                          "tf_half_pixel_for_nearest"]),
                     "nearest_mode": r.choice(["floor", "ceil", "round_prefer_floor",
                                               "round_prefer_ceil"])}
            if r.random() < 0.3:
                attrs["keep_aspect_ratio_policy"] = r.choice(
                    ["stretch", "not_larger", "not_smaller"])
            n = rank
            if r.random() < 0.3 and rank:
                axes = sorted({self.axis(rank) for _ in range(r.randint(1, rank))})
                attrs["axes"] = axes
                n = len(axes)
            inputs = [x[0], ""]
            if r.random() < 0.5:
                scales = [r.choice(RESIZE_SCALES) for _ in range(n)]
                inputs.append(self.constant(np.array(scales, np.float32)))
            else:
                sizes = [r.choice(RESIZE_SIZES) for _ in range(n)]
                inputs += ["", self.constant(np.array(sizes, np.int64))]
            return self.node("Resize", inputs, **attrs)
        if kind == "upsample":
            scales = [r.choice(RESIZE_SCALES) for _ in range(rank)]
            return self.node("Upsample", [x[0], self.constant(np.array(scales, np.float32))],
                             mode=r.choice(["nearest", "linear"]))
        spatial = max(0, rank - 2)
        window = [r.choice([1, 2, 3, 0, -1, 2**31, 2**63 - 1]) for _ in range(spatial)]
        attrs = {"strides": [r.choice([1, 2, 3, 0, -1, 2**62]) for _ in range(spatial)],
                 "pads": [r.choice([0, 1, 2, -1, 2**40, 2**63 - 1])
                          for _ in range(2 * spatial)],
                 "dilations": [r.choice([1, 1, 2, 0, 2**62]) for _ in range(spatial)]}
        if r.random() < 0.3:
            attrs["auto_pad"] = r.choice(["SAME_UPPER", "SAME_LOWER", "VALID", "NOTSET"])
            attrs.pop("pads")
        for key in list(attrs):
            if r.random() < 0.3:
                attrs.pop(key)
        if kind == "conv":
            channels = x[2][1] if x[2] is not None and rank >= 2 else 1
            group = r.choice([1, 1, 2, 0, -1])
            if not isinstance(channels, int) or channels > 64:
                channels = 1
            cin = max(1, channels // max(1, group)) if group > 0 else 1
            shape = [r.choice([1, 2, 4])] + [cin] + [abs(w) if 0 < abs(w) < 8 else 1
                                                      for w in window]
            weight = self.constant(np.ones(shape, np.float32), as_initializer=True)
            if r.random() < 0.2:
                attrs["kernel_shape"] = window
            return self.node("Conv", [x[0], weight], group=group, **attrs)
        attrs["kernel_shape"] = window
        if r.random() < 0.3:
            attrs["ceil_mode"] = r.choice([0, 1])
        op = r.choice(["MaxPool", "AveragePool", "LpPool"])
        if op == "AveragePool" and r.random() < 0.5:
            attrs["count_include_pad"] = r.choice([0, 1])
        return self.node(op, [x[0]], **attrs)

    def infer(self, model):
        """Shapes of the values made so far, where shape inference can tell."""
        inferred = infer_shapes(model)
        if inferred is None:
            return
        known = {}
        for info in inferred.graph.value_info:
            t = info.type.tensor_type
            if not t.HasField("shape"):
                continue
            dims = []
            for d in t.shape.dim:
                dims.append(d.dim_value if d.HasField("dim_value") else
                            (d.dim_param or None))
            if None in dims:
                continue
            known[info.name] = (t.elem_type, dims)
        self.values = [(n, *known[n]) if n in known else (n, e, s)
                       for n, e, s in self.values]

    def model(self, outputs, opset, ir_version):
        graph = helper.make_graph(self.nodes, "g%d" % self.seed, self.inputs,
                                  outputs, self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = ir_version
        return model


def hostile(b, outputs):
    """One graph-level defect, as a careless or hostile producer would write."""
    r = b.r
    what = r.randrange(7)
    if what == 0 and len(b.nodes) >= 2:  # two nodes define one value
        b.nodes[-1].output[0] = b.nodes[0].output[0]
    elif what == 1 and b.nodes:  # a node reads a name nothing defines
        b.nodes[-1].input.append("missing%d" % b.seed)
    elif what == 2 and outputs:  # an output listed twice
        outputs.append(outputs[0])
    elif what == 3:  # initializer data that does not match its shape
        t = numpy_helper.from_array(np.zeros([4], np.float32), "bad%d" % b.seed)
        t.dims[:] = [r.choice([5, 2**40, 0])]
        b.initializers.append(t)
        b.nodes.append(helper.make_node("Add", [t.name, t.name], ["bad_out"]))
        outputs.append(helper.make_tensor_value_info("bad_out", FLOAT, None))
    elif what == 4 and b.initializers:  # an input named as an initializer
        init = b.initializers[0]
        b.inputs.append(helper.make_tensor_value_info(init.name, init.data_type, [3]))
    elif what == 5 and b.nodes:  # a node writes its own input
        node = b.nodes[-1]
        if node.input:
            node.output[0] = node.input[0]
    elif b.nodes:  # empty input name in a required position
        b.nodes[-1].input[0] = ""


def make_model(seed, extended=False):
    b = Builder(seed, extended)
    base = b.shape()
    for _ in range(b.r.randint(1, 3)):
        b.add_input(shape=list(base) if b.r.random() < 0.6 else None)
    for _ in range(b.r.randint(1, 6)):
        b.add_node()
        b.infer(b.model([], 17, 8))
    made = [v for v in b.values if not any(v[0] == i.name for i in b.inputs)]
    chosen = made[-1:] + b.r.sample(made, min(len(made), b.r.randint(0, 2)))
    outputs, seen = [], set()
    for name, elem, shape in chosen:
        if name not in seen:
            seen.add(name)
            outputs.append(helper.make_tensor_value_info(name, elem, shape))
    opset, ir_version = 17, 8
    if b.r.random() < 0.25:
        hostile(b, outputs)
    if b.r.random() < 0.05:
        opset = b.r.choice([1, 6, 13, 21, 22, 0, 99])
        ir_version = b.r.choice([3, 7, 10, 11])
    return b.model(outputs, opset, ir_version)


def small(model):
    """True when every graph input holds at most 2^16 elements (fixed dims)."""
    for info in model.graph.input:
        count = 1
        for d in info.type.tensor_type.shape.dim:
            if not d.HasField("dim_value"):
                return False
            count *= d.dim_value
        if count > 2**16:
            return False
    return True


CRASH_TEXT = ["LLVM ERROR", "Assertion", "terminate called", "AddressSanitizer",
              "UndefinedBehaviorSanitizer", "runtime error:", "Stack dump",
              "PLEASE submit a bug report"]


def dynamic(model):
    """True when a graph input has the dim_param N."""
    return any(d.dim_param == "N" for info in model.graph.input
               for d in info.type.tensor_type.shape.dim)


def run_one(tool, path, cache, check, bind, timeout):
    """(None when the run passes, else what went wrong; whether it ran)."""
    command = [tool, path, "--cache-dir", cache]
    if bind:
        command += ["--dim", "N=3"]
    if check:
        command.append("--check")
    try:
        done = subprocess.run(command, capture_output=True, text=True,
                              errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout after %d s" % timeout, False
    text = done.stdout + done.stderr
    crash = [c for c in CRASH_TEXT if c in text]
    if crash:
        return "exit %d with '%s': %s" % (
            done.returncode, crash[0], text.strip().splitlines()[-1][:200]), False
    if done.returncode == 0:
        return None, True
    if done.returncode == 2 and done.stderr.strip():
        return None, False
    tail = (text.strip().splitlines() or ["(no output)"])[-1]
    return "exit %d: %s" % (done.returncode, tail[:200]), False


def seed_range(text):
    first, _, last = text.partition(":")
    return range(int(first), int(last or int(first) + 1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=seed_range, required=True, metavar="A:B",
                        help="the seeds A (inclusive) to B (exclusive)")
    parser.add_argument("--build", help="build folder (holds bin/fuse-run)")
    parser.add_argument("--write", metavar="DIR", help="write SEED.onnx files")
    parser.add_argument("--check", action="store_true",
                        help="run small models with --check")
    parser.add_argument("--timeout", type=int, default=120,
                        help="seconds one fuse-run may take")
    parser.add_argument("--extended", action="store_true",
                        help="also draw Resize, Upsample, Conv and pooling "
                             "(other models for the same seeds)")
    parser.add_argument("--keep", metavar="DIR",
                        help="copy the models of findings there")
    args = parser.parse_args()
    if not args.build and not args.write:
        parser.error("give --build or --write")

    if args.write:
        os.makedirs(args.write, exist_ok=True)
        for seed in args.seeds:
            model = make_model(seed, args.extended)
            with open(os.path.join(args.write, "%d.onnx" % seed), "wb") as f:
                f.write(model.SerializeToString())
        return 0

    tool = os.path.join(args.build, "bin", "fuse-run")
    if not os.access(tool, os.X_OK):
        parser.error("no fuse-run in %s/bin" % args.build)
    findings = 0
    ran = 0
    with tempfile.TemporaryDirectory(prefix="fuse-onnx-graphs-") as tmp:
        cache = os.path.join(tmp, "cache")
        for seed in args.seeds:
            model = make_model(seed, args.extended)
            path = os.path.join(tmp, "%d.onnx" % seed)
            with open(path, "wb") as f:
                f.write(model.SerializeToString())
            problem, succeeded = run_one(tool, path, cache,
                                         args.check and small(model),
                                         dynamic(model), args.timeout)
            ran += succeeded
            if problem is None:
                continue
            findings += 1
            print("onnx_graphs: seed %d: %s" % (seed, problem))
            if args.keep:
                os.makedirs(args.keep, exist_ok=True)
                with open(os.path.join(args.keep, "%d.onnx" % seed), "wb") as f:
                    f.write(model.SerializeToString())
    print("onnx_graphs: %d models (seeds %d:%d): %d ran, %d findings"
          % (len(args.seeds), args.seeds.start, args.seeds.stop, ran, findings))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
