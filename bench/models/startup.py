#!/usr/bin/env python3
"""Start-up of the exported Hugging Face models: Fuse cold and warm beside onnxruntime and OpenVINO (issue 18).

For each model (export_hf.py's MODEL.onnx, and MODEL_L<N>.onnx for --layers N other than 2), in --passes
alternating passes, each measurement in a new process:

- Fuse cold: `fuse-run --json` with an empty bundle cache; warm: the same again, the bundle now in the cache.
  Reported: fuse-run's own `startup_ms.total` (from reading the model to its first result, in the process: ONNX
  import, the bundle compiled or read from the cache, loading it, the first run) and the process's wall time
  (which adds the process's start: loading the shared libraries, and its exit).
- onnxruntime: InferenceSession creation and its first run (CPU, 2 threads), timed inside a new Python process
  after `import onnxruntime`.
- OpenVINO: read_model + compile_model (CPU, f32, 2 threads) and the first inference; cold without a model cache,
  warm with a CACHE_DIR it filled in an earlier process.

Fixed part and part per distinct kernel: the fixed part is Fuse's cold start of a model of one kernel (one Relu of
the same tool path, in a new process each pass); the part per distinct kernel is (cold - fixed) / the model's
distinct kernels (`fuse-run --print-plan`: "N distinct"; identical layers share one). Medians over the passes.

    /work/venv-bench/bin/python bench/models/startup.py --models /tmp/hf --build build \
        [--layers 2,8] [--passes 3] [--only llama] [--markdown OUT.md] [--json OUT.json]

Needs numpy and onnx; onnxruntime and openvino for their columns (not in the tests' venv).
"""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

NAMES = ["bert", "distilbert", "gpt2", "llama", "t5enc"]

# Timed inside a new process, after the import: what a user's program pays once it runs.
ORT_CHILD = r"""
import json, sys, time
import numpy as np
import onnxruntime as ort
model, feeds = sys.argv[1], json.loads(sys.argv[2])
feeds = {k: np.load(v) for k, v in feeds.items()}
start = time.perf_counter()
options = ort.SessionOptions()
options.intra_op_num_threads = 2
session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
created = time.perf_counter()
session.run(None, feeds)
done = time.perf_counter()
print(json.dumps({"create_ms": (created - start) * 1e3, "first_ms": (done - start) * 1e3}))
"""

OV_CHILD = r"""
import json, sys, time
import numpy as np
import openvino as ov
model, feeds, cache = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
feeds = {k: np.load(v) for k, v in feeds.items()}
config = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": 2}
if cache:
    config["CACHE_DIR"] = cache
start = time.perf_counter()
core = ov.Core()
compiled = core.compile_model(core.read_model(model), "CPU", config)
created = time.perf_counter()
compiled.create_infer_request().infer(feeds)
done = time.perf_counter()
print(json.dumps({"create_ms": (created - start) * 1e3, "first_ms": (done - start) * 1e3}))
"""


def model_path(folder, name, layers):
    return os.path.join(folder, name + ("" if layers == 2 else f"_L{layers}") + ".onnx")


def inputs_of(model):
    stem = model[:-len(".onnx")]
    found = {}
    for name in ["input_ids", "attention_mask"]:
        path = f"{stem}.{name}.npy"
        if os.path.exists(path):
            found[name] = path
    return found


def fuse_run(build, model, inputs, cache, *extra):
    """(fuse-run's JSON summary, the process's wall ms, stdout)."""
    cmd = [os.path.join(build, "bin", "fuse-run"), model, "--json", f"--cache-dir={cache}"]
    cmd += [f"--input={n}={p}" for n, p in inputs.items()] + list(extra)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = (time.perf_counter() - start) * 1e3
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines or not lines[-1].startswith("{"):
        raise RuntimeError(f"fuse-run {model} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(lines[-1]), wall, proc.stdout


def fuse_start(build, model, inputs):
    """One cold and one warm start of `model`, each a new process, in a cache of their own."""
    with tempfile.TemporaryDirectory(prefix="fuse-startup-") as cache:
        cold, cold_wall, _ = fuse_run(build, model, inputs, cache)
        warm, warm_wall, _ = fuse_run(build, model, inputs, cache)
    assert cold["cache_hits"] == 0 and warm["cache_hits"] == 1, (cold["cache_hits"], warm["cache_hits"])
    return {"cold_ms": cold["startup_ms"]["total"], "cold_wall_ms": cold_wall,
            "compile_ms": cold["compile_ms"], "phases": cold["compile_phases"],
            "cold_stages": cold["startup_ms"],
            "warm_ms": warm["startup_ms"]["total"], "warm_wall_ms": warm_wall,
            "warm_stages": warm["startup_ms"], "kernels": cold["kernels"]}


def distinct_kernels(build, model, inputs):
    with tempfile.TemporaryDirectory(prefix="fuse-startup-") as cache:
        _, _, out = fuse_run(build, model, inputs, cache, "--print-plan")
    match = re.search(r"(\d+) distinct", out)
    return int(match.group(1)) if match else None


def child(code, *args):
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    if proc.returncode != 0:
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def ort_start(model, inputs):
    return child(ORT_CHILD, model, json.dumps(inputs))


def ov_start(model, inputs):
    with tempfile.TemporaryDirectory(prefix="ov-startup-") as cache:
        cold = child(OV_CHILD, model, json.dumps(inputs), "")
        child(OV_CHILD, model, json.dumps(inputs), cache)  # fills the cache
        warm = child(OV_CHILD, model, json.dumps(inputs), cache)
    if not cold or not warm:
        return None
    return {"cold": cold, "warm": warm}


def one_kernel_model(folder):
    """A model of one Relu (one kernel): Fuse's fixed start-up cost."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper
    path = os.path.join(folder, "relu.onnx")
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "relu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [128, 256])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [128, 256])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    np.save(os.path.join(folder, "relu.x.npy"), np.ones((128, 256), np.float32))
    return path, {"x": os.path.join(folder, "relu.x.npy")}


def med(values):
    values = [v for v in values if v is not None]
    return round(statistics.median(values), 1) if values else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="/tmp/hf", help="export_hf.py's output folder")
    ap.add_argument("--build", default="build")
    ap.add_argument("--layers", default="2,8")
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--markdown")
    ap.add_argument("--json")
    args = ap.parse_args()
    names = [n for n in args.only.split(",") if n] or NAMES
    layers = [int(n) for n in args.layers.split(",")]
    cases = [(n, l, model_path(args.models, n, l)) for l in layers for n in names]
    missing = [p for _, _, p in cases if not os.path.exists(p)]
    if missing:
        sys.exit("missing models (bench/models/export_hf.py --layers N): " + ", ".join(missing))

    samples = {(n, l): {"fuse": [], "ort": [], "ov": []} for n, l, _ in cases}
    fixed = []
    with tempfile.TemporaryDirectory(prefix="fuse-startup-") as scratch:
        relu, relu_inputs = one_kernel_model(scratch)
        distinct = {(n, l): distinct_kernels(args.build, p, inputs_of(p)) for n, l, p in cases}
        for p in range(args.passes):
            fixed.append(fuse_start(args.build, relu, relu_inputs))
            for name, depth, path in cases:
                inputs = inputs_of(path)
                s = samples[(name, depth)]
                s["fuse"].append(fuse_start(args.build, path, inputs))
                s["ort"].append(ort_start(path, inputs))
                s["ov"].append(ov_start(path, inputs))
                f = s["fuse"][-1]
                print(f"pass {p + 1} {name} L{depth}: fuse cold {f['cold_ms']:.0f} warm {f['warm_ms']:.0f} ms"
                      f" (wall {f['cold_wall_ms']:.0f}/{f['warm_wall_ms']:.0f}),"
                      f" ort {s['ort'][-1] and round(s['ort'][-1]['first_ms'])},"
                      f" ov {s['ov'][-1] and round(s['ov'][-1]['cold']['first_ms'])} ms", file=sys.stderr)

    fixed_cold = med([f["cold_ms"] for f in fixed])
    fixed_warm = med([f["warm_ms"] for f in fixed])
    rows = []
    for name, depth, _ in cases:
        s = samples[(name, depth)]
        fuse = s["fuse"]
        row = {
            "model": name, "layers": depth, "kernels": fuse[0]["kernels"], "distinct": distinct[(name, depth)],
            "fuse_cold_ms": med([f["cold_ms"] for f in fuse]),
            "fuse_cold_wall_ms": med([f["cold_wall_ms"] for f in fuse]),
            "fuse_compile_ms": med([f["compile_ms"] for f in fuse]),
            "fuse_warm_ms": med([f["warm_ms"] for f in fuse]),
            "fuse_warm_wall_ms": med([f["warm_wall_ms"] for f in fuse]),
            "fuse_warm_import_ms": med([f["warm_stages"]["import"] for f in fuse]),
            "phases_ms": {k: med([f["phases"][k] for f in fuse]) for k in fuse[0]["phases"]},
            "ort_create_ms": med([o and o["create_ms"] for o in s["ort"]]),
            "ort_first_ms": med([o and o["first_ms"] for o in s["ort"]]),
            "ov_cold_ms": med([o and o["cold"]["first_ms"] for o in s["ov"]]),
            "ov_compile_ms": med([o and o["cold"]["create_ms"] for o in s["ov"]]),
            "ov_warm_ms": med([o and o["warm"]["first_ms"] for o in s["ov"]]),
        }
        if row["distinct"] and row["fuse_cold_ms"] is not None:
            row["per_kernel_ms"] = round((row["fuse_cold_ms"] - fixed_cold) / row["distinct"], 1)
        rows.append(row)
    by = {(r["model"], r["layers"]): r for r in rows}
    for r in rows:
        base = by.get((r["model"], layers[0]))
        r["cold_vs_first"] = round(r["fuse_cold_ms"] / base["fuse_cold_ms"], 2) if base else None

    lines = [
        f"Start-up, new process each: medians of {args.passes} alternating passes "
        f"({platform.processor() or platform.machine()}, {os.cpu_count()} CPUs). Fuse: from reading the model to "
        "its first result in the process (fuse-run's startup_ms.total; the process's wall time in brackets). "
        "onnxruntime: InferenceSession creation (+ first run). OpenVINO f32: read_model + compile_model "
        "(+ first inference); warm: with a CACHE_DIR filled before. "
        f"Fuse's fixed part (a one-kernel model): cold {fixed_cold} ms, warm {fixed_warm} ms; per distinct "
        "kernel: (cold - fixed) / distinct kernels.",
        "",
        "| model | layers | kernels (distinct) | Fuse cold | of it compiling | per distinct kernel | cold / 2 layers "
        "| Fuse warm (of it ONNX import) | onnxruntime create (+ run) | OpenVINO compile (+ run) | OpenVINO warm |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['model']} | {r['layers']} | {r['kernels']} ({r['distinct']}) "
            f"| {r['fuse_cold_ms']} ms ({r['fuse_cold_wall_ms']}) | {r['fuse_compile_ms']} ms "
            f"| {r.get('per_kernel_ms')} ms | {r['cold_vs_first']}x "
            f"| {r['fuse_warm_ms']} ms ({r['fuse_warm_wall_ms']}; {r['fuse_warm_import_ms']}) "
            f"| {r['ort_create_ms']} ({r['ort_first_ms']}) ms | {r['ov_compile_ms']} ({r['ov_cold_ms']}) ms "
            f"| {r['ov_warm_ms']} ms |")
    lines += ["", "Fuse's compile phases (ms, medians):", "",
              "| model | layers | " + " | ".join(rows[0]["phases_ms"]) + " |",
              "|---|---|" + "---|" * len(rows[0]["phases_ms"])]
    for r in rows:
        lines.append(f"| {r['model']} | {r['layers']} | " +
                     " | ".join(str(v) for v in r["phases_ms"].values()) + " |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"fixed_cold_ms": fixed_cold, "fixed_warm_ms": fixed_warm, "rows": rows,
                       "passes": args.passes}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
