#!/usr/bin/env python3
"""The dynamic-axes exports at several sequence lengths from one bundle (issue 22).

For each model (export_hf.py's configs, random weights from seed 0, exported
with batch and sequence as dynamic axes), PyTorch eager runs at each length
on random token ids with the last tokens of a longer sentence masked, and
`fuse-run` runs the same ONNX file at every length with one private cache:
the first length compiles, each later one should compile nothing
("compiled": 0) and read the bundle under the symbolic graph
("symbolic_bundle": true). Each output is compared with PyTorch's, and the
run time of each length (fuse-run --bench, median) beside onnxruntime's on
the same file.

    python bench/models/dynamic_lengths.py --build build --out /tmp/hfdyn \\
        [--only bert,gpt2] [--lengths 1,64,77,128,384] [--bench 20]

Needs torch, transformers and onnxruntime (not in the tests' venv).
Exit status 1 when an output differs from PyTorch's by more than --rtol of
its largest magnitude, a later length compiled, or a run failed.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_hf  # noqa: E402


def inputs_at(length, seed):
    """Token ids and a mask at `length`: past 8 tokens, the last quarter masked."""
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, export_hf.VOCAB, size=(1, length), dtype=np.int64)
    mask = np.ones((1, length), np.int64)
    if length > 8:
        mask[0, length - length // 4:] = 0
    return ids, mask


def ort_ms(session, feeds, runs):
    session.run(None, feeds)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        session.run(None, feeds)
        times.append((time.perf_counter() - start) * 1e3)
    return float(np.median(times))


def check_model(name, args, work):
    make, with_mask = export_hf.configs()[name]
    export_hf.export(name, make, with_mask, args.out, True, False)
    path = os.path.join(args.out, name + "_dynamic.onnx")
    torch.manual_seed(0)
    model = export_hf.LastHidden(make().eval(), with_mask)
    cache = os.path.join(work, name + "-cache")
    session = None
    if args.bench:
        import onnxruntime as ort
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    failures = 0
    for index, length in enumerate(args.lengths):
        ids, mask = inputs_at(length, 100 + length)
        with torch.no_grad():
            call = (torch.from_numpy(ids), torch.from_numpy(mask))
            expected = model(*call[:2 if with_mask else 1]).numpy()
        files = {"input_ids": ids, "attention_mask": mask}
        command = [os.path.join(args.build, "bin", "fuse-run"), path, "--json",
                   "--cache-dir", cache, "--output-dir", work]
        feeds = {}
        for input_name, value in list(files.items())[:2 if with_mask else 1]:
            file = os.path.join(work, f"{name}.{input_name}.{length}.npy")
            np.save(file, value)
            command += ["--input", f"{input_name}={file}"]
            feeds[input_name] = value
        if args.bench:
            command += ["--bench", str(args.bench)]
        run = subprocess.run(command, capture_output=True, text=True)
        if run.returncode != 0:
            print(f"{name} @{length}: fuse-run failed: {run.stderr.strip()[-400:]}")
            failures += 1
            continue
        summary = json.loads(run.stdout.strip().splitlines()[-1])
        got = np.load(os.path.join(work, "last_hidden_state.npy"))
        scale = float(np.abs(expected).max())
        error = float(np.abs(got - expected).max()) / scale
        compiled = summary["compiled"]
        bad = error > args.rtol or (index > 0 and compiled != 0)
        failures += bad
        line = (f"{name:10s} @{length:4d}: compiled {compiled:3d}, symbolic "
                f"{summary.get('symbolic_bundle')}, max error / scale "
                f"{error:.2e}")
        if args.bench:
            fuse = summary["run_ms_median"]
            theirs = ort_ms(session, feeds, args.bench)
            line += (f", fuse {fuse:.2f} ms, onnxruntime {theirs:.2f} ms "
                     f"({theirs / fuse:.2f}x)")
        print(line + ("  <-- FAIL" if bad else ""), flush=True)
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="/tmp/hfdyn")
    ap.add_argument("--only", default=",".join(export_hf.MAIN))
    ap.add_argument("--lengths", default="1,64,77,128,384")
    ap.add_argument("--bench", type=int, default=0,
                    help="timed runs per length, fuse-run and onnxruntime")
    ap.add_argument("--rtol", type=float, default=1e-5,
                    help="largest error allowed, relative to the output's "
                         "largest magnitude")
    args = ap.parse_args()
    args.lengths = [int(n) for n in args.lengths.split(",")]
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="fuse-dynamic-")
    failures = 0
    try:
        for name in args.only.split(","):
            failures += check_model(name, args, work)
    finally:
        shutil.rmtree(work)
    print("all lengths from one bundle, matching PyTorch" if not failures
          else f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
