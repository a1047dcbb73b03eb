// fuse-run --json: the last line of stdout is one JSON object. A second run
// with the same cache directory compiles nothing; --no-fusion gives one
// kernel per op; the reference runtime compiles nothing and has no cache.

// RUN: rm -rf %t.cache
// RUN: fuse-run %examples/layernorm.mlir --json --check --cache-dir %t.cache | FileCheck %s --check-prefix=FIRST
// RUN: fuse-run %examples/layernorm.mlir --json --bench 3 --cache-dir %t.cache | FileCheck %s --check-prefix=SECOND
// RUN: fuse-run %examples/layernorm.mlir --json --no-fusion --cache-dir %t.cache | FileCheck %s --check-prefix=NOFUSION
// RUN: fuse-run %examples/layernorm.mlir --json --runtime reference | FileCheck %s --check-prefix=REFERENCE
// RUN: fuse-run %examples/layernorm.mlir --cache-dir %t.cache 2>&1 >/dev/null | FileCheck %s --check-prefix=PROGRESS
// A cache that cannot be used is a warning, never a failure.
// RUN: rm -f %t.file && touch %t.file
// RUN: fuse-run %examples/layernorm.mlir --json --cache-dir %t.file 2>&1 | FileCheck %s --check-prefix=BADCACHE

// FIRST: check: passed
// FIRST-NEXT: check guards: 4 guards around the buffers of 1 kernel launch(es) intact, outputs equal to the first run's with the arena unshared and NaN where unwritten
// FIRST-NEXT: {"model": "{{.*}}layernorm.mlir", "runtime": "host", "ops": 14, "kernels": 1, "matmul_precision": "f32", "bf16_kernels": 0, "amx_kernels": 0, "launches": 1, "compiled": 1, "cache_hits": 0, "kernels_compiled": {{[0-9]+}}, "kernels_reused": {{[0-9]+}}, "bound_at_import": [], "dims": null, "symbolic_bundle": false, "arena": {"planned": {{[0-9]+}}, "bound": {{[0-9]+}}}, "compile_ms": {{[0-9.e+-]+}}, "startup_ms": {"import": {{[0-9.e+-]+}}, "bundle": {{[0-9.e+-]+}}, "load": {{[0-9.e+-]+}}, "first_run": {{[0-9.e+-]+}}, "total": {{[0-9.e+-]+}}}, "compile_phases": {"import": {{[0-9.e+-]+}}, "fusion": {{[0-9.e+-]+}}, {{.*}}, "link": {{[0-9.e+-]+}}}, "run_ms_median": {{[0-9.e+-]+}}, "run_ms_min": {{[0-9.e+-]+}}, "max_abs_error": {{[0-9.e+-]+}}, "max_rel_error": {{[0-9.e+-]+}}, "checks": {"out0": {"ok": true, "max_abs_error": {{[0-9.e+-]+}}, "max_rel_error": {{[0-9.e+-]+}}, "rtol": {{[0-9.e+-]+}}, "atol": {{[0-9.e+-]+}}, "decided_by": "{{atol|rtol|exact}}", "nearest": {{.*}}}}, "guards": {"checked": 4, "breaches": [], "outputs_differing": 0, "outputs_failing": 0}, "profile": null, "outputs": {"out0": [32, 256]}}
// FIRST-NOT: {{.}}

// SECOND: bench: 3 runs, median {{.*}} ms, min {{.*}} ms
// SECOND-NEXT: {"model": "{{.*}}", "runtime": "host", "ops": 14, "kernels": 1, "matmul_precision": "f32", "bf16_kernels": 0, "amx_kernels": 0, "launches": 1, "compiled": 0, "cache_hits": 1, "kernels_compiled": 0, "kernels_reused": 0, "bound_at_import": [], "dims": null, "symbolic_bundle": false, "arena": {"planned": {{[0-9]+}}, "bound": {{[0-9]+}}}, "compile_ms": null, "startup_ms": {"import": {{[0-9.e+-]+}}, "bundle": {{[0-9.e+-]+}}, "load": {{[0-9.e+-]+}}, "first_run": {{[0-9.e+-]+}}, "total": {{[0-9.e+-]+}}}, "compile_phases": {}, "run_ms_median": {{[0-9.e+-]+}}, "run_ms_min": {{[0-9.e+-]+}}, "max_abs_error": null, "max_rel_error": null, "checks": null, "guards": null, "profile": null, "outputs": {"out0": [32, 256]}}

// NOFUSION: {"model": "{{.*}}", "runtime": "host", "ops": 14, "kernels": {{[2-9]|1[0-9]}}, "matmul_precision": "f32", "bf16_kernels": 0, "amx_kernels": 0, "launches": {{[2-9]|1[0-9]}}, "compiled": {{[2-9]|1[0-9]}}, "cache_hits": 0,

// REFERENCE: {"model": "{{.*}}", "runtime": "reference", "ops": 14, "kernels": 1, "matmul_precision": "f32", "bf16_kernels": 0, "amx_kernels": 0, "launches": 1, "compiled": null, "cache_hits": null, "kernels_compiled": null, "kernels_reused": null, "bound_at_import": [], "dims": null, "symbolic_bundle": false, "arena": {"planned": {{[0-9]+}}, "bound": {{[0-9]+}}}, "compile_ms": null, "startup_ms": {"import": {{[0-9.e+-]+}}, "bundle": {{[0-9.e+-]+}}, "load": {{[0-9.e+-]+}}, "first_run": {{[0-9.e+-]+}}, "total": {{[0-9.e+-]+}}}, "compile_phases": {},

// PROGRESS: fuse-run: cache hit: 1 kernel(s) for host-x86-64-v{{[34]}}, nothing to compile
// PROGRESS: fuse-run: running on the host runtime...
// PROGRESS: fuse-run: ran in {{.*}} ms

// BADCACHE: fuse-run: warning: bundle cache disabled: the cache directory {{.*}}.file is not a directory
// BADCACHE: "compiled": 1, "cache_hits": 0,
