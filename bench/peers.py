"""The benchmark workloads in numpy, PyTorch (eager and torch.compile),
onnxruntime, OpenVINO, IREE and JAX, on the shapes fuse-bench reports, timed the same way: inputs
made once, the median of N calls after warm-up, each call producing its
outputs in new memory as the library does by default.

The `-cuda` peers run PyTorch on the GPU (the GPU check, bench/gpu/run.sh),
timed with CUDA events.

Run as `python3 peers.py PEER SPEC.json` in a process of its own (so that
numpy can run with the environment its benchmark needs, and a peer that
crashes takes nothing else with it); prints one JSON object. With
`python3 peers.py PEER --serve` it reads one spec per line on stdin and
answers each with one JSON object on a line of its own, importing the peer's
libraries once: bench.py's passes send one workload at a time, so that each
workload runs on Fuse and on every peer back to back.
"""

import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

EPS_LAYERNORM = 1e-5
EPS_ENCODER = 1e-12


def random_inputs(shapes, seed=0):
    import numpy as np

    rng = np.random.default_rng(seed)
    inputs = []
    for shape in shapes:
        magnitude = rng.uniform(0.125, 2.0, size=shape).astype(np.float32)
        sign = np.where(rng.random(size=shape) < 0.5, -1.0, 1.0).astype(np.float32)
        inputs.append(np.ascontiguousarray(magnitude * sign))
    return inputs


# Warm-up and timed calls each continue past their counts until this much
# time has passed (at most 100 times the count), as fuse-bench does: 20 calls
# of 0.1 ms are too few for a stable median on a shared VM.
MIN_PHASE_S = 0.2


def time_calls(call, warmup, runs):
    start = time.perf_counter()
    done = 0
    while done < warmup or (done < 100 * warmup and time.perf_counter() - start < MIN_PHASE_S):
        call()
        done += 1
    times = []
    phase = time.perf_counter()
    while len(times) < runs or (len(times) < 100 * runs and time.perf_counter() - phase < MIN_PHASE_S):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), min(times)


# A new peer's output is compared with numpy's once per workload before it is
# timed (spec["verify"]): max |peer - numpy| <= VERIFY_TOLERANCE x max(1,
# max |numpy|). f32 sums in another order and other tanh/exp approximations
# stay far below it; a wrong graph does not.
VERIFY_TOLERANCE = 1e-3


def reference_output(name, inputs, params):
    return numpy_workloads()[name](*inputs, **params)


def verify_output(name, inputs, params, output):
    """None when `output` matches numpy's, else why not."""
    import numpy as np

    expected = np.asarray(reference_output(name, inputs, params), dtype=np.float32)
    actual = np.asarray(output, dtype=np.float32)
    if actual.shape != expected.shape:
        return f"wrong result: shape {list(actual.shape)}, numpy's {list(expected.shape)}"
    diff = float(np.max(np.abs(actual - expected))) if expected.size else 0.0
    limit = VERIFY_TOLERANCE * max(1.0, float(np.max(np.abs(expected))) if expected.size else 1.0)
    if not diff <= limit:
        return f"wrong result: max abs diff {diff:.3g} against numpy (tolerance {limit:.3g})"
    return None


def checked_timing(spec, workload, inputs, call, result):
    """time_calls(call), after comparing result(call()) with numpy's output
    when spec["verify"] asks; an error entry on a mismatch."""
    if spec.get("verify"):
        wrong = verify_output(workload["name"], inputs, workload["params"], result(call()))
        if wrong:
            return {"error": wrong}
    return time_calls(call, spec["warmup"], spec["runs"])


def error_entry(error):
    """A peer's failure on one workload, reported in its place: the first
    line of the message that says "error", else its first line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()] or [""]
    line = next((line for line in lines if "error" in line.lower()), lines[0])
    return {"error": f"{type(error).__name__}: {line[:200]}"}


def workload_table(mul_add_row, gelu, softmax, layernorm, total, column_sum, matmul_bias_relu, mlp, encoder_layer):
    """A peer's functions by the names of bench/Workloads.cpp's workloads
    (every size of matmul_bias_relu runs the one function)."""
    table = {
        "mul_add_row": mul_add_row,
        "gelu": gelu,
        "softmax": softmax,
        "layernorm": layernorm,
        "sum": total,
        "column_sum": column_sum,
    }
    for size in ("", "_2048", "_4096", "_128x256x256", "_128x256x1024", "_512x768x3072"):
        table["matmul_bias_relu" + size] = matmul_bias_relu
    table.update(mlp=mlp, encoder_layer=encoder_layer)
    return table


# ---------------------------------------------------------------- numpy


def array_workloads(xp):
    """The workloads in `xp`, numpy or jax.numpy (the same code: the same
    math op for op)."""

    def mul_add_row(a, b, c):
        return a * b + c

    def gelu(x):
        return 0.5 * x * (1.0 + xp.tanh(xp.float32(0.7978845608) * (x + xp.float32(0.044715) * x * x * x)))

    def softmax(x):
        e = xp.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    def layernorm(x, g, b, eps=EPS_LAYERNORM):
        mean = x.mean(axis=-1, keepdims=True)
        d = x - mean
        var = (d * d).mean(axis=-1, keepdims=True)
        return d / xp.sqrt(var + xp.float32(eps)) * g + b

    def total(x):
        return x.sum()

    def column_sum(x):
        return x.sum(axis=0)

    def matmul_bias_relu(x, w, b):
        return xp.maximum(x @ w + b, xp.float32(0))

    def mlp(x, w1, b1, w2, b2):
        return xp.maximum(x @ w1 + b1, xp.float32(0)) @ w2 + b2

    def encoder_layer(x, mask, wq, bq, wk, bk, wv, bv, wo, bo, g1, be1, w1, b1, w2, b2, g2, be2, heads):
        s, h = x.shape
        d = h // heads

        def split(t):
            return t.reshape(s, heads, d).transpose(1, 0, 2)

        q, k, v = split(x @ wq + bq), split(x @ wk + bk), split(x @ wv + bv)
        scores = q @ k.transpose(0, 2, 1) * xp.float32(1 / math.sqrt(d)) + mask
        p = softmax(scores)
        o = (p @ v).transpose(1, 0, 2).reshape(s, h)
        y = layernorm(o @ wo + bo + x, g1, be1, EPS_ENCODER)
        f = gelu(y @ w1 + b1) @ w2 + b2 + y
        return layernorm(f, g2, be2, EPS_ENCODER)

    return workload_table(mul_add_row, gelu, softmax, layernorm, total, column_sum, matmul_bias_relu, mlp, encoder_layer)


def numpy_workloads():
    import numpy as np

    return array_workloads(np)


def run_numpy(spec):
    import numpy as np

    info = {"version": np.__version__}
    try:
        from threadpoolctl import threadpool_info

        info["blas"] = [
            {k: p.get(k) for k in ("internal_api", "version", "architecture", "num_threads")}
            for p in threadpool_info()
        ]
    except ImportError:
        info["blas"] = "threadpoolctl not installed"
    functions = numpy_workloads()
    results = {}
    for workload in spec["workloads"]:
        inputs = random_inputs(workload["input_shapes"])
        fn, params = functions[workload["name"]], workload["params"]
        results[workload["name"]] = time_calls(lambda: fn(*inputs, **params), spec["warmup"], spec["runs"])
    return info, results


# ---------------------------------------------------------------- torch


def torch_workloads(primitive):
    """Eager uses torch's own fused ops where it has them (F.gelu,
    torch.softmax, F.layer_norm, addmm): the best eager PyTorch. The
    primitive forms are the graphs as written, for torch.compile."""
    import torch
    import torch.nn.functional as F

    def mul_add_row(a, b, c):
        return a * b + c

    def gelu(x):
        if not primitive:
            return F.gelu(x, approximate="tanh")
        return 0.5 * x * (1.0 + torch.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))

    def softmax(x):
        if not primitive:
            return torch.softmax(x, dim=-1)
        e = torch.exp(x - x.amax(dim=-1, keepdim=True))
        return e / e.sum(dim=-1, keepdim=True)

    def layernorm(x, g, b, eps=EPS_LAYERNORM):
        if not primitive:
            return F.layer_norm(x, (x.shape[-1],), g, b, eps)
        mean = x.mean(dim=-1, keepdim=True)
        d = x - mean
        var = (d * d).mean(dim=-1, keepdim=True)
        return d * torch.rsqrt(var + eps) * g + b

    def total(x):
        return x.sum()

    def column_sum(x):
        return x.sum(dim=0)

    def matmul_bias_relu(x, w, b):
        return torch.relu(torch.addmm(b, x, w))

    def mlp(x, w1, b1, w2, b2):
        return torch.addmm(b2, torch.relu(torch.addmm(b1, x, w1)), w2)

    def encoder_layer(x, mask, wq, bq, wk, bk, wv, bv, wo, bo, g1, be1, w1, b1, w2, b2, g2, be2, heads):
        s, h = x.shape
        d = h // heads

        def split(t):
            return t.reshape(s, heads, d).transpose(0, 1)

        q, k, v = split(torch.addmm(bq, x, wq)), split(torch.addmm(bk, x, wk)), split(torch.addmm(bv, x, wv))
        p = softmax(q @ k.transpose(1, 2) * (1 / math.sqrt(d)) + mask)
        o = (p @ v).transpose(0, 1).reshape(s, h)
        y = layernorm(torch.addmm(bo, o, wo) + x, g1, be1, EPS_ENCODER)
        f = torch.addmm(b2, gelu(torch.addmm(b1, y, w1)), w2) + y
        return layernorm(f, g2, be2, EPS_ENCODER)

    return workload_table(mul_add_row, gelu, softmax, layernorm, total, column_sum, matmul_bias_relu, mlp, encoder_layer)


def time_calls_cuda(call, input_sets, warmup, runs):
    """CUDA events around each call, cycling through copies of the inputs so
    that L2 does not hold them."""
    import torch

    for r in range(warmup):
        call(input_sets[r % len(input_sets)])
    torch.cuda.synchronize()
    times = []
    for r in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        call(input_sets[r % len(input_sets)])
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times), min(times)


def run_torch(spec, compiled, device="cpu"):
    import torch

    torch.set_num_threads(os.cpu_count())
    info = {"version": torch.__version__, "threads": torch.get_num_threads(), "device": device}
    if device == "cuda":
        if not torch.cuda.is_available():
            raise SystemExit("no CUDA device for PyTorch")
        info["gpu"] = torch.cuda.get_device_name(0)
    functions = torch_workloads(primitive=compiled)
    results = {}
    for workload in spec["workloads"]:
        inputs = [torch.from_numpy(a).to(device) for a in random_inputs(workload["input_shapes"])]
        fn, params = functions[workload["name"]], workload["params"]
        if compiled:
            fn = torch.compile(fn, dynamic=False)
        try:
            with torch.inference_mode():
                if compiled:
                    start = time.perf_counter()
                    fn(*inputs, **params)
                    info.setdefault("compile_ms", {})[workload["name"]] = (time.perf_counter() - start) * 1e3
                if device == "cuda":
                    # At least 512 MiB of inputs in turn, as fuse-gpu-bench.
                    size = sum(t.numel() * 4 for t in inputs)
                    copies = max(1, min(16, -(-(512 << 20) // size)))
                    sets = [inputs] + [[t.clone() for t in inputs] for _ in range(copies - 1)]
                    results[workload["name"]] = time_calls_cuda(
                        lambda xs: fn(*xs, **params), sets, spec["warmup"], spec["runs"]
                    )
                else:
                    results[workload["name"]] = checked_timing(
                        spec, workload, [t.numpy() for t in inputs], lambda: fn(*inputs, **params), lambda out: out.numpy()
                    )
        except Exception as error:  # a peer that fails is reported, not fatal
            results[workload["name"]] = error_entry(error)
    return info, results


# ---------------------------------------------------------------- onnxruntime


def onnx_model(name, shapes, params):
    """The workload as an ONNX graph of standard ops (opset 17)."""
    from onnx import TensorProto, helper
    import numpy as np

    nodes, inits = [], []
    counter = [0]

    def const(value):
        counter[0] += 1
        tensor_name = f"c{counter[0]}"
        array = np.asarray(value)
        dtype = TensorProto.INT64 if array.dtype.kind == "i" else TensorProto.FLOAT
        inits.append(helper.make_tensor(tensor_name, dtype, array.shape, array.flatten().tolist()))
        return tensor_name

    def op(kind, *operands, **attrs):
        counter[0] += 1
        result = f"t{counter[0]}"
        nodes.append(helper.make_node(kind, list(operands), [result], **attrs))
        return result

    def gelu(x):
        x3 = op("Mul", op("Mul", x, x), x)
        inner = op("Mul", op("Add", x, op("Mul", x3, const(np.float32(0.044715)))), const(np.float32(0.7978845608)))
        return op("Mul", op("Mul", x, const(np.float32(0.5))), op("Add", op("Tanh", inner), const(np.float32(1.0))))

    def softmax(x):
        return op("Softmax", x, axis=-1)

    def layernorm(x, g, b, eps):
        return op("LayerNormalization", x, g, b, axis=-1, epsilon=eps)

    names = [f"in{i}" for i in range(len(shapes))]
    x = names[0]
    if name == "mul_add_row":
        y = op("Add", op("Mul", names[0], names[1]), names[2])
    elif name == "gelu":
        y = gelu(x)
    elif name == "softmax":
        y = softmax(x)
    elif name == "layernorm":
        y = layernorm(x, names[1], names[2], EPS_LAYERNORM)
    elif name == "sum":
        y = op("ReduceSum", x, keepdims=0)
    elif name == "column_sum":
        y = op("ReduceSum", x, const(np.array([0], dtype=np.int64)), keepdims=0)
    elif name.startswith("matmul_bias_relu"):
        y = op("Relu", op("Add", op("MatMul", names[0], names[1]), names[2]))
    elif name == "mlp":
        h = op("Relu", op("Add", op("MatMul", names[0], names[1]), names[2]))
        y = op("Add", op("MatMul", h, names[3]), names[4])
    elif name == "encoder_layer":
        (x, mask, wq, bq, wk, bk, wv, bv, wo, bo, g1, be1, w1, b1, w2, b2, g2, be2) = names
        s, h = shapes[0]
        heads = params["heads"]
        d = h // heads

        def split(t):
            return op("Transpose", op("Reshape", t, const(np.array([s, heads, d], dtype=np.int64))), perm=[1, 0, 2])

        q = split(op("Add", op("MatMul", x, wq), bq))
        k = split(op("Add", op("MatMul", x, wk), bk))
        v = split(op("Add", op("MatMul", x, wv), bv))
        scores = op("Mul", op("MatMul", q, op("Transpose", k, perm=[0, 2, 1])), const(np.float32(1 / math.sqrt(d))))
        p = softmax(op("Add", scores, mask))
        o = op("Reshape", op("Transpose", op("MatMul", p, v), perm=[1, 0, 2]), const(np.array([s, h], dtype=np.int64)))
        hres = op("Add", op("Add", op("MatMul", o, wo), bo), x)
        ynorm = layernorm(hres, g1, be1, EPS_ENCODER)
        f = op("Add", op("Add", op("MatMul", gelu(op("Add", op("MatMul", ynorm, w1), b1)), w2), b2), ynorm)
        y = layernorm(f, g2, be2, EPS_ENCODER)
    else:
        raise ValueError(f"no ONNX form of {name}")
    nodes[-1].output[0] = "out"
    graph = helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(s)) for n, s in zip(names, shapes)],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)],
        initializer=inits,
    )
    del y
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def run_onnxruntime(spec):
    import onnxruntime as ort

    info = {"version": ort.__version__}
    results = {}
    for workload in spec["workloads"]:
        try:
            model = onnx_model(workload["name"], workload["input_shapes"], workload["params"])
            options = ort.SessionOptions()
            options.intra_op_num_threads = os.cpu_count()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
            inputs = random_inputs(workload["input_shapes"])
            feed = {f"in{i}": a for i, a in enumerate(inputs)}
            results[workload["name"]] = checked_timing(
                spec, workload, inputs, lambda: session.run(None, feed), lambda out: out[0]
            )
        except Exception as error:
            results[workload["name"]] = error_entry(error)
    return info, results


def run_openvino(spec):
    """OpenVINO on the CPU in f32 (INFERENCE_PRECISION_HINT): its default on
    a CPU with AVX-512 BF16 or AMX is bf16, which is other math. Latency
    hint, all cores, one infer request reused (its output tensors are
    allocated once)."""
    import openvino as ov

    core = ov.Core()
    info = {"version": ov.get_version(), "precision": "f32"}
    config = {
        "INFERENCE_PRECISION_HINT": "f32",
        "PERFORMANCE_HINT": "LATENCY",
        "INFERENCE_NUM_THREADS": os.cpu_count(),
    }
    results = {}
    for workload in spec["workloads"]:
        try:
            model = onnx_model(workload["name"], workload["input_shapes"], workload["params"])
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "model.onnx")
                with open(path, "wb") as f:
                    f.write(model.SerializeToString())
                compiled = core.compile_model(core.read_model(path), "CPU", config)
            request = compiled.create_infer_request()
            inputs = random_inputs(workload["input_shapes"])
            feed = {f"in{i}": a for i, a in enumerate(inputs)}
            results[workload["name"]] = checked_timing(
                spec, workload, inputs, lambda: request.infer(feed), lambda out: next(iter(out.values()))
            )
        except Exception as error:
            results[workload["name"]] = error_entry(error)
    return info, results


# ---------------------------------------------------------------- IREE

# llvm-cpu for this processor, data tiling on (matmuls in packed tiles) and
# every micro-kernel (mmt4d, pack, unpack) the backend has.
IREE_COMPILE_FLAGS = [
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
    "--iree-opt-data-tiling=true",
    "--iree-llvmcpu-enable-ukernels=all",
]


def iree_module(name, shapes, params, folder):
    """The workload's ONNX graph (onnx_model, as onnxruntime and OpenVINO
    run it) through IREE's ONNX importer and iree-compile; a .vmfb."""
    import onnx
    from iree import compiler

    # The importer wants every value's shape, the output's included.
    model = onnx.shape_inference.infer_shapes(onnx_model(name, shapes, params), strict_mode=True)
    onnx_path, mlir_path = os.path.join(folder, "model.onnx"), os.path.join(folder, "model.mlir")
    with open(onnx_path, "wb") as f:
        f.write(model.SerializeToString())
    done = subprocess.run(
        [sys.executable, "-m", "iree.compiler.tools.import_onnx", onnx_path, "-o", mlir_path],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError("iree-import-onnx: " + (done.stderr.strip().splitlines() or ["failed"])[-1])
    return compiler.compile_file(mlir_path, extra_args=IREE_COMPILE_FLAGS)


def run_iree(spec):
    """IREE: llvm-cpu with data tiling and micro-kernels, the local-task
    driver with one worker per core, inputs on the device once; each call
    returns its output in new device memory (IREE's default)."""
    from importlib import metadata

    from iree import runtime

    threads = os.cpu_count()
    runtime.flags.parse_flags(f"--task_topology_group_count={threads}")
    config = runtime.Config("local-task")
    info = {
        "version": metadata.version("iree-base-compiler"),
        "runtime_version": metadata.version("iree-base-runtime"),
        "driver": "local-task",
        "threads": threads,
        "flags": " ".join(IREE_COMPILE_FLAGS),
    }
    results = {}
    for workload in spec["workloads"]:
        name = workload["name"]
        try:
            with tempfile.TemporaryDirectory() as folder:
                start = time.perf_counter()
                vmfb = iree_module(name, workload["input_shapes"], workload["params"], folder)
                info.setdefault("compile_ms", {})[name] = (time.perf_counter() - start) * 1e3
            context = runtime.SystemContext(config=config)
            context.add_vm_module(runtime.VmModule.copy_buffer(context.instance, vmfb))
            function = context.modules.module[name]  # the ONNX graph's name
            inputs = random_inputs(workload["input_shapes"])
            arguments = [runtime.asdevicearray(config.device, a) for a in inputs]
            results[name] = checked_timing(spec, workload, inputs, lambda: function(*arguments), lambda out: out.to_host())
        except Exception as error:
            results[name] = error_entry(error)
    return info, results


# ---------------------------------------------------------------- JAX


def jax_workloads():
    """numpy_workloads in jax.numpy."""
    import jax.numpy as jnp

    return array_workloads(jnp)


def run_jax(spec):
    """JAX on its CPU device in f32: jax.jit with the workload's integer
    parameters static, inputs placed on the device once, each call waited
    for (block_until_ready); outputs in new memory as XLA allocates them."""
    import jax

    jax.config.update("jax_enable_x64", False)
    device = jax.devices("cpu")[0]
    info = {"version": jax.__version__, "device": str(device), "platform": device.platform, "precision": "f32"}
    functions = jax_workloads()
    results = {}
    for workload in spec["workloads"]:
        name, params = workload["name"], workload["params"]
        try:
            fn = jax.jit(functions[name], static_argnames=tuple(params))
            inputs = random_inputs(workload["input_shapes"])
            arguments = [jax.device_put(a, device) for a in inputs]
            start = time.perf_counter()
            fn(*arguments, **params).block_until_ready()
            info.setdefault("compile_ms", {})[name] = (time.perf_counter() - start) * 1e3
            results[name] = checked_timing(
                spec, workload, inputs, lambda: fn(*arguments, **params).block_until_ready(), lambda out: out
            )
        except Exception as error:
            results[name] = error_entry(error)
    return info, results


PEERS = {
    "numpy": run_numpy,
    "openvino": run_openvino,
    "torch": lambda spec: run_torch(spec, compiled=False),
    "torch.compile": lambda spec: run_torch(spec, compiled=True),
    "onnxruntime": run_onnxruntime,
    "iree": run_iree,
    "jax": run_jax,
    "torch-cuda": lambda spec: run_torch(spec, compiled=False, device="cuda"),
    "torch.compile-cuda": lambda spec: run_torch(spec, compiled=True, device="cuda"),
}


def answer(peer, spec):
    """PEERS[peer] on `spec` as the JSON object main prints."""
    info, results = PEERS[peer](spec)
    out = {}
    for name, value in results.items():
        if isinstance(value, dict):
            out[name] = value
        else:
            out[name] = {"run_ms_median": value[0], "run_ms_min": value[1]}
    return {"peer": peer, "info": info, "results": out}


def serve(peer):
    """One spec per line on stdin, one answer per line on stdout, until
    stdin closes. A library that prints to stdout is told apart by the
    "peer" key (bench.py skips other lines)."""
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(answer(peer, json.loads(line))), flush=True)


def main():
    peer, spec_path = sys.argv[1], sys.argv[2]
    if spec_path == "--serve":
        serve(peer)
        return
    with open(spec_path) as f:
        spec = json.load(f)
    print(json.dumps(answer(peer, spec)))


if __name__ == "__main__":
    main()
