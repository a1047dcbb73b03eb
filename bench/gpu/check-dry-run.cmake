# The GPU check's programs against the fake driver: fuse-gpu-prepare writes
# the bundles, fuse-gpu-bench --dry-run loads, runs and times every one of
# them and runs the reference beside the small ones (and beside a lit test's
# graph given with --check-mlir: attention.mlir; and an ONNX model given with
# --check-onnx, on its inputs: examples/onnx/encoder.onnx). Checks the
# records, not the figures (the fake driver runs no kernel). A graph with
# symbolic dims given with --check-mlir (gpu-symbolic-softmax.mlir) is one
# bundle, checked at two bindings of its dims.
cmake_minimum_required(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/../JsonRecords.cmake)
file(REMOVE_RECURSE ${WORK})
# --halve-above 4096: the model's weights over 4 KiB travel as bf16, which
# fuse-gpu-bench widens back (it refuses an input of the wrong size).
run_checked(fuse-gpu-prepare ${PREPARE} ${WORK} --check-mlir ${ATTENTION}
  --check-mlir ${SYMBOLIC} --check-onnx ${ENCODER_ONNX} --halve-above 4096)
run_checked(fuse-gpu-bench ${CMAKE_COMMAND} -E env FUSE_CUDA_DRIVER=${DRIVER}
  ${BENCH} ${WORK} --dry-run --runs 1 --warmup 0 --copy-mib 16)
json_records("${out}" lines)
set(checked 0)
set(timed 0)
set(symbolic 0)
foreach(line IN LISTS lines)
  string(JSON record GET "${line}" record)
  if(record STREQUAL "check")
    string(JSON status GET "${line}" status)
    if(NOT status MATCHES "^ran")
      message(FATAL_ERROR "check did not run: ${line}")
    endif()
    math(EXPR checked "${checked} + 1")
    string(JSON bound ERROR_VARIABLE unbound GET "${line}" symbolic_bundle)
    if(bound STREQUAL "ON" OR bound STREQUAL "true")
      math(EXPR symbolic "${symbolic} + 1")
    endif()
  elseif(record STREQUAL "time")
    string(JSON status GET "${line}" status)
    if(NOT status STREQUAL "ok")
      message(FATAL_ERROR "timing failed: ${line}")
    endif()
    foreach(key kernels bytes run_ms_median gbps pct_copy input_sets)
      require("${line}" ${key} time)
    endforeach()
    math(EXPR timed "${timed} + 1")
  endif()
endforeach()
# The 14 workloads, and attention.mlir, encoder.onnx and the symbolic
# softmax (one bundle bound to two sets of dims: two checks) checked only.
if(NOT checked EQUAL 18 OR NOT timed EQUAL 14 OR NOT symbolic EQUAL 2)
  message(FATAL_ERROR "expected 18 checks (2 of a symbolic bundle) and 14 "
                      "timings, got ${checked} (${symbolic}) and ${timed}:\n${out}")
endif()
# The model's inputs were written beside its bundle (its weights among them,
# the larger ones as bf16).
file(GLOB whole ${WORK}/check/encoder.in*.bin)
file(GLOB halved ${WORK}/check/encoder.in*.bf16)
list(LENGTH whole whole_count)
list(LENGTH halved halved_count)
if(NOT EXISTS ${WORK}/check/encoder.in0.bin OR whole_count LESS 2 OR halved_count LESS 1)
  message(FATAL_ERROR "expected encoder.onnx's inputs beside its bundle, some as bf16: "
                      "${whole_count} .bin, ${halved_count} .bf16")
endif()
file(REMOVE_RECURSE ${WORK})
