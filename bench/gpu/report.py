#!/usr/bin/env python3
"""The GPU check's table, from what bench/gpu/run.sh wrote in RESULTS_DIR:
fuse-gpu.jsonl (fuse-gpu-bench), torch-cuda.json and torch.compile-cuda.json
(peers.py). Prints Markdown and writes RESULTS_DIR/table.md. Ratios are the
peer's median time over Fuse's (above 1: Fuse is faster)."""

import json
import os
import sys


def load_jsonl(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip().startswith("{")]


def load_peer(path):
    if not os.path.exists(path):
        return {"status": "not run"}
    with open(path) as f:
        text = f.read().strip()
    try:
        return json.loads(text.splitlines()[-1])
    except (ValueError, IndexError):
        return {"status": "failed: " + (text.splitlines() or ["no output"])[-1][:200]}


def main():
    results = sys.argv[1]
    records = load_jsonl(os.path.join(results, "fuse-gpu.jsonl"))
    workloads = {r["name"]: r for r in load_jsonl(os.path.join(results, "workloads.jsonl"))}
    peers = {name: load_peer(os.path.join(results, f"{name}.json")) for name in ("torch-cuda", "torch.compile-cuda")}
    device = next((r for r in records if r["record"] == "device"), {})
    copy = next((r for r in records if r["record"] == "copy"), {})
    checks = {r["name"]: r["status"] for r in records if r["record"] == "check"}
    lines = [
        "# Fuse GPU check",
        "",
        f"- device: {device.get('name', 'none')} ({device.get('target', '?')}, "
        f"{device.get('multiprocessors', '?')} SMs), driver {device.get('driver', '?')}",
        f"- device-to-device copy: {copy.get('gbps', 0):.0f} GB/s (read + write); every % is of it",
        "- Fuse: kernels timed with CUDA events, inputs rotated through >= 512 MiB of copies; "
        "PyTorch: CUDA events around each call, inputs rotated the same way",
    ]
    if device.get("dry_run"):
        lines.append("- DRY RUN against the fake driver: no kernel ran, no figure means anything")
    for name, peer in peers.items():
        if "results" not in peer:
            lines.append(f"- {name}: {peer.get('status', 'failed')}")
    # Issue 22: a bundle with symbolic dims, compiled once, checked at two
    # bindings of its dims.
    for r in records:
        if r["record"] == "check" and r.get("symbolic_bundle"):
            lines.append(f"- symbolic bundle {r['name']}: {r['status'][:80]}")
    lines += ["", "| workload | kernels | Fuse ms | GB/s | % of copy | check | PyTorch eager | torch.compile |",
              "|---|---|---|---|---|---|---|---|"]
    for r in records:
        if r["record"] != "time":
            continue
        name = r["name"]
        title = workloads.get(name, {}).get("title", name)
        if r["status"] != "ok":
            lines.append(f"| {title} | | error: {r.get('reason', '')[:120]} | | | {checks.get(name, '')} | | |")
            continue
        cells = [title, str(r["kernels"]), f"{r['run_ms_median']:.4g}", f"{r['gbps']:.0f}",
                 f"{r['pct_copy']:.0f}%", checks.get(name, "not checked")[:60]]
        for peer in peers.values():
            value = peer.get("results", {}).get(name)
            if not value or "run_ms_median" not in value:
                cells.append((value or {}).get("error", "not run")[:60])
            else:
                ratio = value["run_ms_median"] / r["run_ms_median"] if r["run_ms_median"] else 0
                cells.append(f"{value['run_ms_median']:.4g} ms ({ratio:.2f}x)")
        lines.append("| " + " | ".join(cells) + " |")
    for name, status in workloads.items():
        if status.get("status") != "ok":
            lines.append(f"| {status.get('title', name)} | not supported on the GPU yet: "
                         f"{status.get('reason', '')[:120]} | | | | | | |")
    # The exported models (fuse-gpu-bench --time-models, torch_models.py).
    timed_models = [r for r in records if r["record"] == "check" and "run_ms_median" in r]
    if timed_models:
        torch_models = load_peer(os.path.join(results, "torch-models.json")).get("results", {})
        lines += ["", "Exported models on their own inputs (f32; PyTorch eager with TF32 off):", "",
                  "| model | kernels | check | Fuse ms | PyTorch eager | slowest launches |",
                  "|---|---|---|---|---|---|"]
        for r in timed_models:
            peer = torch_models.get(r["name"], {})
            if "run_ms_median" in peer:
                ratio = peer["run_ms_median"] / r["run_ms_median"] if r["run_ms_median"] else 0
                eager = f"{peer['run_ms_median']:.4g} ms ({ratio:.2f}x)"
            else:
                eager = peer.get("error", "not run")[:60]
            slowest = sorted(r.get("launches", []), key=lambda x: -x["ms"])[:3]
            top = ", ".join(f"{x['kernel']} {x['ms']:.3g}" for x in slowest)
            lines.append(f"| {r['name']} | {r.get('kernels', '?')} | {r['status'][:20]} | "
                         f"{r['run_ms_median']:.4g} | {eager} | {top} |")
    # Where the time goes in the workloads of several kernels: each launch's
    # median (CUDA events around each launch, so their sum exceeds the run).
    several = [r for r in records if r["record"] == "time" and r["status"] == "ok"
               and len(r.get("launches", [])) > 1]
    if several:
        lines += ["", "Where the time goes (each launch's median, ms):", ""]
        for r in several:
            launches = ", ".join(f"{x['kernel']} {x['ms']:.4g}" for x in r["launches"])
            lines.append(f"- {workloads.get(r['name'], {}).get('title', r['name'])}: {launches}")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(results, "table.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
