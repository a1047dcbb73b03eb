# The Python interpreter the tests run (lit's %python, the generator of the
# onnx package's node tests). It must import numpy and onnx: a test that
# cannot run for a missing package is a failed test, never a skipped one, so
# a build with tests and without them stops here, saying how to get them.
# scripts/install-deps.sh makes the venv .venv/ with the pinned packages;
# scripts/build.sh passes it as Python3_EXECUTABLE.
if(NOT Python3_EXECUTABLE AND EXISTS "${FUSE_SOURCE_DIR}/.venv/bin/python")
  set(Python3_EXECUTABLE "${FUSE_SOURCE_DIR}/.venv/bin/python" CACHE FILEPATH
      "The Python interpreter of the tests")
endif()
find_package(Python3 REQUIRED COMPONENTS Interpreter)
execute_process(
  COMMAND "${Python3_EXECUTABLE}" -c
          "import numpy, onnx; print(numpy.__version__, onnx.__version__)"
  RESULT_VARIABLE _fuse_python_rc
  OUTPUT_VARIABLE _fuse_python_versions
  ERROR_VARIABLE _fuse_python_error
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _fuse_python_rc EQUAL 0)
  message(FATAL_ERROR
    "Fuse: the tests need a Python interpreter with numpy and onnx; "
    "${Python3_EXECUTABLE} cannot import them:\n${_fuse_python_error}\n"
    "Run scripts/install-deps.sh (it makes .venv/ with the pinned packages of "
    "scripts/requirements-test.txt), or configure with "
    "-DPython3_EXECUTABLE=/path/to/python, or -DFUSE_ENABLE_TESTS=OFF.")
endif()
message(STATUS "Fuse: test Python ${Python3_EXECUTABLE} (numpy, onnx: ${_fuse_python_versions})")
