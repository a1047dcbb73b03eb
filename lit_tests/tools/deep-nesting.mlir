// An input nested deeper than the parser's stack can take (100,000 '['
// in a dense attribute once crashed fuse-run with SIGSEGV inside MLIR's
// parser) is refused before parsing, by fuse-run and fuse-compile, naming
// the line; one nested 900 deep still reaches the parser, which says what is
// wrong with it. fuse-compile also reads only regular files.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "open('%t/deep.mlir', 'w').write('func.func @f(%%x: tensor<4xf32>) -> tensor<4xf32> {\n  %%c = fuse.constant dense<' + '[' * 100000 + '1.0' + ']' * 100000 + '> : tensor<4xf32>\n  return %%x : tensor<4xf32>\n}\n')"
// RUN: %python -c "open('%t/deep900.mlir', 'w').write('func.func @f(%%x: tensor<4xf32>) -> tensor<4xf32> {\n  %%c = fuse.constant dense<' + '[' * 900 + '1.0' + ']' * 900 + '> : tensor<4xf32>\n  return %%x : tensor<4xf32>\n}\n')"
// RUN: not fuse-run %t/deep.mlir --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=NEST
// RUN: not fuse-compile %t/deep.mlir --target=host -o %t/out 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: not fuse-run %t/deep900.mlir --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=PARSED
// RUN: not fuse-compile /dev/zero --target=host -o %t/out 2>&1 | FileCheck %s --check-prefix=ZERO

// NEST: fuse-run: error: '{{.*}}deep.mlir': the input nests brackets more than 1000 deep (at line 2), deeper than any graph; refused before parsing
// COMPILE: fuse-compile: error: '{{.*}}deep.mlir': the input nests brackets more than 1000 deep (at line 2)
// PARSED: does not parse
// ZERO: fuse-compile: error: cannot read '/dev/zero': it is a character device, not a regular file
