//===- ExampleGraphs.h - One small valid graph per op kind ------*- C++ -*-===//
//
// For the op-table and translation tests: a graph whose only op is `kind`,
// with the flags and attributes that op takes set to non-default values, so
// that a translation dropping one is caught.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TEST_COMPILER_COMMON_EXAMPLEGRAPHS_H
#define FUSE_TEST_COMPILER_COMMON_EXAMPLEGRAPHS_H

#include "runtime/ir/Graph.h"

#include <vector>

namespace fuse::test {

/// One or more graphs exercising `kind` (several for ops with variants).
std::vector<Graph> exampleGraphs(OpKind kind);

} // namespace fuse::test

#endif // FUSE_TEST_COMPILER_COMMON_EXAMPLEGRAPHS_H
