#!/usr/bin/env python3
"""Fuse against this machine's memory bandwidth and against its peers.

Runs fuse-bench (the triad and FMA peak, then each workload fused and
unfused on the host runtime) and the same workloads in numpy, PyTorch
eager, torch.compile, onnxruntime, OpenVINO, IREE and JAX where they are
installed (peers.py, one process per peer), in --passes passes; in each
pass, workload by workload, Fuse and then each peer in turn, back to back
(the shared VM's bandwidth moves on a scale of minutes, so that systems
timed minutes apart are not compared); each system's figure is the median
of its passes' medians, the triad and FMA peak the best pass. Writes
bench/results/results.md, results.json and chart.png. Every
percentage is against the triad figure of the same run; every ratio is the
median over passes of the peer's time over Fuse's in the same pass (above 1:
Fuse is faster). Nothing here asserts a timing.
"""

import argparse
import datetime
import importlib.util
import json
import os
import platform
import queue
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PEERS = ["numpy", "torch", "torch.compile", "onnxruntime", "openvino", "iree", "jax"]
PEER_MODULES = {
    "numpy": ["numpy"],
    "torch": ["torch"],
    "torch.compile": ["torch"],
    "onnxruntime": ["onnxruntime", "onnx"],
    "openvino": ["openvino", "onnx"],
    "iree": ["iree.compiler", "iree.runtime", "onnx"],
    "jax": ["jax"],
}
PEER_TIMEOUT_S = 600

# The targets, reported next to what was measured: % of the triad
# for every memory-bound workload (pointwise ones included, GELU's tanh or
# not), softmax's own lower one.
PCT_TARGET = {"bandwidth": 90, "transcendental": 90}
PCT_TARGET_BY_NAME = {"softmax": 85}
# Matmul workloads: % of the f32 multiply-add peak measured in the same run.
PEAK_TARGET = 85
SPEEDUP_TARGETS = {"torch": 3.0, "numpy": 5.0}
SPEEDUP_WORKLOADS = {"gelu", "softmax", "layernorm"}


def log(message):
    print(f"bench.py: {message}", file=sys.stderr, flush=True)


def fuse_bench_workloads(args):
    """The names of the workloads fuse-bench runs (--quick, --only), in its
    order."""
    command = [args.fuse_bench, "--list"] + (["--quick"] if args.quick else [])
    if args.only:
        command += ["--only", args.only]
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as error:
        log(f"cannot run fuse-bench: {error}")
        sys.exit(1)
    if done.returncode != 0:
        log(f"fuse-bench --list exited {done.returncode}: {done.stderr.strip()}")
        sys.exit(1)
    return [line.strip() for line in done.stdout.splitlines() if line.strip()]


def run_fuse_bench(args, only, first=True, lazy=False, machine=True):
    command = [args.fuse_bench] + (["--quick"] if args.quick else []) + ["--runs", str(args.runs)]
    if not first:
        command.append("--no-start")  # new-process starts: the first pass's
    if lazy:
        command.append("--lazy")
    if not machine:
        command.append("--no-machine")  # the pass's first run measured them
    command += ["--only", only]
    log("running " + " ".join(command))
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, text=True)
    except OSError as error:
        log(f"cannot run fuse-bench: {error}")
        sys.exit(1)
    records = []
    for line in done.stdout.splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            log(f"not a JSON record from fuse-bench: {line[:200]}")
    if done.returncode != 0:
        log(f"fuse-bench exited {done.returncode}; its records are reported as they are")
    return records


def module_missing(name):
    try:
        return importlib.util.find_spec(name) is None
    except ImportError:  # a dotted name whose parent package is missing
        return True


def peer_environment(peer):
    env = dict(os.environ)
    if peer == "numpy":
        # These pin OpenBLAS to a slower kernel on this processor (they are
        # set for older OpenBLAS builds); numpy's benchmark runs without them.
        env.pop("OPENBLAS_CORETYPE", None)
        env.pop("OPENBLAS_L2_SIZE", None)
    return env


# After a peer's answer, before the next system runs: its threads' spinning
# after a call (OpenMP, onnxruntime's pool, XLA's) is over by then.
SETTLE_S = 0.25


class PeerServer:
    """One peer's peers.py process in --serve mode for one pass: each
    request is one workload, answered back to back with Fuse's run of it.
    Between its requests the process (with any workers it started: one
    process group) is stopped (SIGSTOP), so that it takes no CPU while
    another system is timed. A process that exits or does not answer within
    PEER_TIMEOUT_S is reported as that workload's error and started again
    for the next."""

    def __init__(self, peer, timeout_s=PEER_TIMEOUT_S, command=None):
        self.peer = peer
        self.timeout_s = timeout_s
        self.command = command or [sys.executable, os.path.join(HERE, "peers.py"), peer, "--serve"]
        self.missing = [m for m in PEER_MODULES.get(peer, []) if module_missing(m)]
        self.process = None
        self.info = None

    def start(self):
        self.stderr = tempfile.TemporaryFile(mode="w+", errors="replace")
        self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self.stderr, text=True, errors="replace",
                                        env=peer_environment(self.peer), start_new_session=True)
        self.lines = queue.Queue()

        def read(stream, lines):
            try:
                for line in stream:
                    lines.put(line)
            except (OSError, ValueError):  # closed by stop()
                pass
            lines.put(None)

        self.reader = threading.Thread(target=read, args=(self.process.stdout, self.lines), daemon=True)
        self.reader.start()

    def signal(self, number):
        """`number` to the process and every process it started."""
        try:
            os.killpg(self.process.pid, number)
        except OSError:  # already gone
            pass

    def failure(self, detail):
        self.stop()
        return {"error": detail}

    def exit_detail(self):
        """How the process ended: its exit code and its last line on stderr."""
        try:
            code = self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.signal(signal.SIGKILL)
            code = self.process.wait()
        self.stderr.seek(0)
        tail = self.stderr.read().strip().splitlines()[-1:] or ["no message"]
        return code, f"exit {code}: {tail[0][:300]}"

    def answer(self, spec):
        """The process's answer to `spec` (started where none runs), or
        (exit code or None, why) where it gave none."""
        if self.process is None:
            self.start()
        self.signal(signal.SIGCONT)
        try:
            self.process.stdin.write(json.dumps(spec) + "\n")
            self.process.stdin.flush()
        except OSError:
            return self.exit_detail()
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.stop(kill=True)
                return None, f"timed out after {self.timeout_s} s"
            if line is None:
                return self.exit_detail()
            try:
                answer = json.loads(line)
            except ValueError:
                continue  # a library's own output
            if isinstance(answer, dict) and answer.get("peer") == self.peer:
                return answer

    def request(self, spec):
        """The peer's result for the one workload of `spec`: its times, or
        {"error": why}. A process that ended cleanly without answering (it
        was exiting after its last answer) is started again once."""
        name = spec["workloads"][0]["name"]
        answer = self.answer(spec)
        if isinstance(answer, tuple) and answer[0] == 0:
            self.stop()
            answer = self.answer(spec)
        if isinstance(answer, tuple):
            return self.failure(answer[1])
        self.signal(signal.SIGSTOP)
        # Each answer's info; per-workload entries (compile_ms) gathered.
        info = answer.get("info", {})
        if self.info is None:
            self.info = dict(info)
        for key, value in info.items():
            if isinstance(value, dict) and isinstance(self.info.get(key), dict):
                self.info[key] = {**self.info[key], **value}
        return answer.get("results", {}).get(name, {"error": "no result"})

    def stop(self, kill=False):
        """Ends the process group: stdin closed (serve's loop ends), or
        killed; killed too where it has not ended in 30 s."""
        if self.process is None:
            return
        if kill:
            self.signal(signal.SIGKILL)
        self.signal(signal.SIGCONT)
        try:
            self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.signal(signal.SIGKILL)
            self.process.wait()
        self.signal(signal.SIGKILL)  # workers it left behind
        self.reader.join(timeout=10)
        self.process.stdout.close()
        self.stderr.close()
        self.process = None

    def pass_result(self, results):
        """This pass's results of the peer, as combine_peer_passes takes them:
        {"status", "info", "results"} or, where it never answered, {"status",
        "detail"}."""
        if self.missing:
            return {"status": "not installed", "detail": ", ".join(self.missing) + " not installed"}
        if self.info is None:
            errors = [v["error"] for v in results.values() if "error" in v]
            return {"status": "error", "detail": errors[0] if errors else "no answer"}
        return {"status": "ok", "info": self.info, "results": results}


def source_state():
    """The commit measured, and whether tracked files differed from it."""
    try:
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return commit + (" with uncommitted changes to tracked files" if dirty else "")


def fmt_ms(ms):
    return f"{ms:.3g}" if ms < 100 else f"{ms:.0f}"


# ---------------------------------------------------------------- passes


def pass_figures(medians, mins, by_pass=None):
    """One system's figures on one workload from its per-pass medians and
    minimums: the median of the medians is the figure reported. `by_pass`:
    each pass's median in pass order, None where it did not run there (what
    pairs it with another system's pass by pass, paired_ratio)."""
    figures = {
        "run_ms_median": statistics.median(medians),
        "run_ms_min": min(mins),
        "run_ms_pass_medians": list(medians),
        "run_ms_pass_min": min(medians),
        "run_ms_pass_max": max(medians),
        "passes": len(medians),
    }
    if by_pass is not None:
        figures["run_ms_by_pass"] = list(by_pass)
    return figures


def paired_ratio(peer, fuse):
    """A peer's time over Fuse's: the median over passes of each pass's
    ratio, as each pass times a workload on Fuse and then on every peer back
    to back, moments apart, while the VM's bandwidth moves between phases
    seconds apart (a sum took 7.4 ms on Fuse and 4.4 on PyTorch in one pass,
    4.3 and 4.3 in the next); the ratio of the medians where the passes do
    not line up. Returns (ratio, each pass's ratio or None)."""
    fuse_by, peer_by = fuse.get("run_ms_by_pass"), peer.get("run_ms_by_pass")
    if fuse_by and peer_by and len(fuse_by) == len(peer_by):
        ratios = [p / f for p, f in zip(peer_by, fuse_by) if p and f]
        if ratios:
            return statistics.median(ratios), ratios
    return peer["run_ms_median"] / fuse["run_ms_median"], None


def combine_variant(variants):
    """Fuse's fused (or unfused) figures of one workload over the passes:
    the first pass's record (kernels, compile times) with the run time the
    median of the passes' medians, GB/s and GFLOP/s scaled to it, and each
    kernel's time the median of its passes' when every pass lists the same
    kernels."""
    by_pass = [v["run_ms_median"] if v else None for v in variants]
    variants = [v for v in variants if v]
    if not variants:
        return None
    first = variants[0]
    merged = dict(first)
    merged.update(pass_figures([v["run_ms_median"] for v in variants], [v["run_ms_min"] for v in variants], by_pass))
    scale = first["run_ms_median"] / merged["run_ms_median"]
    for key in ("gbps", "gflops"):
        if merged.get(key) is not None:
            merged[key] = first[key] * scale
    names = [k["name"] for k in first.get("kernel_ms") or []]
    if names and all([k["name"] for k in v.get("kernel_ms") or []] == names for v in variants):
        merged["kernel_ms"] = [
            dict(kernel, ms=statistics.median(v["kernel_ms"][i]["ms"] for v in variants))
            for i, kernel in enumerate(first["kernel_ms"])
        ]
    return merged


def best(values):
    values = [v for v in values if v is not None]
    return max(values) if values else None


def best_machine(machines):
    """fuse-bench's machine records as one: the first's, with the best
    triads and FMA peak (their medians: the median record's)."""
    machine = dict(machines[0])
    for key in ("triad_gbps", "triad_plain_stores_gbps", "triad_small_pages_gbps", "fma_peak_gflops"):
        machine[key] = best(m.get(key) for m in machines)
    for key in ("triad_median_gbps", "fma_peak_median_gflops"):
        values = [m[key] for m in machines if m.get(key) is not None]
        machine[key] = statistics.median(values) if values else None
    return machine


def combine_fuse_passes(passes):
    """fuse-bench's records of every pass as one pass's: the machine's
    triad and FMA peak the best pass's (medians: the median pass's), each
    workload's times the median of the passes' medians (combine_variant),
    the rest (start times, the lazy API) the first pass's."""
    passes = [p for p in passes if any(r.get("record") == "machine" for r in p)]
    machines = [next(r for r in p if r.get("record") == "machine") for p in passes]
    dones = [next((r for r in p if r.get("record") == "done"), {}) for p in passes]
    machine = best_machine(machines)
    machine["passes"] = [
        {"triad_gbps": m.get("triad_gbps"), "triad_end_gbps": d.get("triad_end_gbps"), "fma_peak_gflops": m.get("fma_peak_gflops")}
        for m, d in zip(machines, dones)
    ]
    done = dict(dones[0], triad_end_gbps=best(d.get("triad_end_gbps") for d in dones))
    done["failures"] = max(d.get("failures", 0) for d in dones)
    # Every workload some pass ran (a fuse-bench run that failed on one in
    # one pass does not drop it), in the order they first ran.
    names = list(dict.fromkeys(r["name"] for p in passes for r in p if r.get("record") == "workload"))
    records = [machine]
    for name in names:
        same = [next((r for r in p if r.get("record") == "workload" and r["name"] == name), {}) for p in passes]
        record = next((r for r in same if r.get("fused")), next(r for r in same if r))
        merged = dict(record, fused=combine_variant([r.get("fused") for r in same]),
                      unfused=combine_variant([r.get("unfused") for r in same]))
        for variant in (merged["fused"], merged["unfused"]):
            if variant and variant.get("gflops") is not None and machine.get("fma_peak_gflops"):
                variant["pct_peak"] = 100 * variant["gflops"] / machine["fma_peak_gflops"]
        near = near_triad_figures(same)
        if near:
            merged.update(near)
        records.append(merged)
    records += [r for r in passes[0] if r.get("record") not in ("machine", "workload", "done")]
    return records + [done]


def near_triad_figures(same):
    """A memory-bound workload's triad measured just before it in each
    pass (fuse-bench's triad_near_gbps): each pass's fused GB/s as a % of its
    own pass's, and the median of those; None where no pass measured one."""
    pairs = [(r["fused"]["gbps"], r["triad_near_gbps"]) for r in same
             if r.get("fused") and r.get("triad_near_gbps")]
    if not pairs:
        return None
    pcts = [100 * gbps / near for gbps, near in pairs]
    figures = {"triad_near_gbps": statistics.median(near for _, near in pairs),
               "pct_triad_near_passes": pcts, "pct_triad_near": statistics.median(pcts)}
    # One that mostly reads: also against a read-only loop measured just
    # before it (fuse-bench's read_near_gbps), the same way.
    reads = [(r["fused"]["gbps"], r["read_near_gbps"]) for r in same
             if r.get("fused") and r.get("read_near_gbps")]
    if reads:
        figures.update(read_near_gbps=statistics.median(near for _, near in reads),
                       pct_read_near=statistics.median(100 * gbps / near for gbps, near in reads))
    # Each run paired with a triad pass just before it (fuse-bench's
    # "paired": the median of the runs' ratios), the median over passes.
    paired = [r["paired"] for r in same if r.get("paired", {}).get("pct_triad") is not None]
    if paired:
        figures.update(pct_triad_paired_passes=[p["pct_triad"] for p in paired],
                       pct_triad_paired=statistics.median(p["pct_triad"] for p in paired),
                       triad_paired_gbps=statistics.median(p["triad_median_gbps"] for p in paired),
                       paired_gbps=statistics.median(p["gbps_median"] for p in paired))
        reads = [p for p in paired if p.get("pct_read") is not None]
        if reads:
            figures.update(pct_read_paired=statistics.median(p["pct_read"] for p in reads),
                           read_paired_gbps=statistics.median(p["read_median_gbps"] for p in reads))
    return figures


def combine_peer_passes(runs):
    """One peer's results (PeerServer.pass_result) of every pass as one: the first
    successful pass's info, each workload's time the median of the medians
    of the passes where it ran (an error only where it ran in none)."""
    ok = [r for r in runs if r["status"] == "ok"]
    if not ok:
        return runs[0]
    merged = {"status": "ok", "info": ok[0].get("info", {}), "results": {}}
    if len(ok) < len(runs):
        merged["info"] = dict(merged["info"], failed_passes=[r.get("detail") for r in runs if r["status"] != "ok"])
    names = list(dict.fromkeys(name for r in ok for name in r["results"]))
    for name in names:
        values = [r["results"].get(name, {"error": "not run"}) for r in ok]
        good = [v for v in values if "error" not in v]
        if not good:
            merged["results"][name] = values[0]
            continue
        by_pass = [r["results"].get(name, {}).get("run_ms_median") if r["status"] == "ok" else None for r in runs]
        merged["results"][name] = pass_figures([v["run_ms_median"] for v in good], [v["run_ms_min"] for v in good],
                                               by_pass)
        errors = [v["error"] for v in values if "error" in v]
        if errors:
            merged["results"][name]["failed_passes"] = errors
    return merged


def build_results(records, peers, args):
    machine = next(r for r in records if r.get("record") == "machine")
    done = next((r for r in records if r.get("record") == "done"), {})
    # The higher of the triads before and after the workloads: a moment of
    # contention in one of them must not flatter every percentage.
    triad = max(machine["triad_gbps"], done.get("triad_end_gbps") or 0)
    workloads = []
    for record in records:
        if record.get("record") != "workload":
            continue
        entry = {k: record.get(k) for k in ("name", "title", "bound", "status", "reason", "bytes", "flops", "input_shapes")}
        entry["fuse"] = record.get("fused")
        entry["fuse_unfused"] = record.get("unfused")
        # A memory-bound workload against the triad measured just before it
        # (the median over passes of each pass's %), as the VM's bandwidth
        # moves within a run; the run's triad where it has none.
        near = record.get("triad_near_gbps")
        entry["triad_gbps"] = near or triad
        for variant in (entry["fuse"], entry["fuse_unfused"]):
            if variant:
                variant["pct_triad"] = 100 * variant["gbps"] / entry["triad_gbps"]
        if entry["fuse"] and record.get("pct_triad_near") is not None:
            entry["fuse"]["pct_triad"] = record["pct_triad_near"]
            entry["fuse"]["pct_triad_passes"] = record["pct_triad_near_passes"]
        if entry["fuse"] and record.get("pct_read_near") is not None:
            entry["read_gbps"] = record["read_near_gbps"]
            entry["fuse"]["pct_read"] = record["pct_read_near"]
        # Where each run was paired with a triad pass of its own moment, that
        # figure is Fuse's % (the target's); the near one stays beside it.
        if entry["fuse"] and record.get("pct_triad_paired") is not None:
            entry["fuse"]["pct_triad_near"] = entry["fuse"]["pct_triad"]
            entry["fuse"]["pct_triad"] = record["pct_triad_paired"]
            entry["fuse"]["pct_triad_passes"] = record["pct_triad_paired_passes"]
            entry["triad_paired_gbps"] = record["triad_paired_gbps"]
            entry["paired_gbps"] = record.get("paired_gbps")
            if record.get("pct_read_paired") is not None:
                entry["fuse"]["pct_read"] = record["pct_read_paired"]
                entry["read_gbps"] = record["read_paired_gbps"]
        for key in ("cold_start_ms", "warm_start_ms", "warm_start_cache_hit", "start_title"):
            entry[key] = record.get(key)
        entry["peers"], entry["ratio"] = {}, {}
        for peer, result in peers.items():
            if result["status"] != "ok":
                entry["peers"][peer] = {"status": result["status"]}
                continue
            value = result["results"].get(record["name"], {"error": "not run"})
            if "error" in value:
                entry["peers"][peer] = {"status": "error", "detail": value["error"]}
                continue
            ms = value["run_ms_median"]
            figures = {"status": "ok", "run_ms_median": ms, "run_ms_min": value["run_ms_min"]}
            figures.update({k: v for k, v in value.items() if k.startswith("run_ms_pass") or k == "failed_passes"})
            if entry["bytes"]:
                gbps = entry["bytes"] / (ms * 1e-3) / 1e9
                figures.update(gbps=gbps, pct_triad=100 * gbps / entry["triad_gbps"])
            entry["peers"][peer] = figures
            if entry["fuse"]:
                entry["ratio"][peer], by_pass = paired_ratio(value, entry["fuse"])
                if by_pass:
                    figures["ratio_passes"] = by_pass
        workloads.append(entry)
    peer_info = {
        peer: ({"status": "ok", **result.get("info", {})} if result["status"] == "ok" else result)
        for peer, result in peers.items()
    }
    compile_total = sum(w["fuse"]["compile_ms"] for w in workloads if w["fuse"])
    lazy = next((r for r in records if r.get("record") == "lazy"), None)
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": {
            "cpu": machine["cpu"],
            "cores": machine["cores"],
            "target": machine["target"],
            "triad_gbps": triad,
            "triad_start_gbps": machine["triad_gbps"],
            "triad_median_gbps": machine["triad_median_gbps"],
            "triad_array_mib": machine["triad_array_mib"],
            "triad_plain_stores_gbps": machine["triad_plain_stores_gbps"],
            "triad_small_pages_gbps": machine.get("triad_small_pages_gbps"),
            "triad_end_gbps": done.get("triad_end_gbps"),
            "fma_peak_gflops": machine.get("fma_peak_gflops"),
            "fma_peak_median_gflops": machine.get("fma_peak_median_gflops"),
            "fma_isa": machine.get("fma_isa"),
            "passes": machine.get("passes"),
            "platform": platform.platform(),
        },
        "quick": args.quick,
        "passes": args.passes,
        "source": args.source or source_state(),
        "runs": args.runs,
        "peers": peer_info,
        "workloads": workloads,
        "fuse_compile_ms_total": compile_total,
        "lazy": lazy,
    }


def peer_cell(entry, peer):
    figures = entry["peers"].get(peer, {"status": "not run"})
    if figures["status"] != "ok":
        return figures["status"]
    ratio = entry["ratio"].get(peer)
    text = fmt_ms(figures["run_ms_median"]) + " ms"
    return text + (f" ({ratio:.2f}x)" if ratio is not None else "")


def target_text(entry):
    if entry["bound"] == "compute" and entry["fuse"] and entry["fuse"].get("pct_peak") is not None:
        pct = entry["fuse"]["pct_peak"]
        return f"{pct:.0f}% of FMA peak (target >= {PEAK_TARGET}%: {'met' if pct >= PEAK_TARGET else 'not met'})"
    target = PCT_TARGET_BY_NAME.get(entry["name"], PCT_TARGET.get(entry["bound"]))
    if not target or not entry["fuse"]:
        return ""
    pct = entry["fuse"]["pct_triad"]
    return f"{pct:.0f}% (target >= {target}%: {'met' if pct >= target else 'not met'})"


# One sentence per workload on what its fused kernels do, from
# bench/Workloads.cpp's graphs and the kernels fuse-bench reports; keyed by
# name (every matmul_bias_relu size shares one).
EXPLANATIONS = {
    "mul_add_row": "The sum a*b+c is one pointwise kernel: a and b are read once and y written once, and the row c is "
    "a few KiB, so the triad is its ceiling.",
    "gelu": "The tanh-form GELU is one pointwise kernel (x read once, y written once), computed as "
    "x / (1 + e^(-2u)), the same function: the exponential per element competes with the memory traffic.",
    "softmax": "The row max, the exponentials, their sum and the division are one kernel over rows: x is read "
    "from memory and y written once; exp is evaluated per element.",
    "layernorm": "The mean, the variance, the normalization, scale and shift are one kernel over rows: x is read "
    "from memory and y written once; gamma and beta are one row each.",
    "sum": "The kernel fuse_k0_partials sums fixed-size chunks of x in parallel and fuse_k0_finish adds the chunks' "
    "partial sums, a few KiB: nearly all the time is the read of x.",
    "column_sum": "At 4096x4096, the kernel fuse_k0_column_partials sums 16 bands of 256 rows in parallel, each "
    "thread streaming whole rows, into one partial row per band (256 KiB in all), and fuse_k0_column_finish adds the "
    "bands' rows: nearly all the time is the read of x (under 512 rows, one kernel splits the columns instead).",
    "matmul_bias_relu": "The pack kernel fuse_k0_pack lays W out in the matmul's tiles once per binding of the inputs (a "
    "prepared bundle's later runs skip it, so it is not in the time); fuse_k0_matmul applies the bias and the relu "
    "to each result tile before storing it, so no intermediate goes to memory.",
    "mlp": "The two pack kernels (W1, W2) run once per binding of the inputs and are not in the time; the first "
    "matmul applies bias and relu to its tiles, the second its bias, and the hidden activation goes through "
    "memory between them.",
    "encoder_layer": "The Q, K and V projections are one horizontal launch (fuse_k0_horizontal_1, their weights "
    "packed per binding by fuse_k0_horizontal_0, not in the time); scores, mask, softmax and P@V are one attention "
    "kernel (fuse_k2_attention); the other three matmuls have their weights packed per binding, and the two "
    "layernorms are row kernels (fuse_k5_rows, fuse_k10_rows).",
}


def explanation(name):
    return EXPLANATIONS.get("matmul_bias_relu" if name.startswith("matmul_bias_relu") else name, "")


def time_paragraph(w, results):
    """Where a workload's time goes: Fuse's kernels, the limit that applies
    (memory: GB/s, % of the triad; compute: GFLOP/s, % of the FMA peak), the
    fastest peer and its ratio, and what the kernels do (EXPLANATIONS)."""
    f = w["fuse"]
    if not f:
        return None
    kernels = f.get("kernel_ms")
    text = f"**{w['name']}** ({w['title']}): Fuse {fmt_ms(f['run_ms_median'])} ms in {f['kernels']} kernel" + (
        "s" if f["kernels"] != 1 else "")
    if kernels:
        text += " (median per kernel, launch order: " + ", ".join(
            f"{k['name']} {k['ms']:.3g} ms" + (" once per binding" if k.get("per_binding") else "") for k in kernels) + ")"
    text += ". "
    if w["bound"] == "compute" and f.get("gflops") is not None:
        peak = results["machine"].get("fma_peak_gflops")
        text += f"Compute-bound: {f['gflops']:.0f} GFLOP/s" + (f", {100 * f['gflops'] / peak:.0f}% of the FMA peak. " if peak else ". ")
    else:
        limit = "Memory-bound" if w["bound"] == "bandwidth" else "Memory- and exp/tanh-bound (counted against the triad)"
        if f.get("pct_triad_near") is not None:
            paired = (f"{w['paired_gbps']:.1f} GB/s, " if w.get("paired_gbps") else "")
            text += (f"{limit}: {f['gbps']:.1f} GB/s in its timed runs ({f['pct_triad_near']:.0f}% of the triad "
                     f"measured once before them, {w['triad_gbps']:.1f} GB/s); run again, each run just after a "
                     f"triad pass of its own (cold caches), {paired}{f['pct_triad']:.0f}% of the triad paired with "
                     f"each run (median {w['triad_paired_gbps']:.1f} GB/s)")
            if f.get("pct_read") is not None:
                text += (f", and {f['pct_read']:.0f}% of a read-only loop paired with each run the same way "
                         f"({w['read_gbps']:.1f} GB/s: it reads far more than it writes, and reads alone "
                         "do not reach the triad's rate)")
        else:
            text += (f"{limit}: {f['gbps']:.1f} GB/s, {f['pct_triad']:.0f}% of the triad measured just before it "
                     f"({w['triad_gbps']:.1f} GB/s)")
            if f.get("pct_read") is not None:
                text += (f", and {f['pct_read']:.0f}% of a read-only loop measured just before it "
                         f"({w['read_gbps']:.1f} GB/s: it reads far more than it writes, and reads alone "
                         "do not reach the triad's rate)")
        text += ". "
    timed = {p: v["run_ms_median"] for p, v in w["peers"].items() if v.get("status") == "ok"}
    if timed:
        peer = min(timed, key=timed.get)
        ratio = w["ratio"].get(peer)
        text += f"Fastest peer: {peer}, {fmt_ms(timed[peer])} ms (" + (
            f"Fuse {ratio:.2f}x faster). " if ratio >= 1 else f"{1 / ratio:.2f}x faster than Fuse). ")
    else:
        text += "No peer measured. "
    sentence = explanation(w["name"])
    return text + sentence


def markdown(results):
    m = results["machine"]
    lines = [
        "# Fuse CPU benchmark",
        "",
        f"- date: {results['date']}",
        f"- machine: {m['cpu']}, {m['cores']} cores, target {m['target']} ({m['platform']})",
        f"- Fuse built from {results['source']}",
        f"- memory bandwidth: **{m['triad_gbps']:.1f} GB/s**, the best pass of a triad with streaming stores "
        f"(3 arrays of {m['triad_array_mib']} MiB in the host runtime's memory, which gives blocks of 2 MiB or more "
        f"transparent huge pages, {m['cores']} threads) measured before the workloads "
        f"({m['triad_start_gbps']:.1f} GB/s, median pass {m['triad_median_gbps']:.1f}) and again after them ("
        + (f"{m['triad_end_gbps']:.1f} GB/s" if m.get("triad_end_gbps") else "not measured")
        + f"); a memory-bound workload's % is of the triad paired with each of its runs: after its timed runs, "
        "it runs again, each run just after one triad pass of its own (the run's GB/s over that pass's, the median "
        "of the runs' ratios in each pass, then the median over passes), as the shared VM's bandwidth moves between "
        f"phases seconds apart; the triad's {3 * m['triad_array_mib']} MiB leave the caches cold for each of those runs. The triad measured "
        "once just before the workload (4 passes, the best) is kept beside it. A matmul's %, of the FMA peak. "
        "With plain stores (write-allocate traffic not counted, as STREAM "
        f"does): {m['triad_plain_stores_gbps']:.1f} GB/s"
        + (f". In 4 KiB pages from the C++ heap, what the peers' large arrays get by default: "
           f"{m['triad_small_pages_gbps']:.1f} GB/s" if m.get("triad_small_pages_gbps") else ""),
        (f"- f32 multiply-add peak: **{m['fma_peak_gflops']:.0f} GFLOP/s** ({m.get('fma_isa', '?')} vectors, "
         f"{m['cores']} threads, independent chains in registers, best pass; median "
         f"{m.get('fma_peak_median_gflops', 0):.0f}); matmul rows give % of it"
         if m.get("fma_peak_gflops") else "- f32 multiply-add peak: not measured"),
        f"- {results.get('passes', 1)} alternating pass{'es' if results.get('passes', 1) != 1 else ''} (in each, "
        "workload by workload: Fuse, then each peer, in turn, back to back), the median of the passes' medians "
        "(results.json keeps each pass's median); the triad and the FMA peak: the best of the passes' fuse-bench "
        "runs",
        f"- each pass: median of at least {results['runs']} runs, and of at least 0.2 s of runs, after at least 0.2 s "
        "of warm-up (Fuse and every CPU peer alike); Fuse times the kernels only (inputs uploaded once); "
        "peers time one call each (outputs in new memory, as they allocate by default)",
        "- GB/s counts each graph input read once and each output written once; ratio = peer time / Fuse time "
        "in the same pass, the median over passes (results.json keeps each pass's ratio; where the passes do not "
        "line up, the ratio of the medians), as the VM's bandwidth moves between phases seconds apart; above 1: "
        "Fuse is faster",
        "- this is a shared 2-core virtual machine: other processes (compiles) may have run during the "
        "measurement, so the numbers are noisy (the same day, under a load average near 10, every figure "
        "was 2-4x lower); 1-minute load average "
        f"{results['load_average']['before']:.2f} before the run and {results['load_average']['after']:.2f} after",
        "- Fuse unfused: the same graph compiled with enableFusion=false (one kernel per op); every Fuse kernel "
        "uses all cores. numpy: elementwise ops on one thread, BLAS on all; PyTorch: torch.set_num_threads(cores), "
        "eager with its fused ops (F.gelu, softmax, F.layer_norm, addmm), torch.compile on the graphs as written; "
        "onnxruntime: the graphs as ONNX (opset 17, LayerNormalization and Softmax ops), intra-op threads = cores; "
        "OpenVINO: the same ONNX files, CPU plugin forced to f32 (INFERENCE_PRECISION_HINT; its default on a CPU "
        "with AVX-512 BF16 is bf16), latency hint, threads = cores, one infer request reused; "
        "IREE: the same ONNX graphs through its ONNX importer, llvm-cpu for the host CPU with data tiling and "
        "micro-kernels, the local-task driver with one worker per core; JAX: the numpy code in jax.numpy, "
        "jax.jit, f32, inputs on the device once, each call waited for (block_until_ready); "
        "the first pass compares each peer's output with numpy's (a mismatch is an error)",
    ]
    if results["quick"]:
        lines.append("- QUICK RUN: small sizes, not the issue's")
    lines.append("")
    peers = [p for p in PEERS if p in results["peers"]]
    header = ["workload", "Fuse fused", "GB/s (matmul: GFLOP/s)", "% of triad (matmul: of FMA peak)", "Fuse unfused"] + peers
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for w in results["workloads"]:
        if not w["fuse"]:
            reason = (w.get("reason") or "").replace("|", "\\|")[:160]
            cells = [w["title"], f"not supported yet ({reason})"] + [""] * 3 + [""] * len(peers)
        else:
            f, u = w["fuse"], w["fuse_unfused"]
            cells = [
                w["title"],
                f"{fmt_ms(f['run_ms_median'])} ms, {f['kernels']} kernel{'s' if f['kernels'] != 1 else ''}",
                f"{f['gflops']:.0f} GFLOP/s" if f.get("gflops") else f"{f['gbps']:.1f}",
                target_text(w) or "(compute-bound)",
                f"{fmt_ms(u['run_ms_median'])} ms, {u['kernels']} kernels" if u else "error",
            ] + [peer_cell(w, p) for p in peers]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    lines += ["", "## Targets of the issue", ""]
    for w in results["workloads"]:
        if not w["fuse"]:
            lines.append(f"- {w['name']}: not supported yet by the host compiler")
            continue
        parts = []
        if w["bound"] in PCT_TARGET or w["fuse"].get("pct_peak") is not None:
            parts.append(target_text(w))
        if w["name"] in SPEEDUP_WORKLOADS:
            for peer, target in SPEEDUP_TARGETS.items():
                ratio = w["ratio"].get(peer)
                name = "PyTorch eager" if peer == "torch" else peer
                if ratio is None:
                    parts.append(f"vs {name}: not measured")
                else:
                    parts.append(f"{ratio:.2f}x {name} (target >= {target:g}x: {'met' if ratio >= target else 'not met'})")
        for peer in ("onnxruntime", "openvino", "torch.compile", "iree", "jax"):
            ratio = w["ratio"].get(peer)
            if ratio is not None:
                parts.append(f"{ratio:.2f}x {peer} (target > 1x: {'met' if ratio > 1 else 'not met'})")
        lines.append(f"- {w['name']}: " + "; ".join(parts))
    lines += ["", "## Compile and start", ""]
    lines.append("| workload | fused kernels | cold compile ms (per kernel) | unfused kernels | cold compile ms (per kernel) "
                 "| new process, cold cache ms | new process, warm cache ms |")
    lines.append("|---|---|---|---|---|---|---|")
    for w in results["workloads"]:
        if not w["fuse"]:
            continue
        f, u = w["fuse"], w["fuse_unfused"] or {}
        lines.append(
            f"| {w['name']} | {f['kernels']} | {f['compile_ms']:.0f} ({f['compile_ms_per_kernel']:.0f}) | "
            f"{u.get('kernels', '')} | "
            + (f"{u['compile_ms']:.0f} ({u['compile_ms_per_kernel']:.0f})" if u else "")
            + f" | {w['cold_start_ms'] or 0:.0f} | {w['warm_start_ms'] or 0:.0f}"
            + ("" if w.get("warm_start_cache_hit") else " (cache miss!)")
            + " |"
        )
    lines.append("")
    lines.append("New-process times are whole `fuse-run MODEL --cache-dir DIR` runs (start, cache lookup, load, "
                 "random inputs, one run, exit) on the small shape of each workload (`--quick` sizes); "
                 "the second run finds the bundle in the cache.")
    lines += ["", "## Where the time goes", ""]
    for w in results["workloads"]:
        paragraph = time_paragraph(w, results)
        if paragraph:
            lines += [paragraph, ""]
    lazy = results.get("lazy")
    if lazy and "record_ns_per_op" in lazy:
        lines.append(
            f"Lazy API (runtime/engine): {lazy['record_ns_per_op']:.0f} ns to record an op "
            f"({lazy['ops']} ops recorded, handles dropped); GELU of 4096 elements through a session: "
            f"{lazy['gelu_first_result_ms']:.1f} ms to the first result (compiles), "
            f"{lazy['gelu_repeat_result_ms']:.3f} ms the second time (session hit)."
        )
    else:
        lines.append("Lazy API: not measured" + (f" ({lazy['error']})" if lazy else "") + ".")
    lines += ["", "## Peers", ""]
    for peer, info in results["peers"].items():
        detail = {k: v for k, v in info.items() if k not in ("status", "compile_ms")}
        lines.append(f"- {peer}: {info['status']}" + (f" {json.dumps(detail)}" if detail else ""))
    return "\n".join(lines) + "\n"


def chart(results, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib not installed: no chart")
        return False
    m = results["machine"]
    peers = [p for p in PEERS if results["peers"].get(p, {}).get("status") == "ok"]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(11, 9))

    # Memory-bound workloads: GB/s against the triad.
    streaming = [w for w in results["workloads"] if w["fuse"] and w["bound"] != "compute"]
    systems = ["Fuse", "Fuse unfused"] + peers
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    color = {system: palette[i % len(palette)] for i, system in enumerate(systems)}
    width = 0.8 / len(systems)
    for i, system in enumerate(systems):
        values = []
        for w in streaming:
            if system == "Fuse":
                values.append(w["fuse"]["gbps"])
            elif system == "Fuse unfused":
                values.append((w["fuse_unfused"] or {}).get("gbps", 0))
            else:
                values.append(w["peers"].get(system, {}).get("gbps", 0))
        top.bar([x + i * width for x in range(len(streaming))], values, width, label=system, color=color[system])
    top.axhline(m["triad_gbps"], color="black", linestyle="--", label="triad")
    top.set_xticks([x + width * (len(systems) - 1) / 2 for x in range(len(streaming))])
    top.set_xticklabels([w["name"] for w in streaming])
    top.set_ylabel("GB/s (inputs read once, outputs written once)")
    top.set_title(f"Fuse vs peers, {m['cpu']}, {m['cores']} cores, {results['date']}")
    top.set_ylim(0, m["triad_gbps"] * 1.3)
    top.legend(fontsize=8, loc="upper center", ncol=4)

    # Every workload: how many times faster Fuse is than each peer.
    ranked = [w for w in results["workloads"] if w["fuse"]]
    width = 0.8 / max(len(peers), 1)
    for i, peer in enumerate(peers):
        values = [w["ratio"].get(peer, 0) for w in ranked]
        bottom.bar([x + i * width for x in range(len(ranked))], values, width, label=peer, color=color[peer])
    bottom.axhline(1.0, color="black", linestyle="--")
    bottom.set_yscale("log")
    bottom.set_xticks([x + width * (len(peers) - 1) / 2 for x in range(len(ranked))])
    bottom.set_xticklabels([w["name"] for w in ranked])
    bottom.set_ylabel("peer time / Fuse time (log; above 1: Fuse faster)")
    bottom.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True


def peer_spec(workload, args, verify):
    """peers.py's spec for one workload fuse-bench ran; `verify`: compare
    each peer's output with numpy's before timing it (the first pass)."""
    return {
        "warmup": 1 if args.quick else 2,
        "runs": args.runs,
        "verify": verify,
        "workloads": [{k: workload[k] for k in ("name", "input_shapes", "params")}],
    }


def merge_invocations(invocations):
    """One pass's fuse-bench records, run a workload at a time, as one
    run's: the first invocation's machine record (the triad and FMA peak
    measured as the pass starts, as one run measures them; the later ones
    are run with --no-machine), the workloads in order, the lazy record
    where one measured it, and a done record with the last invocation's end
    triad (as the pass ends) and the failures added up. Nothing where the
    first invocation measured no machine."""
    invocations = [r for r in invocations if any(x.get("record") == "machine" for x in r)]
    if not invocations:
        return []
    machine = next(x for x in invocations[0] if x.get("record") == "machine")
    if "triad_gbps" not in machine:
        return []
    dones = [next((x for x in r if x.get("record") == "done"), {}) for r in invocations]
    done = {"record": "done", "failures": sum(d.get("failures", 0) for d in dones),
            "triad_end_gbps": dones[-1].get("triad_end_gbps")}
    records = [machine]
    records += [x for r in invocations for x in r if x.get("record") not in ("machine", "done")]
    return records + [done]


def run_passes(args):
    """args.passes passes; in each, workload by workload, fuse-bench (--only
    that workload) and then each peer (a peers.py --serve process per peer
    and pass) in the same order; the passes combined
    (combine_fuse_passes, combine_peer_passes)."""
    names = [p for p in args.peers.split(",") if p]
    workloads = fuse_bench_workloads(args)
    fuse_passes, peer_passes = [], {peer: [] for peer in names}
    for index in range(args.passes):
        log(f"pass {index + 1} of {args.passes}")
        servers = {peer: PeerServer(peer) for peer in names}
        results = {peer: {} for peer in names}
        invocations = []
        try:
            for position, name in enumerate(workloads):
                records = run_fuse_bench(args, name, first=index == 0, lazy=index == 0 and position == 0,
                                         machine=position == 0)
                invocations.append(records)
                record = next((r for r in records if r.get("record") == "workload" and r.get("name") == name), None)
                if record is None:
                    log(f"pass {index + 1}: fuse-bench printed no record of {name}; the peers skip it")
                    continue
                for peer, server in servers.items():
                    if server.missing:
                        continue
                    log(f"{name}: running {peer}...")
                    results[peer][name] = server.request(peer_spec(record, args, verify=index == 0))
                    time.sleep(SETTLE_S)
        finally:
            for server in servers.values():
                server.stop()
        merged = merge_invocations(invocations)
        if not merged:
            if not fuse_passes:
                log("fuse-bench measured no machine; nothing to report")
                sys.exit(1)
            log(f"pass {index + 1}: fuse-bench measured no machine; this pass of Fuse is left out")
        else:
            fuse_passes.append(merged)
        for peer, server in servers.items():
            peer_passes[peer].append(server.pass_result(results[peer]))
    return combine_fuse_passes(fuse_passes), {peer: combine_peer_passes(runs) for peer, runs in peer_passes.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fuse-bench", default=os.path.join(ROOT, "build", "bin", "fuse-bench"))
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--runs", type=int, default=None, help="timed runs per workload (default 20, quick 2)")
    parser.add_argument("--passes", type=int, default=None,
                        help="alternating passes (workload by workload: Fuse, then each peer) whose medians are "
                        "combined (default 3, quick 1)")
    parser.add_argument("--peers", default=",".join(PEERS), help="comma-separated peers to run")
    parser.add_argument("--only", help="comma-separated workloads to run (fuse-bench --only); default all")
    parser.add_argument("--output-dir", default=os.path.join(HERE, "results"))
    parser.add_argument("--source", help="what fuse-bench was built from (default: this checkout's commit)")
    args = parser.parse_args()
    if args.runs is None:
        args.runs = 2 if args.quick else 20
    if args.passes is None:
        args.passes = 1 if args.quick else 3
    args.passes = max(args.passes, 1)
    unknown = [p for p in args.peers.split(",") if p and p not in PEER_MODULES]
    if unknown:
        parser.error(f"--peers: no peer named {', '.join(unknown)} (the peers: {', '.join(PEERS)})")

    load_before = os.getloadavg()[0]
    records, peers = run_passes(args)
    results = build_results(records, peers, args)
    results["load_average"] = {"before": load_before, "after": os.getloadavg()[0]}
    os.makedirs(args.output_dir, exist_ok=True)
    with open(os.path.join(args.output_dir, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    text = markdown(results)
    with open(os.path.join(args.output_dir, "results.md"), "w") as f:
        f.write(text)
    charted = chart(results, os.path.join(args.output_dir, "chart.png"))
    print(text)
    log(f"wrote {args.output_dir}/results.md, results.json" + (", chart.png" if charted else "; no chart"))


if __name__ == "__main__":
    main()
