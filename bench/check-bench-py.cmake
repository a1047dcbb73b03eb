# Runs bench.py --quick (fuse-bench, numpy if installed) into a scratch
# folder and checks that it wrote the table, the JSON and (with matplotlib)
# the chart. Never looks at a figure.
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${PYTHON} ${SOURCE}/bench.py --quick --peers numpy
  --fuse-bench ${FUSE_BENCH} --output-dir ${WORK}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bench.py exited ${rc}\n${out}\n${err}")
endif()
file(READ ${WORK}/results.md table)
foreach(text "# Fuse CPU benchmark" "| workload | Fuse fused |" "GELU, tanh form"
             "## Targets of the issue" "## Compile and start" "- numpy: "
             "1 alternating pass (in each, workload by workload: Fuse, then each peer" "## Where the time goes"
             "Lazy API (runtime/engine): ")
  string(FIND "${table}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "results.md has no '${text}':\n${table}")
  endif()
endforeach()
file(READ ${WORK}/results.json json)
string(JSON count LENGTH "${json}" workloads)
if(NOT count EQUAL 14)
  message(FATAL_ERROR "results.json has ${count} workloads, expected 14")
endif()
file(REMOVE_RECURSE ${WORK})
