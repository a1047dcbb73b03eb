# The project's version id: a hash of every source file of the tree. It is
# compiled into the runtime (and so into every library and tool, which all
# link it), and is part of every cache key: a runtime-only program and the
# compiler built from the same tree agree on it, and a change to any source
# makes new keys. It is recomputed at build time, not only at configure time,
# so that an edit without a reconfigure can never leave a stale id; the file
# is rewritten only when the id changes, so an unchanged tree rebuilds nothing.
set(FUSE_VERSION_CPP ${FUSE_BINARY_DIR}/generated/FuseVersionId.cpp)
add_custom_target(fuse-version-id
  COMMAND ${CMAKE_COMMAND} -DFUSE_SOURCE_DIR=${FUSE_SOURCE_DIR}
          -DOUTPUT=${FUSE_VERSION_CPP} -P ${FUSE_SOURCE_DIR}/cmake/ComputeVersionId.cmake
  BYPRODUCTS ${FUSE_VERSION_CPP}
  COMMENT "Computing the Fuse version id"
  VERBATIM)
# Also at configure time, so the file exists before the first build.
execute_process(COMMAND ${CMAKE_COMMAND} -DFUSE_SOURCE_DIR=${FUSE_SOURCE_DIR}
  -DOUTPUT=${FUSE_VERSION_CPP} -P ${FUSE_SOURCE_DIR}/cmake/ComputeVersionId.cmake)
