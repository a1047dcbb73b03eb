# Runs EXAMPLE twice over a fresh CACHE_DIR; fails unless both runs succeed,
# the first compiles something and the second prints "compiled 0".
file(REMOVE_RECURSE ${CACHE_DIR})
foreach(run first second)
  execute_process(COMMAND ${EXAMPLE} --cache-dir ${CACHE_DIR}
    OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE result)
  message("${run} run:\n${output}${errors}")
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "the ${run} run failed (exit ${result})")
  endif()
  string(REGEX MATCH "engine: [^\n]*" summary "${output}")
  if(run STREQUAL "first" AND summary MATCHES "compiled 0 ")
    message(FATAL_ERROR "the first run over an empty cache compiled nothing")
  endif()
  if(run STREQUAL "second" AND NOT summary MATCHES "compiled 0 ")
    message(FATAL_ERROR "the second run compiled again: ${summary}")
  endif()
endforeach()
file(REMOVE_RECURSE ${CACHE_DIR})
