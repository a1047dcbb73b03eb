#!/usr/bin/env python3
"""A model at several sequence lengths, each in a new process: how much each new length compiles (issues 22, 18).

For each dynamic-axes export (export_hf.py --dynamic: MODEL_dynamic.onnx with inputs [batch, sequence]), the
lengths run one after another with `fuse-run --json --dim batch=1 --dim sequence=L` (random token ids in range),
in --passes alternating passes of two settings:

- shared: every length over one cache directory, so a length's compilation takes the machine code of the kernels
  an earlier length compiled (the kernel files beside the bundles) and compiles only the others;
- alone: every length over an empty cache of its own (what each length cost before kernels were kept).

Reported per model and length: the kernels compiled to machine code and taken, and fuse-run's compile time;
medians over the passes, and the ratio alone / shared of the sum over the lengths.

    /work/venv-bench/bin/python bench/models/sizes.py --models /tmp/hf --build build \
        [--lengths 1,64,77,128,384] [--passes 3] [--only bert]

Only the Python standard library and numpy (for the inputs) are needed.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

NAMES = ["bert", "distilbert", "gpt2", "llama", "t5enc"]


def run(build, model, length, cache, folder):
    ids = os.path.join(folder, f"ids_{length}.npy")
    mask = os.path.join(folder, f"mask_{length}.npy")
    rng = np.random.default_rng(length)
    np.save(ids, rng.integers(0, 1000, size=(1, length), dtype=np.int64))
    np.save(mask, np.ones((1, length), dtype=np.int64))
    cmd = [os.path.join(build, "bin", "fuse-run"), model, "--json", f"--cache-dir={cache}",
           f"--input=input_ids={ids}", f"--input=attention_mask={mask}"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{out.stderr}")
    line = [l for l in out.stdout.splitlines() if l.startswith("{")][-1]
    report = json.loads(line)
    return report["kernels_compiled"], report["kernels_reused"], report["compile_ms"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--lengths", default="1,64,77,128,384")
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--only", action="append")
    args = parser.parse_args()
    lengths = [int(x) for x in args.lengths.split(",")]
    names = args.only or NAMES
    print("| model | length | shared: compiled / taken | shared compile ms | alone: compiled | alone compile ms |")
    print("|---|---|---|---|---|---|")
    for name in names:
        model = os.path.join(args.models, f"{name}_dynamic.onnx")
        if not os.path.exists(model):
            print(f"{name}: no {model}", file=sys.stderr)
            continue
        shared = {l: [] for l in lengths}
        alone = {l: [] for l in lengths}
        for _ in range(args.passes):
            with tempfile.TemporaryDirectory(prefix="fuse-sizes-") as folder:
                cache = os.path.join(folder, "shared")
                for length in lengths:
                    shared[length].append(run(args.build, model, length, cache, folder))
                for length in lengths:
                    own = os.path.join(folder, f"alone_{length}")
                    alone[length].append(run(args.build, model, length, own, folder))
        total_shared = total_alone = 0.0
        for length in lengths:
            s_compiled, s_taken, _ = shared[length][-1]
            a_compiled, _, _ = alone[length][-1]
            s_ms = statistics.median(r[2] for r in shared[length])
            a_ms = statistics.median(r[2] for r in alone[length])
            total_shared += s_ms
            total_alone += a_ms
            print(f"| {name} | {length} | {s_compiled} / {s_taken} | {s_ms:.0f} | {a_compiled} | {a_ms:.0f} |")
        print(f"| {name} | all | | {total_shared:.0f} | | {total_alone:.0f} (alone / shared {total_alone / total_shared:.2f}) |")


if __name__ == "__main__":
    main()
