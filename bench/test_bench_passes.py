"""bench.py's combining of alternating passes, on synthetic records: each
system's figure is the median of its passes' medians, the triad and the FMA
peak the best pass's; peers.py's check of a peer's output against numpy's.
No timing is measured. Run by CTest (bench_py_passes) with the build's
Python."""

import importlib.util
import os
import subprocess
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench  # noqa: E402


class QuickArgs:
    """bench.py's arguments, as build_results reads them."""
    quick, runs, passes, source = True, 2, 3, "test"


def fuse_pass(triad, triad_end, peak, fused_ms, kernel_ms, unfused_ms=None):
    machine = {"record": "machine", "cpu": "test", "cores": 2, "target": "t", "triad_gbps": triad,
               "triad_median_gbps": triad - 1, "triad_plain_stores_gbps": triad / 2, "triad_array_mib": 16,
               "fma_peak_gflops": peak, "fma_peak_median_gflops": peak - 1}
    fused = {"kernels": 2, "compile_ms": 5.0, "compile_ms_per_kernel": 2.5, "run_ms_median": fused_ms,
             "run_ms_min": fused_ms * 0.9, "gbps": 8.0 / fused_ms, "gflops": 20.0 / fused_ms,
             "kernel_ms": [{"name": "fuse_k0_pack", "ms": 1.0, "per_binding": True},
                           {"name": "fuse_k0_matmul", "ms": kernel_ms, "per_binding": False}]}
    unfused = None if unfused_ms is None else {"kernels": 5, "compile_ms": 9.0, "compile_ms_per_kernel": 1.8,
                                               "run_ms_median": unfused_ms, "run_ms_min": unfused_ms,
                                               "gbps": 8.0 / unfused_ms}
    workload = {"record": "workload", "name": "matmul_bias_relu", "title": "relu(x@W+b)", "bound": "compute",
                "bytes": 8e6, "flops": 20e9, "input_shapes": [[2, 2], [2, 2], [2]], "params": {},
                "fused": fused, "unfused": unfused, "status": "ok"}
    return [machine, workload, {"record": "done", "failures": 0, "triad_end_gbps": triad_end}]


class CombineFusePasses(unittest.TestCase):
    def setUp(self):
        self.records = bench.combine_fuse_passes([
            fuse_pass(40.0, 38.0, 400.0, fused_ms=3.0, kernel_ms=2.9, unfused_ms=9.0),
            fuse_pass(44.0, 46.0, 380.0, fused_ms=1.0, kernel_ms=0.9, unfused_ms=5.0),
            fuse_pass(30.0, 35.0, 410.0, fused_ms=2.0, kernel_ms=1.9, unfused_ms=7.0),
        ])
        self.machine = self.records[0]
        self.workload = self.records[1]

    def test_best_triad_and_peak(self):
        self.assertEqual(self.machine["triad_gbps"], 44.0)
        self.assertEqual(self.machine["fma_peak_gflops"], 410.0)
        self.assertEqual(self.records[2]["triad_end_gbps"], 46.0)
        self.assertEqual(len(self.machine["passes"]), 3)

    def test_median_of_medians(self):
        fused = self.workload["fused"]
        self.assertEqual(fused["run_ms_median"], 2.0)
        self.assertEqual(fused["run_ms_pass_medians"], [3.0, 1.0, 2.0])
        self.assertEqual((fused["run_ms_pass_min"], fused["run_ms_pass_max"]), (1.0, 3.0))
        self.assertAlmostEqual(fused["run_ms_min"], 0.9)
        self.assertAlmostEqual(fused["gbps"], 4.0)  # 8 MB in 2 ms
        self.assertAlmostEqual(fused["gflops"], 10.0)
        self.assertAlmostEqual(fused["pct_peak"], 100 * 10.0 / 410.0)
        self.assertEqual([k["ms"] for k in fused["kernel_ms"]], [1.0, 1.9])
        self.assertEqual(self.workload["unfused"]["run_ms_median"], 7.0)

    def test_report_uses_combined_figures(self):
        peers = {"numpy": bench.combine_peer_passes([
            {"status": "ok", "results": {"matmul_bias_relu": {"run_ms_median": 8.0, "run_ms_min": 7.0}}},
            {"status": "ok", "results": {"matmul_bias_relu": {"run_ms_median": 4.0, "run_ms_min": 3.5}}},
            {"status": "ok", "results": {"matmul_bias_relu": {"run_ms_median": 6.0, "run_ms_min": 6.0}}},
        ])}

        results = bench.build_results(self.records, peers, QuickArgs)
        results["load_average"] = {"before": 0.0, "after": 0.0}
        entry = results["workloads"][0]
        self.assertEqual(results["machine"]["triad_gbps"], 46.0)  # the best end triad is higher
        self.assertEqual(entry["peers"]["numpy"]["run_ms_median"], 6.0)
        self.assertEqual(entry["peers"]["numpy"]["run_ms_pass_medians"], [8.0, 4.0, 6.0])
        self.assertAlmostEqual(entry["ratio"]["numpy"], 3.0)
        text = bench.markdown(results)
        self.assertIn("3 alternating passes (in each, workload by workload: Fuse, then each peer, in turn, back to back), "
                      "the median of the passes' medians", text)
        self.assertIn("**matmul_bias_relu**", text)
        self.assertIn("Fastest peer: numpy, 6 ms (Fuse 3.00x faster)", text)


class CombineUnevenPasses(unittest.TestCase):
    def test_a_workload_missing_from_the_first_pass_is_kept(self):
        first = fuse_pass(40.0, 38.0, 400.0, fused_ms=3.0, kernel_ms=2.9)
        del first[1]  # fuse-bench failed on it in pass 1
        second = fuse_pass(44.0, 46.0, 380.0, fused_ms=1.0, kernel_ms=0.9)
        records = bench.combine_fuse_passes([first, second])
        self.assertEqual([r["record"] for r in records], ["machine", "workload", "done"])
        self.assertEqual(records[1]["fused"]["run_ms_median"], 1.0)
        self.assertEqual(records[1]["fused"]["passes"], 1)


class NearTriad(unittest.TestCase):
    """A memory-bound workload's % is of the triad measured just before it
    in each pass, the median over passes, not of the run's best triad."""

    def test_percent_of_the_near_triad(self):
        passes = []
        for triad, near, fused_ms in ((64.0, 40.0, 2.0), (45.0, 50.0, 1.0), (64.0, 44.0, 4.0)):
            records = fuse_pass(triad, 45.0, 400.0, fused_ms=fused_ms, kernel_ms=fused_ms)
            records[1].update(name="softmax", bound="transcendental", triad_near_gbps=near)
            passes.append(records)
        records = bench.combine_fuse_passes(passes)
        workload = records[1]
        # gbps per pass: 8 / ms = 4, 8, 2 GB/s; of 40, 50, 44: 10%, 16%, 4.5%.
        self.assertAlmostEqual(workload["pct_triad_near"], 10.0)
        self.assertEqual(workload["triad_near_gbps"], 44.0)

        results = bench.build_results(records, {}, QuickArgs)
        entry = results["workloads"][0]
        self.assertEqual(results["machine"]["triad_gbps"], 64.0)
        self.assertAlmostEqual(entry["fuse"]["pct_triad"], 10.0)
        self.assertEqual(entry["triad_gbps"], 44.0)
        results["load_average"] = {"before": 0.0, "after": 0.0}
        self.assertIn("of the triad measured just before it (44.0 GB/s)", bench.markdown(results))
        self.assertNotIn("read-only loop", bench.markdown(results))

    def test_percent_of_the_near_read_loop(self):
        """A workload that mostly reads is also shown against a read-only
        loop measured just before it, the median of the passes' %."""
        passes = []
        for near, read, fused_ms in ((40.0, 32.0, 2.0), (50.0, 40.0, 1.0), (44.0, 5.0, 4.0)):
            records = fuse_pass(64.0, 45.0, 400.0, fused_ms=fused_ms, kernel_ms=fused_ms)
            records[1].update(name="sum", bound="bandwidth", triad_near_gbps=near, read_near_gbps=read)
            passes.append(records)
        records = bench.combine_fuse_passes(passes)
        # gbps per pass: 4, 8, 2 GB/s; of reads 32, 40, 5: 12.5%, 20%, 40%.
        self.assertAlmostEqual(records[1]["pct_read_near"], 20.0)
        self.assertEqual(records[1]["read_near_gbps"], 32.0)

        results = bench.build_results(records, {}, QuickArgs)
        entry = results["workloads"][0]
        self.assertAlmostEqual(entry["fuse"]["pct_read"], 20.0)
        self.assertAlmostEqual(entry["fuse"]["pct_triad"], 10.0)
        results["load_average"] = {"before": 0.0, "after": 0.0}
        self.assertIn("20% of a read-only loop measured just before it (32.0 GB/s", bench.markdown(results))


class PairedTriad(unittest.TestCase):
    """Where fuse-bench paired each run with a triad pass of its own, Fuse's %
    (the target's) is the median over passes of each pass's paired figure,
    the near triad's % kept beside it; a read-bound one's read % likewise."""

    def test_percent_of_the_paired_triad(self):
        passes = []
        for near, paired, read, fused_ms in ((40.0, 91.0, 101.0, 2.0), (50.0, 70.0, 99.0, 1.0),
                                             (44.0, 88.0, 97.0, 4.0)):
            records = fuse_pass(64.0, 45.0, 400.0, fused_ms=fused_ms, kernel_ms=fused_ms)
            records[1].update(name="sum", bound="bandwidth", triad_near_gbps=near, read_near_gbps=near,
                              paired={"runs": 20, "gbps_median": 30.0, "triad_median_gbps": near + 1,
                                      "pct_triad": paired, "read_median_gbps": near - 1, "pct_read": read})
            passes.append(records)
        records = bench.combine_fuse_passes(passes)
        workload = records[1]
        self.assertEqual(workload["pct_triad_paired_passes"], [91.0, 70.0, 88.0])
        self.assertEqual(workload["pct_triad_paired"], 88.0)
        self.assertEqual(workload["triad_paired_gbps"], 45.0)
        self.assertEqual(workload["pct_read_paired"], 99.0)

        results = bench.build_results(records, {}, QuickArgs)
        entry = results["workloads"][0]
        self.assertEqual(entry["fuse"]["pct_triad"], 88.0)
        # The near triad's %: 4, 8, 2 GB/s of 40, 50, 44.
        self.assertAlmostEqual(entry["fuse"]["pct_triad_near"], 10.0)
        self.assertEqual(entry["fuse"]["pct_read"], 99.0)
        self.assertEqual(entry["read_gbps"], 43.0)
        results["load_average"] = {"before": 0.0, "after": 0.0}
        text = bench.markdown(results)
        self.assertIn("in its timed runs (10% of the triad measured once before them, 44.0 GB/s); run again, each "
                      "run just after a triad pass of its own (cold caches), 30.0 GB/s, 88% of the triad paired "
                      "with each run (median 45.0 GB/s)", text)
        self.assertIn("99% of a read-only loop paired with each run", text)
        self.assertIn("sum: 88% (target >= 90%: not met)", text)


class CombinePeerPasses(unittest.TestCase):
    def test_errors_and_missing(self):
        merged = bench.combine_peer_passes([
            {"status": "ok", "info": {"version": "1"}, "results": {"a": {"error": "boom"}, "b": {"error": "x"}}},
            {"status": "error", "detail": "exit 1"},
            {"status": "ok", "info": {"version": "2"}, "results": {"a": {"run_ms_median": 2.0, "run_ms_min": 1.0},
                                                                   "b": {"error": "y"}}},
        ])
        self.assertEqual(merged["info"]["version"], "1")
        self.assertEqual(merged["info"]["failed_passes"], ["exit 1"])
        self.assertEqual(merged["results"]["a"]["run_ms_median"], 2.0)
        self.assertEqual(merged["results"]["a"]["failed_passes"], ["boom"])
        self.assertEqual(merged["results"]["b"], {"error": "x"})
        missing = {"status": "not installed", "detail": "jax not installed"}
        self.assertEqual(bench.combine_peer_passes([missing, missing]), missing)

    def test_dotted_module_of_a_missing_package(self):
        self.assertTrue(bench.module_missing("no_such_package_for_fuse.compiler"))


class PairedRatio(unittest.TestCase):
    """A peer's ratio is the median over passes of its time over Fuse's in the
    same pass, not the ratio of the two medians; passes where either did not
    run are left out; unaligned passes fall back to the medians."""

    def test_ratio_pass_by_pass(self):
        passes = [fuse_pass(64.0, 45.0, 400.0, fused_ms=ms, kernel_ms=ms) for ms in (7.4, 4.3, 7.9)]
        records = bench.combine_fuse_passes(passes)
        self.assertEqual(records[1]["fused"]["run_ms_by_pass"], [7.4, 4.3, 7.9])
        peer = bench.combine_peer_passes([
            {"status": "ok", "results": {records[1]["name"]: {"run_ms_median": 4.4, "run_ms_min": 4.0}}},
            {"status": "ok", "results": {records[1]["name"]: {"run_ms_median": 4.3, "run_ms_min": 4.0}}},
            {"status": "ok", "results": {records[1]["name"]: {"run_ms_median": 8.4, "run_ms_min": 8.0}}},
        ])
        results = bench.build_results(records, {"torch": peer}, QuickArgs)
        entry = results["workloads"][0]
        # Pass by pass: 4.4/7.4, 4.3/4.3, 8.4/7.9; the medians' ratio would be 4.4/7.4.
        self.assertAlmostEqual(entry["ratio"]["torch"], 1.0)
        self.assertEqual(len(entry["peers"]["torch"]["ratio_passes"]), 3)

        # A pass the peer failed is left out of the pairs.
        ratio, by_pass = bench.paired_ratio({"run_ms_median": 4.0, "run_ms_by_pass": [None, 4.0, 9.0]},
                                            {"run_ms_median": 7.0, "run_ms_by_pass": [7.0, 2.0, 3.0]})
        self.assertEqual(by_pass, [2.0, 3.0])
        self.assertEqual(ratio, 2.5)
        # Passes that do not line up: the medians.
        ratio, by_pass = bench.paired_ratio({"run_ms_median": 4.0, "run_ms_by_pass": [4.0, 9.0]},
                                            {"run_ms_median": 2.0, "run_ms_by_pass": [7.0, 2.0, 3.0]})
        self.assertIsNone(by_pass)
        self.assertEqual(ratio, 2.0)


class MergeInvocations(unittest.TestCase):
    """A pass run a workload at a time: one run's records."""

    def test_one_run_of_the_invocations(self):
        first = fuse_pass(40.0, 38.0, 400.0, fused_ms=3.0, kernel_ms=2.9)
        first.insert(2, {"record": "lazy", "ops": 1000})
        second = fuse_pass(44.0, 36.0, 380.0, fused_ms=1.0, kernel_ms=0.9)
        second[1] = dict(second[1], name="other")
        second[2] = dict(second[2], failures=1)
        records = bench.merge_invocations([first, second, [{"record": "done", "triad_end_gbps": 50.0}]])
        self.assertEqual([r["record"] for r in records], ["machine", "workload", "lazy", "workload", "done"])
        self.assertEqual([r["name"] for r in records if r["record"] == "workload"], ["matmul_bias_relu", "other"])
        # The pass's yardsticks as one run measures them: the machine as it
        # starts (not the best of its invocations), the end triad as it ends.
        self.assertEqual(records[0]["triad_gbps"], 40.0)
        self.assertEqual(records[0]["fma_peak_gflops"], 400.0)
        self.assertEqual(records[-1]["triad_end_gbps"], 36.0)
        self.assertEqual(records[-1]["failures"], 1)
        self.assertEqual(bench.merge_invocations([[{"record": "done"}]]), [])
        # The later runs of a pass measure no machine (--no-machine); a pass
        # whose first run failed has none.
        later = fuse_pass(0, 36.0, 0, fused_ms=1.0, kernel_ms=0.9)
        later[0] = {"record": "machine", "cpu": "test", "cores": 2, "target": "t"}
        self.assertEqual(bench.merge_invocations([[{"record": "done"}], later]), [])
        self.assertEqual(bench.merge_invocations([first, later])[0]["triad_gbps"], 40.0)


# A peers.py --serve stand-in: answers each spec's workload with its length
# in ms (printing a line of its own first, with a byte that is not UTF-8);
# exits on "crash"; answers and then exits on "last"; hangs on "hang", and
# on "orphan" after starting a child that holds its stdout.
FAKE_PEER = """
import json, subprocess, sys, time
for line in sys.stdin:
    name = json.loads(line)["workloads"][0]["name"]
    if name == "crash":
        sys.stderr.write("boom\\n")
        sys.exit(3)
    if name == "orphan":
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    if name in ("hang", "orphan"):
        time.sleep(60)
    sys.stdout.buffer.write(b"a library's own output \\xff\\n")
    sys.stdout.flush()
    print(json.dumps({"peer": "fake", "info": {"v": 1, "compile_ms": {name: 1}},
                      "results": {name: {"run_ms_median": len(name), "run_ms_min": 1}}}), flush=True)
    if name == "last":
        sys.exit(0)
"""


def spec(name):
    return {"warmup": 1, "runs": 1, "verify": False, "workloads": [{"name": name, "input_shapes": [], "params": {}}]}


def process_state(pid, wanted="T"):
    """The state letter of /proc/PID/stat (T: stopped), once it is `wanted`
    or after 5 s (a signal takes effect a moment after it is sent)."""
    deadline = time.monotonic() + 5
    while True:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        if state == wanted or time.monotonic() > deadline:
            return state
        time.sleep(0.01)


class PeerServerRequests(unittest.TestCase):
    def test_answers_crashes_and_timeouts(self):
        server = bench.PeerServer("fake", timeout_s=3, command=[sys.executable, "-c", FAKE_PEER])
        try:
            self.assertEqual(server.request(spec("gelu")), {"run_ms_median": 4, "run_ms_min": 1})
            first = server.process
            self.assertEqual(process_state(first.pid), "T")  # stopped between requests
            self.assertEqual(server.request(spec("sum"))["run_ms_median"], 3)
            self.assertIs(server.process, first)  # one process for the pass
            crashed = server.request(spec("crash"))
            self.assertEqual(crashed, {"error": "exit 3: boom"})
            self.assertEqual(server.request(spec("softmax"))["run_ms_median"], 7)  # started again
            self.assertEqual(server.request(spec("hang")), {"error": "timed out after 3 s"})
            self.assertEqual(server.request(spec("last"))["run_ms_median"], 4)
            self.assertEqual(server.request(spec("mlp"))["run_ms_median"], 3)  # after it exited
        finally:
            server.stop()
        result = server.pass_result({"gelu": {"run_ms_median": 4, "run_ms_min": 1}})
        self.assertEqual(result["status"], "ok")
        self.assertEqual(result["info"],
                         {"v": 1, "compile_ms": {"gelu": 1, "sum": 1, "softmax": 1, "last": 1, "mlp": 1}})

    def test_a_timeout_kills_the_workers_too(self):
        server = bench.PeerServer("fake", timeout_s=3, command=[sys.executable, "-c", FAKE_PEER])
        start = time.monotonic()
        self.assertEqual(server.request(spec("orphan")), {"error": "timed out after 3 s"})
        self.assertLess(time.monotonic() - start, 30)  # not the child's 60 s
        server.stop()

    def test_a_peer_that_never_answers(self):
        server = bench.PeerServer("fake", timeout_s=3, command=[sys.executable, "-c", "import sys; sys.exit(5)"])
        answer = server.request(spec("gelu"))
        server.stop()
        self.assertTrue(answer["error"].startswith("exit 5"), answer)
        self.assertEqual(server.pass_result({"gelu": answer})["status"], "error")


class CommandLine(unittest.TestCase):
    def test_unknown_peer_is_an_error(self):
        run = subprocess.run([sys.executable, os.path.join(HERE, "bench.py"), "--peers", "onnxruntime,torch_compile",
                              "--fuse-bench", "/nonexistent/fuse-bench"], capture_output=True, text=True)
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("--peers: no peer named torch_compile", run.stderr)
        self.assertIn("torch.compile", run.stderr)


@unittest.skipIf(importlib.util.find_spec("numpy") is None, "numpy not installed")
class VerifyOutput(unittest.TestCase):
    def test_mismatch_is_reported(self):
        import numpy as np

        import peers

        inputs = peers.random_inputs([[4, 8]])
        good = peers.reference_output("softmax", inputs, {})
        self.assertIsNone(peers.verify_output("softmax", inputs, {}, good + 1e-6))
        wrong = peers.verify_output("softmax", inputs, {}, good + np.float32(0.01))
        self.assertTrue(wrong.startswith("wrong result: max abs diff 0.01"), wrong)
        self.assertIn("shape", peers.verify_output("softmax", inputs, {}, good[:2]))


if __name__ == "__main__":
    unittest.main(verbosity=2)
