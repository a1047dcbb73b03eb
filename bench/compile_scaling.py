#!/usr/bin/env python3
"""How fuse-compile's time grows with the length of an op chain.

    compile_scaling.py --build BUILD [--sizes 1250 2500 ...] [--runs 3]
                       [--ops max|mixed] [--reduce-every K] [--target host]

Generates each chain with chain_graph.py, compiles it with
`fuse-compile --timings` (median of --runs runs) and prints, per size, the
total time, its growth per doubling of the chain since the previous size
(about 2 is linear, 4 quadratic), the phases, the wall time and the CPU
time of the whole process (all its threads: a module of many huge kernels
is optimized and emitted in parts, in parallel). --ops max (the default)
makes chains LLVM folds, so the total is Fuse's own work; --ops mixed keeps
exp and tanh, and LLVM's optimize and object phases on the one huge kernel
dominate. Standard library only; nothing is asserted.
"""

import argparse
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chain_graph  # noqa: E402

PHASES = ["import", "fusion", "codegen", "lower", "translate", "optimize",
          "object", "link"]


def compile_once(tool, graph, target, out_dir, timeout):
    """The phases' times in ms and the wall time, or an error string."""
    command = [tool, "--timings", "--target=" + target, graph, "-o", out_dir]
    start = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        done = subprocess.run(command, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout after %d s" % timeout
    wall = (time.monotonic() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime -
           before.ru_stime) * 1000
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["?"])[-1]
        return "exit %d: %s" % (done.returncode, tail[:120])
    phases = {}
    for line in (done.stdout + done.stderr).splitlines():
        words = line.split()
        if len(words) == 3 and words[2] == "ms" and words[0] in PHASES:
            phases[words[0]] = float(words[1])
    phases["wall"] = wall
    phases["cpu"] = cpu
    return phases


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True,
                        help="build folder (holds bin/fuse-compile)")
    parser.add_argument("--sizes", type=int, nargs="+",
                        default=[1250, 2500, 5000, 10000, 20000])
    parser.add_argument("--runs", type=int, default=3,
                        help="compilations per size; the median counts")
    parser.add_argument("--ops", choices=["max", "mixed"], default="max")
    parser.add_argument("--reduce-every", type=int, default=0, metavar="K")
    parser.add_argument("--target", default="host")
    parser.add_argument("--timeout", type=int, default=600,
                        help="seconds one compilation may take")
    args = parser.parse_args()
    tool = os.path.join(args.build, "bin", "fuse-compile")
    if not os.access(tool, os.X_OK):
        parser.error("no fuse-compile in %s/bin" % args.build)

    print("chain: --ops %s --reduce-every %d, target %s, median of %d runs"
          % (args.ops, args.reduce_every, args.target, args.runs))
    # ratio: the growth per doubling of the chain (2: linear, 4: quadratic).
    print("%7s %10s %6s %9s %9s %9s %9s %9s %9s" % (
        "ops", "total ms", "ratio", "fusion", "codegen", "lower", "llvm",
        "wall ms", "cpu ms"))
    previous = None
    with tempfile.TemporaryDirectory(prefix="fuse-compile-scaling-") as tmp:
        for size in args.sizes:
            graph = os.path.join(tmp, "chain-%d.mlir" % size)
            with open(graph, "w") as f:
                f.write("\n".join(chain_graph.chain(
                    size, args.ops, args.reduce_every)) + "\n")
            runs = []
            for run in range(args.runs):
                result = compile_once(tool, graph, args.target,
                                      os.path.join(tmp, "out"), args.timeout)
                if isinstance(result, str):
                    runs = result
                    break
                runs.append(result)
            if isinstance(runs, str):
                print("%7d %s" % (size, runs))
                previous = None
                continue

            def median(key):
                return statistics.median(r.get(key, 0.0) for r in runs)
            total = sum(median(phase) for phase in PHASES)
            llvm = median("optimize") + median("object") + median("link")
            ratio = "%6s" % "-"
            if previous:
                doublings = math.log2(size / previous[0])
                ratio = "%6.2f" % ((total / previous[1]) ** (1 / doublings))
            print("%7d %10.1f %s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f" % (
                size, total, ratio, median("fusion"), median("codegen"),
                median("lower"), llvm, median("wall"), median("cpu")))
            sys.stdout.flush()
            previous = (size, total)


if __name__ == "__main__":
    main()
