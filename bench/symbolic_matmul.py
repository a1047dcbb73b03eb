#!/usr/bin/env python3
"""Runtime-M matmul kernels against the static kernels of the same shapes (issue 22).

    symbolic_matmul.py --build BUILD [--shapes 128x256x256 ...] [--rounds 7]
                       [--bench 50] [--threads N] [--epilogue relu|gelu]

For each shape MxKxN, the same linear layer, epilogue(x @ W + b), is written
twice: with x a tensor<1xMxK> (every dim static: the static kernel) and a
tensor<?{batch}x?{sequence}xK> run at batch=1, sequence=M (one bundle for
every M: the matmul an iteration per row, KernelAbi.h "Runtime dims").
Each is compiled once into its own cache, then the two are timed in turn,
--rounds times (`fuse-run --bench N`: the median of N runs after a warm-up,
the weight packed once per binding), so the machine's noise falls on both
alike; the table gives the medians over the rounds and their ratio
(runtime / static; the issue's bar is 1.10). Standard library only;
nothing is asserted.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

EPILOGUES = {
    "relu": """  %z = fuse.constant dense<0.0> : tensor<f32>
  %zb = fuse.broadcast %z, dims = [] : tensor<f32> -> {C}
  %y = fuse.max %h, %zb : {C}
""",
    "gelu": """  %half = fuse.constant dense<0.5> : tensor<f32>
  %hb = fuse.broadcast %half, dims = [] : tensor<f32> -> {C}
  %r = fuse.constant dense<0.707106769> : tensor<f32>
  %rb = fuse.broadcast %r, dims = [] : tensor<f32> -> {C}
  %one = fuse.constant dense<1.0> : tensor<f32>
  %ob = fuse.broadcast %one, dims = [] : tensor<f32> -> {C}
  %s = fuse.mul %h, %rb : {C}
  %e = fuse.erf %s : {C}
  %e1 = fuse.add %e, %ob : {C}
  %hh = fuse.mul %h, %hb : {C}
  %y = fuse.mul %hh, %e1 : {C}
""",
}


def model(m, k, n, symbolic, epilogue):
    if symbolic:
        dims = ", #fuse.dims<batch, sequence>"
        a, c = f"tensor<?x?x{k}xf32{dims}>", f"tensor<?x?x{n}xf32{dims}>"
    else:
        a, c = f"tensor<1x{m}x{k}xf32>", f"tensor<1x{m}x{n}xf32>"
    return (
        f"func.func @linear(%x: {a} {{fuse.name = \"x\"}}, %w: tensor<{k}x{n}xf32>, %b: tensor<{n}xf32>)\n"
        f"    -> {c} {{\n"
        f"  %m = fuse.matmul %x, %w : {a}, tensor<{k}x{n}xf32> -> {c}\n"
        f"  %bb = fuse.broadcast %b, dims = [2] : tensor<{n}xf32> -> {c}\n"
        f"  %h = fuse.add %m, %bb : {c}\n" + EPILOGUES[epilogue].replace("{C}", c) + f"  return %y : {c}\n}}\n"
    )


def run(fuse_run, path, cache, bench, threads, m, symbolic):
    command = [fuse_run, path, "--json", "--cache-dir", cache, f"--bench={bench}"]
    if symbolic:
        command += ["--dim", "batch=1", "--dim", f"sequence={m}"]
    if threads:
        command.append(f"--threads={threads}")
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    record = json.loads(out.strip().splitlines()[-1])
    if symbolic and not record.get("symbolic_bundle"):
        sys.exit(f"{path}: the model was not compiled symbolic")
    return record["run_ms_median"], record["compiled"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--shapes", nargs="+", default=["128x256x256", "128x256x1024", "512x768x3072", "77x768x3072", "77x256x1024"])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--bench", type=int, default=50)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--epilogue", choices=sorted(EPILOGUES), default="relu")
    args = parser.parse_args()
    fuse_run = os.path.join(args.build, "bin", "fuse-run")
    print(f"| MxKxN | static ms | runtime-M ms | ratio | {args.epilogue}(x@W+b), medians of {args.rounds} alternating rounds of --bench {args.bench}")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for shape in args.shapes:
            m, k, n = (int(v) for v in shape.split("x"))
            times = {False: [], True: []}
            paths = {}
            for symbolic in (False, True):
                paths[symbolic] = os.path.join(work, f"{shape}-{'sym' if symbolic else 'static'}.mlir")
                with open(paths[symbolic], "w") as f:
                    f.write(model(m, k, n, symbolic, args.epilogue))
            cache = os.path.join(work, f"cache-{shape}")
            for r in range(args.rounds + 1):
                for symbolic in ((False, True) if r % 2 == 0 else (True, False)):
                    ms, compiled = run(fuse_run, paths[symbolic], cache, args.bench, args.threads, m, symbolic)
                    if r > 0:  # the first round compiles
                        times[symbolic].append(ms)
                    elif compiled == 0:
                        sys.exit(f"{paths[symbolic]}: expected a compile in the first round")
            a, b = statistics.median(times[False]), statistics.median(times[True])
            print(f"| {shape} | {a:.4f} | {b:.4f} | {b / a:.3f} |", flush=True)


if __name__ == "__main__":
    main()
