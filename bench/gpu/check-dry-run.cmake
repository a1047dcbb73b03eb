# The GPU check's programs against the fake driver: fuse-gpu-prepare writes
# the bundles, fuse-gpu-bench --dry-run loads, runs and times every one of
# them and runs the reference beside the small ones (and beside a lit test's
# graph given with --check-mlir: attention.mlir; and an ONNX model given with
# --check-onnx, on its inputs: examples/onnx/encoder.onnx). Checks the
# records, not the figures (the fake driver runs no kernel).
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${PREPARE} ${WORK} --check-mlir ${ATTENTION}
  --check-onnx ${ENCODER_ONNX}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuse-gpu-prepare exited ${rc}\n${out}\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env FUSE_CUDA_DRIVER=${DRIVER}
  ${BENCH} ${WORK} --dry-run --runs 1 --warmup 0 --copy-mib 16
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuse-gpu-bench exited ${rc}\n${out}\n${err}")
endif()
string(REPLACE "\n" ";" lines "${out}")
set(checked 0)
set(timed 0)
foreach(line IN LISTS lines)
  if(line STREQUAL "")
    continue()
  endif()
  string(JSON record ERROR_VARIABLE error GET "${line}" record)
  if(error)
    message(FATAL_ERROR "not a JSON record: ${line}")
  endif()
  if(record STREQUAL "check")
    string(JSON status GET "${line}" status)
    if(NOT status MATCHES "^ran")
      message(FATAL_ERROR "check did not run: ${line}")
    endif()
    math(EXPR checked "${checked} + 1")
  elseif(record STREQUAL "time")
    string(JSON status GET "${line}" status)
    if(NOT status STREQUAL "ok")
      message(FATAL_ERROR "timing failed: ${line}")
    endif()
    foreach(key kernels bytes run_ms_median gbps pct_copy input_sets)
      string(JSON value ERROR_VARIABLE error GET "${line}" ${key})
      if(error)
        message(FATAL_ERROR "no '${key}' in ${line}")
      endif()
    endforeach()
    math(EXPR timed "${timed} + 1")
  endif()
endforeach()
# The 14 workloads, and attention.mlir and encoder.onnx checked only.
if(NOT checked EQUAL 16 OR NOT timed EQUAL 14)
  message(FATAL_ERROR "expected 16 checks and 14 timings, got ${checked} and ${timed}:\n${out}")
endif()
# The model's inputs were written beside its bundle (its weights among them).
if(NOT EXISTS ${WORK}/check/encoder.in0.bin OR NOT EXISTS ${WORK}/check/encoder.in16.bin)
  message(FATAL_ERROR "no inputs of encoder.onnx beside its bundle")
endif()
file(REMOVE_RECURSE ${WORK})
