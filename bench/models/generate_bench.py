#!/usr/bin/env python3
"""Time per generated token: fuse-run --generate beside onnxruntime (issue 22).

    generate_bench.py --build BUILD [--models /tmp/hf/gpt2_kv.onnx ...]
                      [--tokens 32] [--rounds 3]

For each decoder written by export_decoder.py (MODEL_kv.onnx with
MODEL_kv.prompt.npy and PyTorch's MODEL_kv.generated.npy), in one sitting,
rounds alternating:
  - Fuse cold: `fuse-run --generate N` over an empty bundle cache (what a
    first run costs, every step's compile included);
  - Fuse warm: the same over the cache the cold run filled;
  - onnxruntime: the same greedy loop in Python over an InferenceSession of
    the same file (2 intra-op threads, the session's creation not counted).
Prints the median time per token after the prompt, the steps that compiled
and whether each generation equals PyTorch's. Needs onnxruntime (the bench
venv, not the tests'). Nothing is asserted.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np


def fuse_generate(build, model, prompt, tokens, cache):
    command = [os.path.join(build, "bin", "fuse-run"), model,
               "--generate", str(tokens), "--input", "input_ids=" + prompt,
               "--cache-dir", cache, "--json"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)}: exit {done.returncode}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def ort_generate(model, prompt, tokens):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    session = ort.InferenceSession(model, options,
                                   providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    batch = prompt.shape[0]
    past = {}
    for i in session.get_inputs():
        if i.name.startswith("past"):
            shape = [batch if d == i.shape[0] else d for d in i.shape]
            shape = [0 if isinstance(d, str) else d for d in shape]
            shape[0] = batch
            past[i.name] = np.zeros(shape, np.float32)
    outputs = [o.name for o in session.get_outputs()]
    ids, total, out, times = prompt, prompt.shape[1], [], []
    for step in range(tokens):
        feed = {"input_ids": ids, **past}
        if "attention_mask" in names:
            feed["attention_mask"] = np.ones((batch, total), np.int64)
        start = time.perf_counter()
        results = session.run(None, feed)
        chosen = results[0][:, -1, :].argmax(axis=-1)
        times.append((time.perf_counter() - start) * 1000)
        out.append(chosen)
        past = {name.replace("present", "past_key_values"): value
                for name, value in zip(outputs[1:], results[1:])}
        ids, total = chosen.reshape(batch, 1).astype(np.int64), total + 1
    return np.stack(out, axis=1), statistics.median(times[1:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--models", nargs="+",
                    default=["/tmp/hf/gpt2_kv.onnx", "/tmp/hf/llama_kv.onnx"])
    ap.add_argument("--tokens", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    print("| model | Fuse cold ms/token | steps compiled | cold: kernels "
          "compiled / taken | Fuse warm ms/token | onnxruntime ms/token "
          "| ort / Fuse warm | tokens equal PyTorch |")
    print("|---|---|---|---|---|---|---|---|")
    for model in args.models:
        stem = model[:-len(".onnx")]
        prompt_path = stem + ".prompt.npy"
        prompt = np.load(prompt_path)
        expected = np.load(stem + ".generated.npy")[:, :args.tokens]
        cold, warm, peer, equal, compiled = [], [], [], True, 0
        kernels = (0, 0)
        for _ in range(args.rounds):
            with tempfile.TemporaryDirectory() as cache:
                first = fuse_generate(args.build, model, prompt_path,
                                      args.tokens, cache)
                second = fuse_generate(args.build, model, prompt_path,
                                       args.tokens, cache)
            cold.append(first["ms_per_token"])
            warm.append(second["ms_per_token"])
            compiled = first["steps_that_compiled"]
            kernels = (sum(s["kernels_compiled"] for s in first["steps"]),
                       sum(s["kernels_reused"] for s in first["steps"]))
            # PyTorch's tokens (as many as export_decoder.py generated)
            # against the first as many of each run's.
            n = expected.shape[1]
            for run in (first, second):
                equal &= np.array_equal(np.array(run["generated"])[:, :n],
                                        expected)
            tokens, ms = ort_generate(model, prompt, args.tokens)
            peer.append(ms)
            equal &= np.array_equal(np.asarray(tokens)[:, :n], expected)
        c, w, p = (statistics.median(x) for x in (cold, warm, peer))
        shorter = (f" (the first {expected.shape[1]})"
                   if expected.shape[1] < args.tokens else "")
        print(f"| {os.path.basename(model)} | {c:.2f} | {compiled} of "
              f"{args.tokens} | {kernels[0]} / {kernels[1]} | {w:.2f} | "
              f"{p:.3f} | {p / w:.3f} | "
              f"{('yes' if equal else 'NO') + shorter} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
