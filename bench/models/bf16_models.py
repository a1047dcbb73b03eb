#!/usr/bin/env python3
"""Fuse with --matmul-precision=bf16 beside OpenVINO's default on this CPU
(bf16 where the CPU has AVX-512 BF16 or AMX; INFERENCE_PRECISION_HINT not
forced) and both in f32, on exported models (export_hf.py), issue 18.

For each model: the run time (fuse-run --bench N, median; OpenVINO median of
N inferences on 2 threads), --rounds rounds alternating Fuse f32, Fuse bf16,
OpenVINO default, OpenVINO f32, the lowest median of each kept; and the
accuracy of each against the f32 reference (Fuse's f32 output, itself
checked against the reference runtime): the largest absolute difference
relative to the output's largest magnitude. Prints a Markdown table.

    python bench/models/bf16_models.py --models /tmp/hf2 --build build --only bert
"""
import argparse
import os
import shutil
import tempfile
import time

import numpy as np

from run_models import fuse_run


def openvino(model, feeds, runs, precision):
    import openvino as ov
    config = {"INFERENCE_NUM_THREADS": 2}
    if precision:
        config["INFERENCE_PRECISION_HINT"] = precision
    compiled = ov.Core().compile_model(model, "CPU", config)
    request = compiled.create_infer_request()
    out = request.infer(feeds)
    out = np.array(out[compiled.outputs[0]])
    times = []
    for _ in range(runs):
        begin = time.perf_counter()
        request.infer(feeds)
        times.append((time.perf_counter() - begin) * 1e3)
    used = compiled.get_property("INFERENCE_PRECISION_HINT")
    return float(np.median(times)), out, str(used)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="/tmp/hf2")
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="bert")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="fuse-bf16-")
    print("| model | Fuse f32 ms | Fuse bf16 ms | OpenVINO default ms (precision) "
          "| OpenVINO f32 ms | Fuse bf16 err | OpenVINO default err | OpenVINO f32 err |")
    print("|---|---|---|---|---|---|---|---|")
    try:
        for name in args.only.split(","):
            model = os.path.join(args.models, name + ".onnx")
            inputs = {"input_ids": os.path.join(args.models, name + ".input_ids.npy")}
            mask = os.path.join(args.models, name + ".attention_mask.npy")
            if os.path.exists(mask):
                inputs["attention_mask"] = mask
            feeds = {k: np.load(v) for k, v in inputs.items()}
            outs, caches = {}, {}
            for precision in ("f32", "bf16"):
                caches[precision] = os.path.join(work, f"{name}-{precision}-cache")
                out_dir = os.path.join(work, f"{name}-{precision}-out")
                os.makedirs(out_dir)
                rc, summary, text = fuse_run(
                    args.build, model, inputs, "--check",
                    f"--matmul-precision={precision}",
                    f"--cache-dir={caches[precision]}", f"--output-dir={out_dir}")
                if summary is None:
                    raise SystemExit(f"{name} {precision}: fuse-run failed:\n{text}")
                print(f"<!-- {name} {precision}: --check rc {rc}, "
                      f"bf16 kernels {summary.get('bf16_kernels')} -->")
                first = sorted(f for f in os.listdir(out_dir) if f.endswith(".npy"))[0]
                outs[precision] = np.load(os.path.join(out_dir, first))
            reference = outs["f32"]
            scale = float(np.abs(reference).max())
            err = lambda out: float(np.abs(out.reshape(reference.shape) - reference).max()) / scale
            medians = {k: [] for k in ("f32", "bf16", "ov", "ov32")}
            ov_out = ov32_out = None
            used = ""
            for _ in range(args.rounds):
                for precision in ("f32", "bf16"):
                    _, bench, _ = fuse_run(args.build, model, inputs,
                                           f"--matmul-precision={precision}",
                                           f"--cache-dir={caches[precision]}",
                                           f"--bench={args.runs}")
                    medians[precision].append(bench["run_ms_median"])
                ms, ov_out, used = openvino(model, feeds, args.runs, None)
                medians["ov"].append(ms)
                ms, ov32_out, _ = openvino(model, feeds, args.runs, "f32")
                medians["ov32"].append(ms)
            print(f"| {name} | {min(medians['f32']):.3f} | {min(medians['bf16']):.3f} "
                  f"| {min(medians['ov']):.3f} ({used}) | {min(medians['ov32']):.3f} "
                  f"| {err(outs['bf16']):.2e} | {err(ov_out):.2e} | {err(ov32_out):.2e} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
