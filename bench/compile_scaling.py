#!/usr/bin/env python3
"""How fuse-compile's time grows with the length of an op chain.

    compile_scaling.py --build BUILD [--sizes 1250 2500 ...] [--runs 3]
                       [--ops max|mixed] [--reduce-every K] [--target host]
                       [--output-dir bench/results]

Generates each chain with chain_graph.py, compiles it with
`fuse-compile --timings` (median of --runs runs) and prints, per size, the
total time, its growth per doubling of the chain since the previous size
(about 2 is linear, 4 quadratic), the phases, the wall time and the CPU
time of the whole process (all its threads: a module of many huge kernels
is optimized and emitted in parts, in parallel). --ops max (the default)
makes chains LLVM folds, so the total is Fuse's own work; --ops mixed keeps
exp and tanh, and LLVM's optimize and object phases on the one huge kernel
dominate. With --output-dir, the table is also written there as
compile_scaling_OPS.md and .json, with the commit measured, the machine,
its load average and the issue's targets (the 20,000-op chain under 10 s of
wall time, each doubling at most 2.3x); the committed ones are in
bench/results/. Standard library only; nothing is asserted.
"""

import argparse
import datetime
import json
import math
import os
import platform
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


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The targets: a 20,000-op chain compiles in under 10 s, and each
# doubling of the chain costs at most 2.3x.
TARGET_OPS, TARGET_WALL_MS, TARGET_RATIO = 20000, 10000.0, 2.3


def source_state():
    """The commit measured, and whether tracked files differed from it."""
    try:
        commit = subprocess.run(
            ["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", ROOT, "status", "--porcelain",
             "--untracked-files=no"],
            capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return commit + (" with uncommitted changes to tracked files"
                     if dirty else "")


def targets_text(rows):
    """Whether the rows meet the issue's targets, in words."""
    text = []
    at_target = [r for r in rows if r["ops"] == TARGET_OPS]
    if at_target:
        wall = at_target[0]["wall_ms"]
        text.append("%d ops: %.1f s wall (target < %.0f s: %s)" % (
            TARGET_OPS, wall / 1000, TARGET_WALL_MS / 1000,
            "met" if wall < TARGET_WALL_MS else "not met"))
    if at_target and at_target[0].get("wall_ratio") is not None:
        ratio = at_target[0]["wall_ratio"]
        text.append("growth of the wall time per doubling into %d ops: "
                    "%.2fx (target <= %.1fx: %s)" % (
                        TARGET_OPS, ratio, TARGET_RATIO,
                        "met" if ratio <= TARGET_RATIO else "not met"))
    ratios = [r for r in rows if r.get("wall_ratio") is not None]
    if ratios:
        worst = max(ratios, key=lambda r: r["wall_ratio"])
        text.append("largest growth of the wall time per doubling measured: "
                    "%.2fx, into %d ops (for information)" % (
                        worst["wall_ratio"], worst["ops"]))
    return text


def write_results(output_dir, args, rows, load_before):
    """compile_scaling_OPS.md and .json in `output_dir`."""
    results = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y-%m-%d %H:%M UTC"),
        "machine": "%s, %d cores" % (platform.platform(), os.cpu_count()),
        "source": source_state(),
        "chain": {"ops": args.ops, "reduce_every": args.reduce_every,
                  "target": args.target, "runs": args.runs},
        "load_average": {"before": load_before, "after": os.getloadavg()[0]},
        "rows": rows,
        "targets": targets_text(rows),
    }
    name = os.path.join(output_dir, "compile_scaling_%s" % args.ops)
    with open(name + ".json", "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    lines = [
        "# Fuse compile time against chain length (--ops %s)" % args.ops, "",
        "- date: " + results["date"],
        "- machine: " + results["machine"],
        "- Fuse built from " + results["source"],
        "- `bench/compile_scaling.py --ops %s --reduce-every %d --target %s "
        "--runs %d`: `fuse-compile --timings` on bench/chain_graph.py's "
        "chain, median of %d runs per size; ratio: growth per doubling of "
        "the chain (2: linear, 4: quadratic)" % (
            args.ops, args.reduce_every, args.target, args.runs, args.runs),
        "- this is a shared 2-core virtual machine: the numbers are noisy; "
        "1-minute load average %.2f before the run and %.2f after" % (
            load_before, results["load_average"]["after"]),
        "",
        "| ops | phases ms | ratio | fusion | codegen | lower | llvm "
        "| wall ms | wall ratio | cpu ms |",
        "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        def ratio(key):
            return "-" if r.get(key) is None else "%.2f" % r[key]
        lines.append("| %d | %.0f | %s | %.0f | %.0f | %.0f | %.0f | %.0f "
                     "| %s | %.0f |" % (
                         r["ops"], r["total_ms"], ratio("ratio"),
                         r["fusion_ms"], r["codegen_ms"], r["lower_ms"],
                         r["llvm_ms"], r["wall_ms"], ratio("wall_ratio"),
                         r["cpu_ms"]))
    lines += ["", "## Targets of the issue", ""]
    lines += ["- " + t for t in results["targets"]]
    with open(name + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %s.md, .json" % name)


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
    parser.add_argument("--output-dir", metavar="DIR",
                        help="also write compile_scaling_OPS.md and .json "
                        "there (bench/results holds the committed ones)")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    rows = []
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
            row = {"ops": size, "total_ms": total, "ratio": None,
                   "wall_ratio": None, "fusion_ms": median("fusion"),
                   "codegen_ms": median("codegen"),
                   "lower_ms": median("lower"), "llvm_ms": llvm,
                   "wall_ms": median("wall"), "cpu_ms": median("cpu")}
            if previous:
                doublings = math.log2(size / previous[0])
                row["ratio"] = (total / previous[1]) ** (1 / doublings)
                row["wall_ratio"] = (row["wall_ms"] / previous[2]) ** (
                    1 / doublings)
                ratio = "%6.2f" % row["ratio"]
            print("%7d %10.1f %s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f" % (
                size, total, ratio, median("fusion"), median("codegen"),
                median("lower"), llvm, median("wall"), median("cpu")))
            sys.stdout.flush()
            rows.append(row)
            previous = (size, total, row["wall_ms"])
    for line in targets_text(rows):
        print(line)
    if args.output_dir:
        write_results(args.output_dir, args, rows, load_before)


if __name__ == "__main__":
    main()
