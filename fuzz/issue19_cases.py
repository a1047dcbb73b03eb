#!/usr/bin/env python3
"""Every case issue 19 names, reproduced against a build: each must end in a
clean error (exit 2, a message naming what is wrong, no crash text) or a
correct result, within a timeout. Written from the issue's text, not copied
from the committed tests, so that it checks them too: the table it prints
names the committed test that covers each case's class.

    issue19_cases.py --build BUILD [--only SUBSTRING] [--skip-slow]

Runs by hand (about a minute; the 20,000-op chain is --skip-slow's), not in
CI: the committed tests named in the table are what CI runs. Needs numpy and
onnx. Exit status 1 when a case does not hold.
"""

import argparse
import os
import signal
import stat
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CRASH_TEXT = ["LLVM ERROR", "Assertion", "terminate called", "AddressSanitizer",
              "UndefinedBehaviorSanitizer", "runtime error:", "Stack dump",
              "PLEASE submit a bug report", "Segmentation fault"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INT64_MIN, INT64_MAX = -2**63, 2**63 - 1

CASES = []


def case(section, name, tests, slow=False):
    def register(function):
        CASES.append((section, name, tests, slow, function))
        return function
    return register


class Env:
    def __init__(self, build, tmp):
        self.bin = os.path.join(build, "bin")
        self.tmp = tmp
        self.cache = os.path.join(tmp, "cache")
        self.count = 0

    def path(self, name):
        self.count += 1
        return os.path.join(self.tmp, "%d-%s" % (self.count, name))

    def write(self, name, text):
        path = self.path(name)
        mode = "wb" if isinstance(text, bytes) else "w"
        with open(path, mode) as f:
            f.write(text)
        return path

    def model(self, name, nodes, inputs, outputs, initializers=(), opset=17,
              ir_version=8):
        graph = helper.make_graph(nodes, name, inputs, outputs,
                                  initializer=list(initializers))
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = ir_version
        return self.write(name + ".onnx", model.SerializeToString())

    def run(self, tool, *args, timeout=120, env=None, cache=True):
        command = [os.path.join(self.bin, tool)] + [str(a) for a in args]
        if cache and tool == "fuse-run":
            command += ["--cache-dir", self.cache]
        start = time.time()
        try:
            done = subprocess.run(command, capture_output=True, timeout=timeout,
                                  env=env)
        except subprocess.TimeoutExpired:
            return Result(None, "", "timeout after %d s" % timeout, timeout)
        return Result(done.returncode, done.stdout.decode(errors="replace"),
                      done.stderr.decode(errors="replace"), time.time() - start)


class Result:
    def __init__(self, code, out, err, seconds):
        self.code, self.out, self.err, self.seconds = code, out, err, seconds

    def crash(self):
        text = self.out + self.err
        return [c for c in CRASH_TEXT if c in text]

    def last(self):
        lines = (self.err.strip() or self.out.strip()).splitlines()
        return lines[-1][:160] if lines else "(no output)"


def clean_error(result, *needles, code=2):
    """(ok, detail): exit `code` (fuse-run and fuse-cache: 2; fuse-compile and
    fuse-opt, as compilers and mlir-opt do: 1), every needle in stderr, no
    crash text."""
    if result.code is None:
        return False, result.err
    if result.crash() or result.code < 0:
        return False, "exit %s, crash: %s" % (result.code, result.last())
    missing = [n for n in needles if n not in result.err]
    if result.code != code or missing:
        return False, "exit %d (want %d with %s): %s" % (result.code, code, missing,
                                                         result.last())
    return True, "exit %d: %s" % (code, result.last())


def succeeded(result, *needles):
    if result.code is None:
        return False, result.err
    missing = [n for n in needles if n not in result.out + result.err]
    if result.code != 0 or result.crash() or missing:
        return False, "exit %s (want 0 with %s): %s" % (result.code, missing, result.last())
    return True, "exit 0: " + (result.out.strip().splitlines() or [""])[-1][:160]


def both(*checks):
    bad = [d for ok, d in checks if not ok]
    return (not bad, "; ".join(bad) if bad else "; ".join(d for _, d in checks))


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, np.int64), name)


SMALL_MLIR = """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = fuse.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
"""

# ---------------------------------------------------------------- crashes and hangs


@case("crash", ".mlir reshape whose element count wraps 2^64",
      "lit tools/huge-shapes.mlir, dialect/invalid.mlir")
def reshape_wraps(e):
    wrap = e.write("wrap.mlir", """func.func @f(%x: tensor<16xf32>) -> tensor<4611686018427387905x4xf32> {
  %y = fuse.reshape %x : tensor<16xf32> -> tensor<4611686018427387905x4xf32>
  return %y : tensor<4611686018427387905x4xf32>
}
""")
    return both(clean_error(e.run("fuse-run", wrap), "more elements than an int64"),
                clean_error(e.run("fuse-opt", wrap), "more elements than an int64", code=1))


@case("crash", "wrapped element count on an input (returned as is)",
      "lit tools/huge-shapes.mlir")
def input_wraps(e):
    path = e.write("in.mlir", """func.func @f(%x: tensor<4294967296x4294967297xf32>) -> tensor<4294967296x4294967297xf32> {
  return %x : tensor<4294967296x4294967297xf32>
}
""")
    return both(clean_error(e.run("fuse-run", path, "--output-dir", e.path("out")),
                            "too large"),
                clean_error(e.run("fuse-compile", path, "--target=host", "-o", e.path("b")),
                            "too large", code=1))


@case("crash", "20,000-op chain: compiles (no stack overflow) and runs",
      "lit codegen/long-chain.mlir; bench/compile_scaling.py", slow=True)
def long_chain(e):
    lines = ["func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> {"]
    prev = "%x"
    for i in range(20000):
        op = ["fuse.neg", "fuse.abs", "fuse.tanh", "fuse.exp"][i % 4] if i % 50 else "fuse.sin"
        lines.append("  %%v%d = %s %s : tensor<64xf32>" % (i, op, prev))
        prev = "%%v%d" % i
    lines += ["  return %s : tensor<64xf32>" % prev, "}"]
    path = e.write("chain.mlir", "\n".join(lines) + "\n")
    result = e.run("fuse-run", path, "--check", timeout=600)
    ok, detail = succeeded(result, "check: passed")
    return ok, "%s (%.1f s wall, compile and reference run)" % (detail, result.seconds)


@case("crash", "--input x=DIR, /proc/self/mem, /dev/zero, FIFO; model a link to /dev/zero",
      "lit tools/special-files.mlir")
def special_inputs(e):
    model = e.write("m.mlir", SMALL_MLIR)
    folder = e.path("dir")
    os.mkdir(folder)
    fifo = e.path("fifo.npy")
    os.mkfifo(fifo)
    link = e.path("zero.onnx")
    os.symlink("/dev/zero", link)
    link_mlir = e.path("zero.mlir")
    os.symlink("/dev/zero", link_mlir)
    checks = [clean_error(e.run("fuse-run", model, "--input", "x=" + p, timeout=30), "cannot read")
              for p in (folder, "/tmp", "/dev/zero", fifo)]
    checks.append(clean_error(e.run("fuse-run", model, "--input", "x=/proc/self/mem", timeout=30),
                              "not a .npy file"))
    checks += [clean_error(e.run("fuse-run", p, timeout=30), "not a regular file")
               for p in (link, link_mlir)]
    checks.append(clean_error(e.run("fuse-opt", link_mlir, timeout=30), "not a regular file",
                              code=1))
    checks.append(clean_error(e.run("fuse-compile", link_mlir, "--target=host", "-o",
                                    e.path("b"), timeout=30), "not a regular file", code=1))
    return both(*checks)


@case("crash", "random inputs too large for memory ([2^30] f32), a matmul of huge K",
      "lit tools/huge-random-input.mlir, tools/huge-run.mlir")
def huge_inputs(e):
    big = e.write("big.mlir", """func.func @f(%x: tensor<1073741824xf32>) -> tensor<1073741824xf32> {
  %y = fuse.exp %x : tensor<1073741824xf32>
  return %y : tensor<1073741824xf32>
}
""")
    matmul = e.write("mm.mlir", """func.func @f(%a: tensor<4x4294967296xf32>, %b: tensor<4294967296x4xf32>) -> tensor<4x4xf32> {
  %y = fuse.matmul %a, %b : tensor<4x4294967296xf32>, tensor<4294967296x4xf32> -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}
""")
    # Under a 2 GiB address-space limit, as a small machine would be.
    limited = ["sh", "-c", 'ulimit -v 2097152; exec "$@"', "sh"]
    results = []
    for path in (big, matmul):
        command = limited + [os.path.join(e.bin, "fuse-run"), path, "--cache-dir", e.cache]
        try:
            done = subprocess.run(command, capture_output=True, timeout=120)
            r = Result(done.returncode, done.stdout.decode(errors="replace"),
                       done.stderr.decode(errors="replace"), 0)
        except subprocess.TimeoutExpired:
            r = Result(None, "", "timeout", 120)
        results.append(clean_error(r, "bytes"))
    return both(*results)


@case("crash", "a FIFO where a cache entry is expected", "GoogleTest BundleCorruptionTest (FIFO)")
def cache_fifo(e):
    model = e.write("m.mlir", SMALL_MLIR)
    cache = e.path("cache")
    first = e.run("fuse-run", model, "--cache-dir", cache, cache=False)
    entries = [n for n in os.listdir(cache) if n.endswith(".fbundle")]
    if first.code != 0 or not entries:
        return False, "setup: " + first.last()
    os.remove(os.path.join(cache, entries[0]))
    os.mkfifo(os.path.join(cache, entries[0]))
    runs = [succeeded(e.run("fuse-run", model, "--cache-dir", cache, timeout=60, cache=False))]
    for command in (["list"], ["stats"], ["verify"], ["show", entries[0][:-8]]):
        r = e.run("fuse-cache", *command, "--cache-dir", cache, timeout=30)
        ok = r.code is not None and r.code >= 0 and not r.crash()
        runs.append((ok, "fuse-cache %s: exit %s" % (command[0], r.code)))
    return both(*runs)


@case("crash", ".mlir nested 100,000 brackets deep", "lit tools/deep-nesting.mlir")
def deep_nesting(e):
    text = "func.func @f() -> tensor<f32> {\n  %c = arith.constant dense<" + "[" * 100000 + \
        "1.0" + "]" * 100000 + "> : tensor<f32>\n  return %c : tensor<f32>\n}\n"
    path = e.write("deep.mlir", text)
    types = e.write("deep-types.mlir", "func.func @f(%x: " + "tuple<" * 100000 + "f32" +
                    ">" * 100000 + ") {\n  return\n}\n")
    return both(clean_error(e.run("fuse-run", path), "nests brackets"),
                clean_error(e.run("fuse-opt", path), "nests brackets", code=1),
                clean_error(e.run("fuse-compile", types, "--target=host", "-o", e.path("b")),
                            "nests brackets", code=1))

# ---------------------------------------------------------------- silent wrong answers


def load_outputs(folder):
    return {n: np.load(os.path.join(folder, n)) for n in sorted(os.listdir(folder))}


@case("wrong", "a value returned twice (.mlir return %y, %y; ONNX output listed twice)",
      "lit tools/run-value-returned-twice.mlir, onnx/output-listed-twice.test")
def returned_twice(e):
    mlir = e.write("twice.mlir", """func.func @f(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %y = fuse.exp %x : tensor<8xf32>
  return %y, %y : tensor<8xf32>, tensor<8xf32>
}
""")
    onnx_path = e.model("twice", [helper.make_node("Exp", ["x"], ["y"])], [f32("x", [8])],
                        [f32("y", [8]), f32("y", [8])])
    checks = []
    for path in (mlir, onnx_path):
        for runtime in ("reference", "host"):
            out = e.path("out")
            r = e.run("fuse-run", path, "--runtime", runtime, "--seed", "3", "--output-dir", out,
                      *(["--check"] if runtime == "host" else []))
            ok, detail = succeeded(r)
            if ok:
                values = list(load_outputs(out).values())
                ok = len(values) == 2 and np.array_equal(values[0], values[1]) and \
                    np.all(values[0] > 0)
                detail = "%s %s: %s" % (os.path.basename(path), runtime,
                                        "two equal non-zero outputs" if ok else "outputs differ")
            checks.append((ok, detail))
    return both(*checks)


@case("wrong", "Concat([2,3], [3], axis 0) refused", "GoogleTest OnnxImporter (concat_rank_mismatch)")
def concat_ranks(e):
    path = e.model("concat", [helper.make_node("Concat", ["a", "b"], ["y"], name="cat", axis=0)],
                   [f32("a", [2, 3]), f32("b", [3])], [f32("y", None)])
    return clean_error(e.run("fuse-run", path), "node 'cat'", "cannot be concatenated")


@case("wrong", "Slice steps INT64_MIN and INT64_MAX give NumPy's shapes and values",
      "GoogleTest OnnxImporter (Slice steps)")
def slice_extreme_steps(e):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    xin = e.path("x.npy")
    np.save(xin, x)
    checks = []
    for start, end, step in ((-1, INT64_MIN, INT64_MIN), (INT64_MAX, INT64_MIN, INT64_MIN),
                             (0, INT64_MAX, INT64_MAX), (1, 3, INT64_MAX)):
        path = e.model("slice", [helper.make_node("Slice", ["x", "s", "e", "a", "t"], ["y"],
                                                  name="slice")],
                       [f32("x", [2, 3])], [f32("y", None)],
                       [ints("s", [start]), ints("e", [end]), ints("a", [1]), ints("t", [step])])
        out = e.path("out")
        r = e.run("fuse-run", path, "--input", "x=" + xin, "--output-dir", out, "--check")
        ok, detail = succeeded(r, "check: passed")
        if ok:
            got = load_outputs(out)["y.npy"]
            want = x[:, start:end:step]
            ok = got.shape == want.shape and np.array_equal(got, want)
            detail = "step %d: %s, NumPy %s" % (step, list(got.shape), list(want.shape))
        checks.append((ok, detail))
    return both(*checks)


@case("wrong", "invalid models: a value defined twice, a node writing its input, "
      "opset 0/99/-5, IR version 1/999",
      "GoogleTest OnnxImporter (invalid models), lit onnx/errors.test")
def invalid_models(e):
    x, y = [f32("x", [2])], [f32("y", [2])]
    checks = []
    path = e.model("twice", [helper.make_node("Relu", ["x"], ["y"], name="a"),
                             helper.make_node("Neg", ["x"], ["y"], name="b")], x, y)
    checks.append(clean_error(e.run("fuse-run", path), "'y'", "twice"))
    path = e.model("self", [helper.make_node("Relu", ["x"], ["t"], name="a"),
                            helper.make_node("Add", ["t", "u"], ["u"], name="self"),
                            helper.make_node("Neg", ["u"], ["y"], name="c")], x, y)
    checks.append(clean_error(e.run("fuse-run", path), "'u'"))
    for opset in (0, 99, -5):
        path = e.model("opset", [helper.make_node("Relu", ["x"], ["y"])], x, y, opset=opset)
        checks.append(clean_error(e.run("fuse-run", path), "opset %d" % opset))
    for ir in (1, 999):
        path = e.model("ir", [helper.make_node("Relu", ["x"], ["y"])], x, y, ir_version=ir)
        checks.append(clean_error(e.run("fuse-run", path), "IR version %d" % ir))
    return both(*checks)


@case("wrong", "lit models/mlp-block.mlir --check at seeds 0..9",
      "lit tools/run-check-magnitudes.mlir")
def mlp_block_seeds(e):
    model = os.path.join(ROOT, "lit_tests", "models", "mlp-block.mlir")
    return both(*[succeeded(e.run("fuse-run", model, "--check", "--seed", seed), "check: passed")
                  for seed in range(10)])

# ---------------------------------------------------------------- files


@case("files", "output names ../../../../tmp/x, a trailing NUL, two names alike",
      "lit tools/output-names.mlir")
def output_names(e):
    victim = e.path("victim")
    names = ["../../../../" + victim.lstrip("/"), "b\\00", "same", "same", "/abs", "..", "."]
    results = ", ".join("tensor<2xf32> {fuse.name = \"%s\"}" % n for n in names)
    body = "\n".join("  %%y%d = fuse.exp %%x : tensor<2xf32>" % i for i in range(len(names)))
    path = e.write("names.mlir", "func.func @f(%%x: tensor<2xf32>) -> (%s) {\n%s\n  return %s : %s\n}\n" % (
        results, body, ", ".join("%%y%d" % i for i in range(len(names))),
        ", ".join(["tensor<2xf32>"] * len(names))))
    out = e.path("out")
    before = set(os.listdir(e.tmp))
    r = e.run("fuse-run", path, "--output-dir", out)
    ok, detail = succeeded(r)
    if not ok:
        return ok, detail
    files = os.listdir(out)
    outside = set(os.listdir(e.tmp)) - before - {os.path.basename(out)}
    ok = len(files) == len(names) and not os.path.exists(victim) and \
        not os.path.exists(victim + ".npy") and not outside and \
        all(f.endswith(".npy") for f in files)
    return ok, "%d files inside, all .npy, none outside: %s" % (len(files), sorted(files))


@case("files", "a killed compile leaves no world-readable temporary; stale ones are reclaimed",
      "lit tools/host-link-folder.mlir; GoogleTest BundleCacheFolderTest")
def killed_compile(e):
    lines = ["func.func @f(%x: tensor<256xf32>) -> tensor<256xf32> {"]
    prev = "%x"
    for i in range(600):
        lines.append("  %%v%d = %s %s : tensor<256xf32>" % (
            i, ["fuse.tanh", "fuse.exp", "fuse.sin"][i % 3], prev))
        prev = "%%v%d" % i
    lines += ["  return %s : tensor<256xf32>" % prev, "}"]
    path = e.write("kill.mlir", "\n".join(lines) + "\n")
    cache = e.path("cache")
    tmpdir = e.path("tmp")
    os.mkdir(tmpdir)
    env = dict(os.environ, TMPDIR=tmpdir)
    leftovers = []
    killed = 0
    seen = set()
    # Each run is killed the moment a temporary shows (polled every few ms),
    # or at 60 s.
    for attempt in range(3):
        process = subprocess.Popen([os.path.join(e.bin, "fuse-run"), path, "--cache-dir",
                                    cache + str(attempt)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        end = time.time() + 60
        found = False
        before = set(os.listdir(tmpdir))
        while time.time() < end and process.poll() is None and not found:
            for folder in (tmpdir, cache + str(attempt)):
                if os.path.isdir(folder):
                    names = [n for n in os.listdir(folder) if n not in before and
                             n != ".fuse-cache" and not n.endswith(".fbundle")]
                    seen.update(names)
                    found = found or bool(names)
            time.sleep(0.003)
        killed += process.poll() is None
        process.send_signal(signal.SIGKILL)
        process.wait()
    for folder in (tmpdir, cache):
            # What others could reach: the entries of TMPDIR and the cache
            # folder (what lies inside a 0700 folder is out of their reach).
            for name in os.listdir(folder) if os.path.isdir(folder) else []:
                full = os.path.join(folder, name)
                mode = os.lstat(full).st_mode
                if mode & (stat.S_IRWXG | stat.S_IRWXO) and name != ".fuse-cache":
                    leftovers.append("%s %o" % (os.path.relpath(full, e.tmp), mode & 0o777))
    caches = [cache + str(a) for a in range(3) if os.path.isdir(cache + str(a))]
    after_kill = len(os.listdir(tmpdir)) + sum(
        len([n for n in os.listdir(c) if n != ".fuse-cache"]) for c in caches)
    small = e.write("m.mlir", SMALL_MLIR)
    # The next run (another process) reclaims what the dead ones left: their
    # pids are dead. A different model, so that it compiles and links too.
    r = Result(0, "", "", 0)
    for c in caches:
        r = e.run("fuse-run", small, "--cache-dir", c, env=env, cache=False)
    remaining = os.listdir(tmpdir) + [n for c in caches for n in os.listdir(c)
                                      if not n.endswith(".fbundle") and n != ".fuse-cache"]
    ok = r.code == 0 and not leftovers and not remaining and killed == 3
    return ok, "%d of 3 runs killed mid-compile; temporaries seen: %s; %d left after the " \
        "kills, none group/world-accessible%s; %d left after the next run %s" % (
            killed, sorted(seen), after_kill,
            "" if not leftovers else " (" + ", ".join(leftovers) + ")", len(remaining), remaining)


@case("files", "FUSE_CACHE_DIR=/ (as root) and a foreign non-empty folder are refused",
      "lit tools/foreign-cache-folder.mlir")
def foreign_cache(e):
    model = e.write("m.mlir", SMALL_MLIR)
    before = set(os.listdir("/"))
    r = e.run("fuse-run", model, env=dict(os.environ, FUSE_CACHE_DIR="/"), cache=False)
    created = set(os.listdir("/")) - before
    foreign = e.path("foreign")
    os.mkdir(foreign)
    with open(os.path.join(foreign, "notes.txt"), "w") as f:
        f.write("mine")
    c = e.run("fuse-cache", "clear", "--cache-dir", foreign)
    kept = os.listdir(foreign) == ["notes.txt"]
    return both((r.code == 0 and not created and "cache" in r.err,
                 "fuse-run with FUSE_CACHE_DIR=/: exit %s, %d files created in /: %s" % (
                     r.code, len(created), r.err.strip().splitlines()[0][:160])),
                (c.code == 1 and kept and not c.crash(),
                 "fuse-cache clear of a foreign folder: exit %s, its file kept: %s" % (c.code, kept)))


@case("files", "a forged entry (checksums recomputed) is documented as trusted; "
      "damage is detected", "README (threat model); GoogleTest BundleCorruptionTest")
def forged_entry(e):
    readme = open(os.path.join(ROOT, "README.md")).read()
    documented = "forge an entry" in readme
    model = e.write("m.mlir", SMALL_MLIR)
    cache = e.path("cache")
    e.run("fuse-run", model, "--cache-dir", cache, cache=False)
    entry = [n for n in os.listdir(cache) if n.endswith(".fbundle")][0]
    full = os.path.join(cache, entry)
    data = bytearray(open(full, "rb").read())
    data[len(data) // 2] ^= 0x40
    open(full, "wb").write(bytes(data))
    v = e.run("fuse-cache", "verify", "--cache-dir", cache)
    r = e.run("fuse-run", model, "--cache-dir", cache, cache=False)
    return (documented and v.code != 0 and "damaged" in v.out + v.err and r.code == 0,
            "README threat model: %s; a flipped byte: verify exit %s (%s), run exit %s" % (
                documented, v.code, v.last(), r.code))

# ---------------------------------------------------------------- make it stay fixed


@case("stay", "CTest entries: shape_arithmetic lint, fuzz replays, graph fuzzer seeds",
      "CMake: scripts/shape_arithmetic.py, test/fuzz/CMakeLists.txt")
def ctest_entries(e):
    build = os.path.dirname(e.bin)
    listed = subprocess.run(["ctest", "--test-dir", build, "-N"], capture_output=True,
                            text=True).stdout
    want = ["shape_arithmetic", "fuzz_replay_onnx", "fuzz_replay_npy", "fuzz_replay_bundle",
            "fuzz_replay_mlir", "fuzz_onnx_graphs"]
    missing = [w for w in want if w not in listed]
    lint = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "shape_arithmetic.py")],
                          capture_output=True, text=True)
    return (not missing and lint.returncode == 0,
            "missing %s; lint exit %d" % (missing, lint.returncode))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--only", help="run the cases whose name holds this")
    parser.add_argument("--skip-slow", action="store_true")
    args = parser.parse_args()
    failures = 0
    rows = []
    with tempfile.TemporaryDirectory(prefix="fuse-issue19-") as tmp:
        e = Env(os.path.abspath(args.build), tmp)
        for section, name, tests, slow, function in CASES:
            if args.only and args.only not in name:
                continue
            if slow and args.skip_slow:
                rows.append((section, name, tests, "skipped (slow)"))
                continue
            try:
                ok, detail = function(e)
            except Exception as error:  # noqa: BLE001 - a case's own failure is a finding
                ok, detail = False, "%s: %s" % (type(error).__name__, error)
            failures += not ok
            rows.append((section, name, tests, ("ok: " if ok else "FAILED: ") + detail))
            print("%s %s: %s" % ("ok" if ok else "FAILED", name, detail), flush=True)
    print()
    print("| class | case | committed test | result |")
    print("|---|---|---|---|")
    for row in rows:
        print("| %s |" % " | ".join(s.replace("|", "/") for s in row))
    print("\nissue19_cases: %d cases, %d failed" % (len(rows), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
