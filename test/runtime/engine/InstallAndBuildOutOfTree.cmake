# Installs the FuseRuntime component of BUILD_DIR into a fresh prefix under
# WORK_DIR, then configures, builds and runs examples/out-of-tree against it
# with find_package(Fuse).
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result
    OUTPUT_VARIABLE output ERROR_VARIABLE output)
  message("${what}:\n${output}")
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${what} failed (exit ${result})")
  endif()
endfunction()
step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR}
     --component FuseRuntime --prefix ${prefix})
step("configure" ${CMAKE_COMMAND} -G ${GENERATOR}
     -S ${SOURCE_DIR}/examples/out-of-tree -B ${WORK_DIR}/build
     -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
step("build" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step("run" ${WORK_DIR}/build/fuse-out-of-tree)
file(REMOVE_RECURSE ${WORK_DIR})
