//===- Version.h - The project's version id ---------------------*- C++ -*-===//
//
// The version id is a hash of the project's sources, computed by the build
// (cmake/ComputeVersionId.cmake). Every cache key contains it, so that the
// compiler and a runtime-only program built from one tree agree, and bundles
// made by another tree are never loaded.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_VERSION_H
#define FUSE_RUNTIME_VERSION_H

namespace fuse {

/// 32 lowercase hex digits.
const char *versionId();

} // namespace fuse

#endif // FUSE_RUNTIME_VERSION_H
