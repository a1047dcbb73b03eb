#!/usr/bin/env python3
"""Fuse beside onnxruntime on the exported Hugging Face models (issue 21).

For each MODEL.onnx that export_hf.py wrote: fuse-run --check (host against
the reference runtime), the compile time with an empty cache, the run time
(fuse-run --bench N: median), the slowest kernels (--profile), the largest
difference from PyTorch eager and from onnxruntime relative to the output's
largest magnitude, and the medians over N runs of onnxruntime and OpenVINO
(forced to f32: its default on a CPU with bf16 is bf16, other math), each
with 2 threads, measured in the same sitting: --rounds rounds of Fuse, then
onnxruntime, then OpenVINO, the lowest median of each side kept (on a shared
machine, the least disturbed round). Prints a Markdown table.

    python bench/models/run_models.py --models /tmp/hf --build build [--runs 50]

Needs numpy, onnxruntime and openvino (not in the tests' venv; without
openvino its column is empty).
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnxruntime as ort

from peers import openvino_ms

NAMES = ["bert", "distilbert", "gpt2", "llama", "t5enc"]
FAMILY = ["roberta", "albert", "electra", "deberta_v2", "mpnet", "qwen2",
          "mistral", "gemma", "phi", "gpt_neo", "bloom", "opt"]


def fuse_run(build, model, inputs, *extra):
    cmd = [os.path.join(build, "bin", "fuse-run"), model, "--json"]
    for name, path in inputs.items():
        cmd.append(f"--input={name}={path}")
    proc = subprocess.run(cmd + list(extra), capture_output=True, text=True)
    lines = proc.stdout.strip().splitlines()
    summary = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else None
    return proc.returncode, summary, proc.stdout + proc.stderr


def ort_median(model, feeds, runs):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    session = ort.InferenceSession(model, options,
                                   providers=["CPUExecutionProvider"])
    for _ in range(5):
        out = session.run(None, feeds)[0]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        session.run(None, feeds)
        times.append((time.perf_counter() - start) * 1e3)
    return float(np.median(times)), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="/tmp/hf")
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--family", action="store_true",
                    help="also " + ", ".join(FAMILY) + " (export_hf.py --family)")
    args = ap.parse_args()
    wanted = [n for n in args.only.split(",") if n] or (
        NAMES + FAMILY if args.family else NAMES)
    rows = []
    work = tempfile.mkdtemp(prefix="fuse-models-")
    try:
        for name in wanted:
            model = os.path.join(args.models, name + ".onnx")
            if not os.path.exists(model):
                print(f"{name}: {model} missing (run export_hf.py)", file=sys.stderr)
                continue
            inputs = {"input_ids": os.path.join(args.models, name + ".input_ids.npy")}
            mask = os.path.join(args.models, name + ".attention_mask.npy")
            if os.path.exists(mask):
                inputs["attention_mask"] = mask
            cache = os.path.join(work, name + "-cache")
            out_dir = os.path.join(work, name + "-out")
            os.makedirs(out_dir)
            rc, check, text = fuse_run(args.build, model, inputs, "--check",
                                       f"--cache-dir={cache}", f"--output-dir={out_dir}")
            if check is None:
                print(f"{name}: fuse-run failed:\n{text}", file=sys.stderr)
                rows.append((name, "fails", None, None, None, None, None, None,
                             None))
                continue
            shutil.rmtree(cache)
            _, first, _ = fuse_run(args.build, model, inputs, f"--cache-dir={cache}")
            # Rounds of Fuse then onnxruntime, each a median of --runs runs;
            # the lowest median of each (the least disturbed round of a
            # shared machine).
            feeds = {k: np.load(v) for k, v in inputs.items()}
            fuse_medians, ort_medians, ov_medians = [], [], []
            for _ in range(args.rounds):
                _, bench, _ = fuse_run(args.build, model, inputs,
                                       f"--cache-dir={cache}", f"--bench={args.runs}")
                fuse_medians.append(bench["run_ms_median"])
                ort_ms, ort_out = ort_median(model, feeds, args.runs)
                ort_medians.append(ort_ms)
                ov_ms = openvino_ms(model, feeds, args.runs)
                if ov_ms is not None:
                    ov_medians.append(ov_ms)
            _, profile, _ = fuse_run(args.build, model, inputs, f"--cache-dir={cache}",
                                     "--profile=5")
            fuse_out = np.load(os.path.join(out_dir, "last_hidden_state.npy"))
            expected = np.load(os.path.join(args.models, name + ".expected.npy"))
            scale = float(np.abs(expected).max())
            top = sorted(profile["profile"] or [], key=lambda k: -k["ms"])[:3] \
                if profile else []
            rows.append((name, "passes" if rc == 0 else "FAILS", first["kernels"],
                         first["compile_ms"], min(fuse_medians), min(ort_medians),
                         min(ov_medians) if ov_medians else None,
                         (float(np.abs(fuse_out - expected).max()) / scale,
                          float(np.abs(fuse_out - ort_out).max()) / scale), top))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"{args.rounds} rounds of {args.runs} runs (the lowest median of each side), "
          f"onnxruntime {ort.__version__} (2 intra-op threads), "
          f"OpenVINO in f32 (2 threads)\n")
    print("| model | --check | kernels | compile ms | Fuse run ms | onnxruntime ms | "
          "OpenVINO f32 ms | ort / Fuse time | OpenVINO / Fuse time | "
          "max diff vs torch, vs ort (of max |y|) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ratios = {"ort": [], "ov": []}
    for name, status, kernels, compile_ms, run_ms, ort_ms, ov_ms, diff, _ in rows:
        if kernels is None:
            print(f"| {name} | {status} | | | | | | | | |")
            continue
        ratios["ort"].append(ort_ms / run_ms)
        ov_cells = ("", "")
        if ov_ms is not None:
            ratios["ov"].append(ov_ms / run_ms)
            ov_cells = (f"{ov_ms:.2f}", f"{ov_ms / run_ms:.2f}")
        print(f"| {name} | {status} | {kernels} | {compile_ms:.0f} | {run_ms:.2f} | "
              f"{ort_ms:.2f} | {ov_cells[0]} | {ort_ms / run_ms:.2f} | {ov_cells[1]} | "
              f"{diff[0]:.1e}, {diff[1]:.1e} |")
    for peer, values in ratios.items():
        if values:
            print(f"\n{peer}: geometric mean of peer / Fuse time "
                  f"{float(np.exp(np.mean(np.log(values)))):.2f} over {len(values)} "
                  f"models (above 1: Fuse is faster)")
    print()
    for name, *_, top in rows:
        if top:
            print(f"{name}: slowest kernels " + ", ".join(
                f"{k['entry']} {k['ms']:.2f} ms" for k in top))
    return 0 if all(r[1] == "passes" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
