# For the benchmark checks (cmake -P scripts) that read a program's output as
# JSON lines: run the program, read its records, require their keys.

# Runs COMMAND...; fails, with its output, unless it exits 0. Its stdout is
# left in `out`.
function(run_checked name)
  execute_process(COMMAND ${ARGN}
    OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name} exited ${rc}\n${stdout}\n${stderr}")
  endif()
  set(out "${stdout}" PARENT_SCOPE)
endfunction()

# The non-empty lines of `text` into `var`; fails on one that is not a JSON
# object with a "record" key.
function(json_records text var)
  string(REPLACE "\n" ";" lines "${text}")
  set(records "")
  foreach(line IN LISTS lines)
    if(line STREQUAL "")
      continue()
    endif()
    string(JSON record ERROR_VARIABLE error GET "${line}" record)
    if(error)
      message(FATAL_ERROR "not a JSON record: ${line}")
    endif()
    list(APPEND records "${line}")
  endforeach()
  set(${var} "${records}" PARENT_SCOPE)
endfunction()

# Fails unless `json` has `key` (a path: "a;b"); `context` names the record.
function(require json key context)
  string(JSON value ERROR_VARIABLE error GET "${json}" ${key})
  if(error)
    message(FATAL_ERROR "${context}: no '${key}' in ${json}")
  endif()
endfunction()
