#!/usr/bin/env python3
"""Random single-node models of Resize, MaxPool, AveragePool and Pad, run by
fuse-run and compared with onnxruntime and onnx's reference (issue 20).

Each model is one node with random shapes and attributes (Resize: mode,
coordinate_transformation_mode, nearest_mode, scales or sizes; pools: 1-D
and 2-D windows, strides, dilations, pads below the window, ceil_mode,
count_include_pad, auto_pad; Pad: constant/reflect/edge with pads as an
input, negative pads included) and a random input. A model that onnxruntime
and the reference both reject is skipped; one Fuse refuses, or whose output
differs from both, is a finding (printed; exit 1). Known differences, where
onnxruntime and the reference disagree with each other, print as notes:
Resize align_corners with a scale that gives no whole length (Fuse follows
onnxruntime and PyTorch), pytorch_half_pixel to one output from a scale
(Fuse follows the reference), pools with ceil_mode or SAME_LOWER whose
windows the reference places otherwise (Fuse agrees with onnxruntime). SAME
padding with a dilated window or one smaller than its stride is not
generated: onnxruntime pads for the undilated window or refuses the negative
pads, the reference differs again; Fuse follows the spec's formula.

Needs onnx and onnxruntime (bench/models only):
    python bench/models/compare_ops.py --build build [--seed 0] [--count 200]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator


def resize_node(rng, shape):
    nd = len(shape) - 2
    mode = rng.choice(["nearest", "linear"])
    transforms = ["half_pixel", "pytorch_half_pixel", "align_corners",
                  "asymmetric"]
    attrs = dict(mode=mode,
                 coordinate_transformation_mode=rng.choice(transforms))
    if mode == "nearest":
        attrs["nearest_mode"] = rng.choice(
            ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"])
    if rng.random() < 0.5:
        scales = [1.0, 1.0] + [rng.choice([0.5, 2.0, 3.0,
                                           round(rng.uniform(0.3, 3.5), 2)])
                               for _ in range(nd)]
        if any(int(s * d) == 0 for s, d in zip(scales, shape)):
            return None
        return (helper.make_node("Resize", ["x", "", "s"], ["y"], **attrs),
                [numpy_helper.from_array(np.array(scales, np.float32), "s")])
    sizes = shape[:2] + [rng.randint(1, 12) for _ in range(nd)]
    return (helper.make_node("Resize", ["x", "", "", "z"], ["y"], **attrs),
            [numpy_helper.from_array(np.array(sizes, np.int64), "z")])


def pool_node(rng, shape, op):
    nd = len(shape) - 2
    k = [rng.randint(1, 4) for _ in range(nd)]
    d = [rng.choice([1, 1, 2]) for _ in range(nd)]
    if any((k[i] - 1) * d[i] + 1 > shape[2 + i] for i in range(nd)):
        return None
    attrs = dict(kernel_shape=k, strides=[rng.randint(1, 3) for _ in range(nd)],
                 dilations=d, ceil_mode=rng.randint(0, 1))
    auto_pad = rng.choice(["NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER"])
    if any(d[i] > 1 or k[i] < attrs["strides"][i] for i in range(nd)):
        # onnxruntime and the reference disagree with each other (and the
        # spec) on SAME padding for a dilated window or one below its
        # stride (onnxruntime pads for the undilated window, or refuses
        # negative pads): not compared.
        auto_pad = "NOTSET"
    if auto_pad == "NOTSET":
        attrs["pads"] = [rng.randint(0, k[i % nd] - 1) for i in range(2 * nd)]
    else:
        attrs["auto_pad"] = auto_pad
    if op == "AveragePool":
        attrs["count_include_pad"] = rng.randint(0, 1)
    return helper.make_node(op, ["x"], ["y"], **attrs), []


def pad_node(rng, shape):
    mode = rng.choice(["constant", "reflect", "edge"])
    pads = []
    for i in range(2 * len(shape)):
        n = shape[i % len(shape)]
        pads.append(rng.randint(-1 if n > 2 else 0,
                                max(n - 2 if mode == "reflect" else 3, 0)))
    inputs = ["x", "p"]
    initializers = [numpy_helper.from_array(np.array(pads, np.int64), "p")]
    if mode == "constant" and rng.random() < 0.5:
        inputs.append("v")
        initializers.append(numpy_helper.from_array(np.array(1.5, np.float32),
                                                    "v"))
    return helper.make_node("Pad", inputs, ["y"], mode=mode), initializers


def run(fn):
    try:
        return fn()
    except Exception:  # a runtime that rejects the model: no opinion
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=200)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    fuse_run = os.path.join(args.build, "bin", "fuse-run")
    work = tempfile.mkdtemp(prefix="fuse-compare-ops-")
    findings = notes = ran = 0
    for t in range(args.count):
        op = rng.choice(["Resize", "MaxPool", "AveragePool", "Pad"])
        shape = [rng.randint(1, 2), rng.randint(1, 3)] + [
            rng.randint(1 if op == "Resize" else 3, 9)
            for _ in range(rng.choice([1, 2]))]
        made = (resize_node(rng, shape) if op == "Resize" else
                pad_node(rng, shape) if op == "Pad" else
                pool_node(rng, shape, op))
        if made is None:
            continue
        node, initializers = made
        model = helper.make_model(
            helper.make_graph(
                [node], "t",
                [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                initializers),
            opset_imports=[helper.make_opsetid("", 19)])
        model.ir_version = 9
        path = os.path.join(work, "m.onnx")
        onnx.save(model, path)
        x = np.random.default_rng(t).standard_normal(shape).astype(np.float32)
        np.save(os.path.join(work, "x.npy"), x)
        peers = {
            "onnxruntime": run(lambda: ort.InferenceSession(path).run(
                None, {"x": x})[0]),
            "reference": run(lambda: ReferenceEvaluator(model).run(
                None, {"x": x})[0]),
        }
        if all(v is None for v in peers.values()):
            continue
        out = os.path.join(work, "out")
        subprocess.run(["rm", "-rf", out])
        proc = subprocess.run(
            [fuse_run, path, f"--input=x={os.path.join(work, 'x.npy')}",
             f"--output-dir={out}", f"--cache-dir={os.path.join(work, 'c')}"],
            capture_output=True, text=True)
        what = f"{op} {shape} {helper.printable_node(node)} " + " ".join(
            f"{i.name}={numpy_helper.to_array(i).tolist()}"
            for i in initializers)
        if proc.returncode != 0:
            print(f"finding: Fuse refused {what}: {proc.stderr.strip()[-200:]}")
            findings += 1
            continue
        ran += 1
        y = np.load(os.path.join(out, "y.npy"))
        agree = [name for name, v in peers.items() if v is not None and
                 v.shape == y.shape and np.allclose(y, v, rtol=1e-4, atol=1e-5)]
        differ = [name for name, v in peers.items()
                  if v is not None and name not in agree]
        if differ and not agree:
            print(f"finding: Fuse differs from {', '.join(differ)}: {what}")
            findings += 1
        elif differ:
            print(f"note: Fuse agrees with {agree[0]}, not {differ[0]}: {what}")
            notes += 1
    print(f"{ran} models run, {findings} findings, {notes} notes")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
