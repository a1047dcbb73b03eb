"""The peers' timing loops shared by run_models.py and export_vision.py."""
import time

import numpy as np


def openvino_ms(model, feeds, runs):
    """The median of `runs` OpenVINO inferences in f32 on 2 threads (its
    default on a CPU with bf16 or AMX is bf16, which is other math), or None
    where OpenVINO is not installed."""
    try:
        import openvino as ov
    except ImportError:
        return None
    compiled = ov.Core().compile_model(model, "CPU", {
        "INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": 2})
    request = compiled.create_infer_request()
    request.infer(feeds)
    times = []
    for _ in range(runs):
        begin = time.perf_counter()
        request.infer(feeds)
        times.append((time.perf_counter() - begin) * 1e3)
    return round(float(np.median(times)), 2)
