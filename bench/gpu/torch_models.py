#!/usr/bin/env python3
"""PyTorch eager on the GPU for the exported vision models of the GPU check:
the architectures of bench/models/export_vision.py (random weights, batch 1,
the exported input's shape), timed as fuse-gpu-bench --time-models times
Fuse's bundles of the same models: CUDA events around each call, median.
f32 throughout: TF32 is off for cuDNN's convolutions and cuBLAS's matmuls
(PyTorch lets cuDNN use it by default), as Fuse computes in f32.

    python3 torch_models.py MODELS_DIR RUNS NAME... > RESULTS/torch-models.json

MODELS_DIR holds export_vision.py (and the peers.py it imports). One JSON
object on the last line, in peers.py's form: {"peer", "info", "results":
{NAME: {"run_ms_median", "run_ms_min"}}}."""
import json
import statistics
import sys


def main():
    models_dir, runs, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    sys.path.insert(0, models_dir)
    import torch
    import export_vision

    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(0)
    builders = export_vision.models()
    results = {}
    for name in names:
        if name not in builders:  # a Hugging Face model: no PyTorch twin here
            continue
        try:
            build, _, shape, _ = builders[name]
            model = build().eval().cuda()
            x = torch.randn(*shape, device="cuda")
            times = []
            with torch.no_grad():
                for _ in range(10):
                    model(x)
                torch.cuda.synchronize()
                for _ in range(runs):
                    start = torch.cuda.Event(enable_timing=True)
                    end = torch.cuda.Event(enable_timing=True)
                    start.record()
                    model(x)
                    end.record()
                    end.synchronize()
                    times.append(start.elapsed_time(end))
            results[name] = {"run_ms_median": statistics.median(times),
                             "run_ms_min": min(times)}
        except Exception as error:  # a model that fails is reported, not fatal
            results[name] = {"error": f"{type(error).__name__}: {error}"[:200]}
    gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else "none"
    print(json.dumps({"peer": "torch-cuda", "info": {
        "version": torch.__version__, "gpu": gpu, "tf32": False},
        "results": results}))


if __name__ == "__main__":
    main()
