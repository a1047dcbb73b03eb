#!/usr/bin/env python3
"""An open-ended round of hostile inputs through the tools (issue 19), by hand,
never in CI (CI replays the committed corpora: test/fuzz/CMakeLists.txt):

    hostile_round.py --build BUILD [--seed S] [--count N] [--keep DIR] CLASS...

CLASS is one or more of:
  onnx-fields  ONNX models from lit_tests/onnx/Inputs with field-level
               mutations (dims, attributes, initializer types and data, node
               inputs and op types, opsets), run by fuse-run --check;
  mlir         .mlir files from lit_tests with token-level mutations (shape
               dims, numbers, attribute values, op names, dropped lines), run
               by fuse-run --check, fuse-opt and fuse-compile;
  npy          malformed .npy inputs (headers, shapes, dtypes, versions,
               truncations) given to fuse-run --input;
  special      directories, FIFOs, /dev/zero, /dev/full, links (to a device,
               dangling, looping), /proc files and empty files in every path
               argument of fuse-run, fuse-opt, fuse-compile and fuse-cache;
  cache        corrupted, truncated, forged-looking and replaced cache entries
               and markers: every run must still give the right outputs;
  race         processes racing on one cache, SIGKILLed at random: every run
               that finishes gives the right outputs, and the cache verifies.

The byte-level rounds are the fuzz targets' own (fuzz-onnx, fuzz-npy,
fuzz-bundle, fuzz-mlir with --seed S --mutations N, best in the sanitizer
build). A run passes when it exits 0 (with --check passed, or outputs equal to
the unmutated run's where the class says so) or with the tool's error status
(fuse-run and fuse-cache 2, fuse-compile and fuse-opt 1) and a message, with no
crash text; a signal, a timeout, another status or a wrong output is a finding,
printed with what makes it again. Needs numpy and onnx. Exit 1 on findings.
"""

import argparse
import glob
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRASH_TEXT = ["LLVM ERROR", "Assertion", "terminate called", "AddressSanitizer",
              "UndefinedBehaviorSanitizer", "runtime error:", "Stack dump",
              "PLEASE submit a bug report", "LeakSanitizer"]
ERROR_STATUS = {"fuse-run": 2, "fuse-cache": 2, "fuse-compile": 1, "fuse-opt": 1}
EXTREME = [0, 1, -1, 2, 3, 7, 2**31 - 1, 2**31, 2**32 + 1, 2**40, 2**62, 2**63 - 1, -2**63]


class Round:
    def __init__(self, args, tmp):
        self.bin = os.path.join(os.path.abspath(args.build), "bin")
        self.r = random.Random(args.seed)
        self.count = args.count
        self.keep = args.keep
        self.tmp = tmp
        self.cache = os.path.join(tmp, "cache")
        self.runs = 0
        self.findings = []
        self.n = 0

    def path(self, name):
        self.n += 1
        return os.path.join(self.tmp, "%d-%s" % (self.n, name))

    def run(self, tool, args, timeout=120, env=None):
        command = [os.path.join(self.bin, tool)] + [str(a) for a in args]
        self.runs += 1
        try:
            done = subprocess.run(command, capture_output=True, timeout=timeout, env=env,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return None, "", "timeout after %d s" % timeout
        return done.returncode, done.stdout.decode(errors="replace"), \
            done.stderr.decode(errors="replace")

    def judge(self, what, tool, result, files=(), ok_codes=(0,)):
        """Records a finding unless `result` is a pass for `tool`."""
        code, out, err = result
        crash = [c for c in CRASH_TEXT if c in out + err]
        problem = None
        if code is None:
            problem = err
        elif crash:
            problem = "exit %d with '%s'" % (code, crash[0])
        elif code < 0:
            problem = "signal %d" % -code
        elif code == ERROR_STATUS[tool] and err.strip():
            pass
        elif code not in ok_codes:
            problem = "exit %d" % code
        if problem is None:
            return True
        tail = ((err.strip() or out.strip()).splitlines() or ["(no output)"])[-1][:200]
        self.finding("%s: %s: %s" % (what, problem, tail), files)
        return False

    def finding(self, text, files=()):
        self.findings.append(text)
        print("hostile_round: FINDING %s" % text, flush=True)
        if self.keep:
            os.makedirs(self.keep, exist_ok=True)
            for f in files:
                if os.path.isfile(f):
                    shutil.copy(f, os.path.join(self.keep, "%d-%s" % (len(self.findings),
                                                                      os.path.basename(f))))

# ---------------------------------------------------------------- onnx fields


def mutate_model(model, r):
    """One to three field-level edits; returns what was done."""
    done = []
    g = model.graph
    for _ in range(r.randint(1, 3)):
        what = r.randrange(9)
        if what == 0 and g.input:
            t = r.choice(g.input).type.tensor_type
            if t.shape.dim:
                d = r.choice(t.shape.dim)
                d.dim_value = r.choice(EXTREME[:-1] + [0])
                done.append("input dim")
        elif what == 1 and g.node:
            node = r.choice(g.node)
            ints = [a for a in node.attribute if a.type in (onnx.AttributeProto.INT,
                                                            onnx.AttributeProto.INTS)]
            if ints:
                a = r.choice(ints)
                if a.type == onnx.AttributeProto.INT:
                    a.i = r.choice(EXTREME)
                elif a.ints:
                    a.ints[r.randrange(len(a.ints))] = r.choice(EXTREME)
                else:
                    a.ints.append(r.choice(EXTREME))
                done.append("attr %s.%s" % (node.op_type, a.name))
        elif what == 2 and g.node:
            node = r.choice(g.node)
            floats = [a for a in node.attribute if a.type == onnx.AttributeProto.FLOAT]
            if floats:
                a = r.choice(floats)
                a.f = r.choice([float("nan"), float("inf"), -float("inf"), 0.0, -1.0, 1e38])
                done.append("float attr %s.%s" % (node.op_type, a.name))
        elif what == 3 and g.initializer:
            t = r.choice(g.initializer)
            if t.dims:
                t.dims[r.randrange(len(t.dims))] = r.choice(EXTREME[:-1])
            else:
                t.dims.append(r.choice([0, 2, 2**40]))
            done.append("initializer dims")
        elif what == 4 and g.initializer:
            t = r.choice(g.initializer)
            if t.raw_data:
                cut = r.randrange(len(t.raw_data) + 1)
                t.raw_data = t.raw_data[:cut] + bytes(r.randrange(3))
                done.append("initializer raw_data length")
            else:
                t.data_type = r.choice([1, 6, 7, 10, 11, 16, 9, 2, 0, 99])
                done.append("initializer data_type")
        elif what == 5 and g.initializer:
            t = r.choice(g.initializer)
            if t.raw_data and t.data_type in (7, 6):  # int64, int32: index-like values
                width = 8 if t.data_type == 7 else 4
                values = bytearray(t.raw_data)
                if len(values) >= width:
                    i = r.randrange(len(values) // width) * width
                    v = r.choice(EXTREME)
                    values[i:i + width] = int(v).to_bytes(8, "little", signed=True)[:width]
                    t.raw_data = bytes(values)
                    done.append("initializer int value")
        elif what == 6 and len(g.node) >= 1:
            node = r.choice(g.node)
            names = [v.name for v in g.input] + [t.name for t in g.initializer] + \
                [o for n in g.node for o in n.output]
            if node.input and names:
                node.input[r.randrange(len(node.input))] = r.choice(names + [""])
                done.append("node input rewired")
        elif what == 7 and g.node:
            node = r.choice(g.node)
            node.op_type = r.choice(["Add", "Relu", "MatMul", "Reshape", "Concat", "Gather",
                                     "Slice", "Resize", "Conv", "Transpose", "Expand",
                                     "Einsum", "ScatterND", "Pad"])
            done.append("op type -> " + node.op_type)
        elif what == 8:
            if model.opset_import:
                model.opset_import[0].version = r.choice([7, 9, 11, 13, 17, 18, 21, 23])
            done.append("opset")
    return done


def round_onnx_fields(rd):
    seeds = sorted(glob.glob(os.path.join(ROOT, "lit_tests", "onnx", "Inputs", "*.onnx")))
    seeds = [s for s in seeds if os.path.getsize(s) < 2**20]
    for i in range(rd.count):
        seed = rd.r.choice(seeds)
        try:
            model = onnx.load(seed, load_external_data=False)
        except Exception:  # noqa: BLE001 - a seed the onnx package cannot read
            continue
        done = mutate_model(model, rd.r)
        path = rd.path(os.path.basename(seed))
        with open(path, "wb") as f:
            f.write(model.SerializeToString())
        result = rd.run("fuse-run", [path, "--check", "--cache-dir", rd.cache], timeout=120)
        rd.judge("onnx-fields %s (%s)" % (os.path.basename(seed), ", ".join(done)), "fuse-run",
                 result, [path])
        os.remove(path)

# ---------------------------------------------------------------- mlir


def mutate_mlir(text, r):
    import re
    done = []
    for _ in range(r.randint(1, 3)):
        what = r.randrange(6)
        if what == 0:  # a shape dim
            dims = list(re.finditer(r"(?<=[<x])(\d+)(?=x)", text))
            if dims:
                m = r.choice(dims)
                text = text[:m.start()] + str(r.choice([0, 1, 3, 2**31, 2**32 + 1, 2**62,
                                                        2**63 - 1, 2**64])) + text[m.end():]
                done.append("dim")
        elif what == 1:  # an integer attribute or constant
            nums = list(re.finditer(r"(?<=[ =\[,(])(-?\d+)(?=[ ,\]):])", text))
            if nums:
                m = r.choice(nums)
                text = text[:m.start()] + str(r.choice(EXTREME)) + text[m.end():]
                done.append("number")
        elif what == 2:  # an element type
            types = list(re.finditer(r"x(f32|f16|i64|i32|i1|bf16|f64)>", text))
            if types:
                m = r.choice(types)
                text = text[:m.start(1)] + r.choice(["f32", "f16", "i64", "i1", "bf16", "f64",
                                                     "i8", "ui64", "index"]) + text[m.end(1):]
                done.append("type")
        elif what == 3:  # an op name
            ops = list(re.finditer(r"fuse\.(\w+)", text))
            if ops:
                m = r.choice(ops)
                text = text[:m.start(1)] + r.choice(["exp", "add", "matmul", "reshape",
                                                     "broadcast", "transpose", "reduce",
                                                     "gather", "slice", "concat", "conv"]) + \
                    text[m.end(1):]
                done.append("op")
        elif what == 4:  # drop or duplicate a line
            lines = text.splitlines()
            if len(lines) > 2:
                i = r.randrange(len(lines))
                if r.random() < 0.5:
                    del lines[i]
                    done.append("line dropped")
                else:
                    lines.insert(i, lines[i])
                    done.append("line doubled")
                text = "\n".join(lines) + "\n"
        else:  # a float literal
            floats = list(re.finditer(r"-?\d+\.\d+(e[-+]?\d+)?", text))
            if floats:
                m = r.choice(floats)
                text = text[:m.start()] + r.choice(["0x7FC00000", "1.0e+39", "-0.0", "nan",
                                                    "0x7F800000", "1e-45"]) + text[m.end():]
                done.append("float")
    return text, done


def round_mlir(rd):
    seeds = []
    for suite in ("tools", "dialect", "codegen", "passes"):
        for path in sorted(glob.glob(os.path.join(ROOT, "lit_tests", suite, "*.mlir"))):
            text = open(path).read()
            # split-file inputs: their parts; otherwise the file itself.
            parts = text.split("\n//--- ")
            if len(parts) > 1:
                seeds += ["\n".join(p.split("\n")[1:]) for p in parts[1:]]
            elif "func.func" in text and len(text) < 20000:
                seeds.append(text)
    seeds = [s for s in seeds if "func.func" in s and "fuse." in s and "expected-error" not in s]
    for i in range(rd.count):
        text, done = mutate_mlir(rd.r.choice(seeds), rd.r)
        path = rd.path("m.mlir")
        with open(path, "w") as f:
            f.write(text)
        what = "mlir (%s)" % ", ".join(done)
        tool = rd.r.choice(["fuse-run", "fuse-run", "fuse-opt", "fuse-compile"])
        if tool == "fuse-run":
            args = [path, "--check", "--cache-dir", rd.cache]
        elif tool == "fuse-opt":
            args = [path, "--canonicalize"]
        else:
            args = [path, "--target=host", "-o", rd.path("out")]
        rd.judge(what + " " + tool, tool, rd.run(tool, args, timeout=120), [path])
        os.remove(path)

# ---------------------------------------------------------------- npy


def npy_bytes(r):
    """A malformed or odd .npy file for an input of tensor<2x3xf32>."""
    magic = b"\x93NUMPY"
    version = r.choice([b"\x01\x00", b"\x02\x00", b"\x03\x00", b"\x00\x00", b"\x09\x09"])
    descr = r.choice(["'<f4'", "'>f4'", "'<f8'", "'<i8'", "'|b1'", "'<f2'", "'|u1'", "'<c8'",
                      "'O'", "'<U3'", "[('a', '<f4')]", "'<f4", "''", "'<f16'", "'V4'"])
    shape = r.choice(["(2, 3)", "(2, 3,)", "(6,)", "()", "(3, 2)", "(2, -3)", "(2, 3, 1)",
                      "(4611686018427387904, 4)", "(9223372036854775807,)",
                      "(99999999999999999999,)", "(2, 3.0)", "(0, 3)", "[2, 3]", "(2,3"])
    fortran = r.choice(["False", "True", "0", "None"])
    header = "{'descr': %s, 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)
    if r.random() < 0.1:
        header = r.choice(["", "{}", "{'descr': '<f4'}", "x" * 70000, "{" * 5000])
    body = header.encode("latin1", "replace")
    pad = (64 - (len(magic) + 2 + 4 + len(body) + 1) % 64) % 64
    body += b" " * pad + b"\n"
    if version == b"\x01\x00":
        length = len(body).to_bytes(2, "little") if len(body) < 65536 else b"\xff\xff"
    else:
        length = len(body).to_bytes(4, "little")
    if r.random() < 0.1:
        length = r.choice([b"\xff\xff", b"\x00\x00", b"\xff\xff\xff\xff", b"\x10\x00"])
    data = np.arange(6, dtype=np.float32).tobytes() * r.choice([1, 1, 1, 0, 2])
    blob = magic + version + length + body + data[:r.choice([len(data), len(data) - 1, 3])]
    if r.random() < 0.15:
        i = r.randrange(len(blob))
        blob = blob[:i] + bytes([r.randrange(256)]) + blob[i + 1:]
    return blob, "descr %s, shape %s, fortran %s, version %s" % (descr, shape, fortran,
                                                                 version.hex())


def exp_model(rd, name, shape):
    """A model of one exp on a tensor of `shape` (e.g. "2x3"), written to NAME."""
    path = rd.path(name)
    with open(path, "w") as f:
        f.write("func.func @f(%%x: tensor<%sxf32>) -> tensor<%sxf32> {\n"
                "  %%y = fuse.exp %%x : tensor<%sxf32>\n  return %%y : tensor<%sxf32>\n}\n"
                % ((shape,) * 4))
    return path


# An ONNX model the npy and special rounds give fuse-run besides theirs.
ONNX_MODEL = os.path.join(ROOT, "lit_tests", "onnx", "Inputs", "relu_add.onnx")


def round_npy(rd):
    model = exp_model(rd, "npy.mlir", "2x3")
    for i in range(rd.count):
        blob, what = npy_bytes(rd.r)
        path = rd.path("x.npy")
        with open(path, "wb") as f:
            f.write(blob)
        target = model if rd.r.random() < 0.7 else ONNX_MODEL
        out = rd.path("out")
        result = rd.run("fuse-run", [target, "--input", "x=" + path, "--check",
                                     "--output-dir", out, "--cache-dir", rd.cache], timeout=60)
        if rd.judge("npy (%s)" % what, "fuse-run", result, [path]) and result[0] == 0:
            # Accepted: the output must be what NumPy reads the file as, through exp.
            try:
                x = np.load(path, allow_pickle=False)
            except Exception as error:  # noqa: BLE001 - NumPy refuses what Fuse accepted
                rd.finding("npy (%s): fuse-run accepted a file NumPy refuses: %s" % (
                    what, str(error)[:120]), [path])
                continue
            if target == model:
                got = np.load(os.path.join(out, "out0.npy"))
                want = np.exp(x.astype(np.float64)).astype(np.float32).reshape(2, 3) \
                    if x.size == 6 else None
                if want is None or not np.allclose(got, want, rtol=1e-6, atol=0):
                    rd.finding("npy (%s): output differs from exp of NumPy's reading" % what,
                               [path])
        shutil.rmtree(out, ignore_errors=True)

# ---------------------------------------------------------------- special files


def special_paths(rd):
    base = rd.path("special")
    os.mkdir(base)
    made = {}
    made["dir"] = os.path.join(base, "dir")
    os.mkdir(made["dir"])
    made["fifo"] = os.path.join(base, "fifo")
    os.mkfifo(made["fifo"])
    made["empty"] = os.path.join(base, "empty")
    open(made["empty"], "w").close()
    for name, target in (("link-zero", "/dev/zero"), ("link-dangling", base + "/nowhere"),
                         ("link-dir", made["dir"]), ("link-fifo", made["fifo"])):
        made[name] = os.path.join(base, name)
        os.symlink(target, made[name])
    made["loop"] = os.path.join(base, "loop")
    os.symlink(made["loop"], made["loop"])
    made["missing"] = os.path.join(base, "missing", "deeper")
    made["file-as-dir"] = os.path.join(made["empty"], "sub")
    for device in ("/dev/zero", "/dev/null", "/dev/full", "/dev/urandom", "/proc/self/mem",
                   "/proc/self/maps", "/"):
        made[device] = device
    return made


def round_special(rd):
    model = exp_model(rd, "m.mlir", "4")
    cache = rd.path("cache")
    rd.run("fuse-run", [model, "--cache-dir", cache])
    key = [n for n in os.listdir(cache) if n.endswith(".fbundle")][0][:-8]
    for name, p in special_paths(rd).items():
        out = rd.path("out")
        commands = [
            ("fuse-run", [p, "--cache-dir", rd.cache]),
            ("fuse-run", [model, "--input", "x=" + p, "--cache-dir", rd.cache]),
            ("fuse-run", [ONNX_MODEL, "--input", "x=" + p, "--cache-dir", rd.cache]),
            ("fuse-run", [model, "--output-dir", p, "--cache-dir", rd.cache]),
            ("fuse-run", [model, "--output-dir", out, "--cache-dir", p]),
            ("fuse-run", [model, "--dot", p, "--cache-dir", rd.cache]),
            ("fuse-opt", [p]),
            ("fuse-opt", [model, "-o", p]),
            ("fuse-compile", [p, "--target=host", "-o", out]),
            ("fuse-compile", [model, "--target=host", "-o", p]),
            ("fuse-compile", [model, "--target=host", "--emit=llvm", "-o", p]),
            ("fuse-cache", ["list", "--cache-dir", p]),
            ("fuse-cache", ["verify", "--cache-dir", p]),
            ("fuse-cache", ["stats", "--cache-dir", p]),
            ("fuse-cache", ["show", key, "--cache-dir", p]),
        ]
        if name in ("/", "/dev/null", "/proc/self/maps", "/proc/self/mem", "/dev/urandom"):
            # Never clear or write into system paths; reading them is the test.
            commands = [c for c in commands if not (
                c[0] == "fuse-compile" and c[1][-1] == p or c[0] == "fuse-opt" and
                len(c[1]) > 1 or "--output-dir" in c[1] and c[1][c[1].index("--output-dir") + 1]
                == p or "--dot" in c[1] or "--cache-dir" in c[1] and
                c[1][c[1].index("--cache-dir") + 1] == p and c[0] == "fuse-run")]
        for tool, args in commands:
            result = rd.run(tool, args, timeout=30)
            rd.judge("special %s: %s %s" % (name, tool, " ".join(args)), tool, result,
                     ok_codes=(0, 1) if tool == "fuse-cache" else (0,))
            shutil.rmtree(out, ignore_errors=True)
    # A cache entry replaced by special files.
    entry = os.path.join(cache, key + ".fbundle")
    for name, p in special_paths(rd).items():
        if name in ("missing", "file-as-dir", "/"):
            continue
        if os.path.lexists(entry):
            if os.path.isdir(entry) and not os.path.islink(entry):
                shutil.rmtree(entry)
            else:
                os.remove(entry)
        if name in ("dir",):
            os.mkdir(entry)
        elif name == "fifo":
            os.mkfifo(entry)
        else:
            os.symlink(p, entry)
        for tool, args in (("fuse-run", [model, "--cache-dir", cache]),
                           ("fuse-cache", ["verify", "--cache-dir", cache]),
                           ("fuse-cache", ["list", "--cache-dir", cache]),
                           ("fuse-cache", ["show", key, "--cache-dir", cache])):
            rd.judge("cache entry is %s: %s %s" % (name, tool, args[0]), tool,
                     rd.run(tool, args, timeout=30), ok_codes=(0, 1))

# ---------------------------------------------------------------- cache


CACHE_MODELS = [
    "func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> {\n  %y = fuse.exp %x : tensor<64xf32>\n"
    "  %z = fuse.tanh %y : tensor<64xf32>\n  return %z : tensor<64xf32>\n}\n",
    "func.func @f(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {\n"
    "  %y = fuse.matmul %x, %w : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>\n"
    "  return %y : tensor<8x4xf32>\n}\n",
    "func.func @f(%x: tensor<4x32xf32>) -> tensor<4xf32> {\n"
    "  %y = fuse.reduce sum %x dims = [1] : tensor<4x32xf32> -> tensor<4xf32>\n"
    "  return %y : tensor<4xf32>\n}\n",
]


def reference_outputs(rd, model):
    out = rd.path("ref")
    code, _, err = rd.run("fuse-run", [model, "--runtime", "reference", "--seed", "5",
                                       "--output-dir", out, "--cache-dir", rd.cache])
    if code != 0:
        raise RuntimeError("reference run of %s failed: %s" % (model, err[-300:]))
    return {n: np.load(os.path.join(out, n)) for n in os.listdir(out)}


def same_outputs(out, want):
    try:
        got = {n: np.load(os.path.join(out, n)) for n in os.listdir(out)}
    except Exception:  # noqa: BLE001 - an unreadable output is a wrong output
        return False
    return got.keys() == want.keys() and all(
        np.allclose(got[n], want[n], rtol=1e-5, atol=1e-6) for n in want)


def corrupt(path, r):
    data = bytearray(open(path, "rb").read())
    what = r.randrange(6)
    if what == 0:
        cut = r.randrange(len(data))
        data = data[:cut]
        text = "truncated at %d" % cut
    elif what == 1:
        for _ in range(r.randint(1, 8)):
            data[r.randrange(len(data))] ^= 1 << r.randrange(8)
        text = "bits flipped"
    elif what == 2:
        i = r.randrange(len(data))
        data[i:i + 8] = r.choice(EXTREME).to_bytes(8, "little", signed=True)
        text = "8 bytes at %d overwritten" % i
    elif what == 3:
        data = data + bytes(r.randrange(1, 4096))
        text = "grown"
    elif what == 4:
        data = bytearray(len(data))
        text = "zeroed"
    else:
        i, j = sorted(r.randrange(len(data)) for _ in range(2))
        data = data[:i] + data[j:] + data[i:j]
        text = "ranges swapped"
    with open(path, "wb") as f:
        f.write(bytes(data))
    return text


def cache_models(rd, prefix):
    """CACHE_MODELS written to PREFIXk.mlir, each with its reference outputs."""
    models = []
    for i, text in enumerate(CACHE_MODELS):
        path = rd.path("%s%d.mlir" % (prefix, i))
        with open(path, "w") as f:
            f.write(text)
        models.append((path, reference_outputs(rd, path)))
    return models


def round_cache(rd):
    models = cache_models(rd, "c")
    cache = rd.path("cache")
    for i in range(rd.count):
        model, want = rd.r.choice(models)
        rd.run("fuse-run", [model, "--seed", "5", "--cache-dir", cache])
        entries = [n for n in os.listdir(cache) if n.endswith(".fbundle")]
        what = "marker"
        if entries and rd.r.random() < 0.9:
            entry = os.path.join(cache, rd.r.choice(entries))
            what = corrupt(entry, rd.r)
        else:
            marker = os.path.join(cache, ".fuse-cache")
            if os.path.exists(marker):
                what = "marker " + corrupt(marker, rd.r)
        out = rd.path("out")
        result = rd.run("fuse-run", [model, "--seed", "5", "--output-dir", out,
                                     "--cache-dir", cache], timeout=60)
        if rd.judge("cache entry %s" % what, "fuse-run", result) and result[0] == 0 and \
                not same_outputs(out, want):
            rd.finding("cache entry %s: wrong outputs from a damaged entry" % what)
        tool_args = rd.r.choice([["verify"], ["list"], ["stats"]])
        rd.judge("cache entry %s: fuse-cache %s" % (what, tool_args[0]), "fuse-cache",
                 rd.run("fuse-cache", tool_args + ["--cache-dir", cache], timeout=30),
                 ok_codes=(0, 1))
        shutil.rmtree(out, ignore_errors=True)

# ---------------------------------------------------------------- race


def round_race(rd, processes=8):
    models = cache_models(rd, "r")
    cache = rd.path("cache")
    finished = killed = 0
    rounds = max(1, rd.count // processes)
    for _ in range(rounds):
        if rd.r.random() < 0.6:  # cold: the racers compile and store
            shutil.rmtree(cache, ignore_errors=True)
        running = []
        for p in range(processes):
            model, want = rd.r.choice(models)
            out = rd.path("out")
            command = [os.path.join(rd.bin, "fuse-run"), model, "--seed", "5", "--output-dir",
                       out, "--cache-dir", cache, "--threads", "1"]
            running.append((subprocess.Popen(command, stdout=subprocess.PIPE,
                                             stderr=subprocess.PIPE), out, want))
            if rd.r.random() < 0.3:
                running.append((subprocess.Popen([os.path.join(rd.bin, "fuse-cache"),
                                                  rd.r.choice(["verify", "list", "stats"]),
                                                  "--cache-dir", cache],
                                                 stdout=subprocess.PIPE,
                                                 stderr=subprocess.PIPE), None, None))
        deadline = time.time() + rd.r.uniform(0.01, 0.4)
        victims = set(rd.r.sample(range(len(running)), k=rd.r.randint(0, len(running) // 2)))
        while time.time() < deadline:
            time.sleep(0.01)
        for i in victims:
            if running[i][0].poll() is None:
                running[i][0].send_signal(signal.SIGKILL)
        for i, (process, out, want) in enumerate(running):
            try:
                stdout, stderr = process.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                process.kill()
                rd.finding("race: a process hung")
                continue
            rd.runs += 1
            if process.returncode == -signal.SIGKILL and i in victims:
                killed += 1
                continue
            tool = "fuse-run" if out else "fuse-cache"
            result = (process.returncode, stdout.decode(errors="replace"),
                      stderr.decode(errors="replace"))
            if rd.judge("race", tool, result, ok_codes=(0, 1) if tool == "fuse-cache" else (0,)) \
                    and out and result[0] == 0:
                finished += 1
                if not same_outputs(out, want):
                    rd.finding("race: wrong outputs from a run on a shared cache")
        for model, want in models:
            out = rd.path("out")
            result = rd.run("fuse-run", [model, "--seed", "5", "--output-dir", out,
                                         "--cache-dir", cache])
            if rd.judge("race: run after the race", "fuse-run", result) and \
                    not same_outputs(out, want):
                rd.finding("race: wrong outputs after the race")
    code, out, err = rd.run("fuse-cache", ["verify", "--cache-dir", cache])
    leftovers = [n for n in os.listdir(cache) if not n.endswith(".fbundle") and
                 n != ".fuse-cache"] if os.path.isdir(cache) else []
    print("hostile_round: race: %d runs finished, %d killed; fuse-cache verify: %s; "
          "left in the cache folder besides entries: %s" % (
              finished, killed, (out + err).strip().splitlines()[-1:], leftovers))


CLASSES = {"onnx-fields": round_onnx_fields, "mlir": round_mlir, "npy": round_npy,
           "special": round_special, "cache": round_cache, "race": round_race}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=100, help="inputs per class")
    parser.add_argument("--keep", metavar="DIR", help="copy the inputs of findings there")
    parser.add_argument("classes", nargs="+", choices=sorted(CLASSES))
    args = parser.parse_args()
    status = 0
    for name in args.classes:
        with tempfile.TemporaryDirectory(prefix="fuse-hostile-") as tmp:
            rd = Round(args, tmp)
            start = time.time()
            CLASSES[name](rd)
            print("hostile_round: %s (seed %d): %d tool runs, %d findings, %.0f s" % (
                name, args.seed, rd.runs, len(rd.findings), time.time() - start), flush=True)
            status |= bool(rd.findings)
    return status


if __name__ == "__main__":
    sys.exit(main())
