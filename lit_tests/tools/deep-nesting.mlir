// An input nested deeper than the parser's stack can take (100,000 '['
// in a dense attribute once crashed fuse-run with SIGSEGV inside MLIR's
// parser) is refused before parsing, by fuse-run and fuse-compile, naming
// the line; one nested 900 deep still reaches the parser, which says what is
// wrong with it. fuse-compile also reads only regular files. A word longer
// than 4096 characters is refused too: MLIR's lexer reads a shape again from
// each 'x', and a tensor of rank 100,000 parsed for minutes.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "open('%t/deep.mlir', 'w').write('func.func @f(%%x: tensor<4xf32>) -> tensor<4xf32> {\n  %%c = fuse.constant dense<' + '[' * 100000 + '1.0' + ']' * 100000 + '> : tensor<4xf32>\n  return %%x : tensor<4xf32>\n}\n')"
// RUN: %python -c "open('%t/deep900.mlir', 'w').write('func.func @f(%%x: tensor<4xf32>) -> tensor<4xf32> {\n  %%c = fuse.constant dense<' + '[' * 900 + '1.0' + ']' * 900 + '> : tensor<4xf32>\n  return %%x : tensor<4xf32>\n}\n')"
// RUN: %python -c "t = 'tensor<' + '1x' * 100000 + 'f32>'; open('%t/rank.mlir', 'w').write('func.func @f(%%x: ' + t + ') -> ' + t + ' {\n  return %%x : ' + t + '\n}\n')"
// RUN: %python -c "t = 'tensor<' + '1x' * 1500 + '4xf32>'; open('%t/rank1500.mlir', 'w').write('func.func @f(%%x: ' + t + ') -> ' + t + ' {\n  %%y = fuse.neg %%x : ' + t + '\n  return %%y : ' + t + '\n}\n')"
// RUN: not fuse-run %t/deep.mlir --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=NEST
// RUN: not fuse-compile %t/deep.mlir --target=host -o %t/out 2>&1 | FileCheck %s --check-prefix=COMPILE
// fuse-opt (mlir-opt's driver) read its input itself, and its parser died
// with SIGSEGV on the same file:
// RUN: not fuse-opt %t/deep.mlir 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not fuse-opt < %t/deep.mlir 2>&1 | FileCheck %s --check-prefix=OPT-STDIN
// RUN: not fuse-opt %t/rank.mlir 2>&1 | FileCheck %s --check-prefix=WORD
// RUN: not fuse-run %t/deep900.mlir --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=PARSED
// RUN: not fuse-run %t/rank.mlir --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=WORD
// RUN: not fuse-compile %t/rank.mlir --target=host -o %t/out 2>&1 | FileCheck %s --check-prefix=WORD
// RUN: fuse-run %t/rank1500.mlir --runtime reference 2>&1 | FileCheck %s --check-prefix=RANK1500
// RUN: not fuse-compile /dev/zero --target=host -o %t/out 2>&1 | FileCheck %s --check-prefix=ZERO

// NEST: fuse-run: error: '{{.*}}deep.mlir': the input nests brackets more than 1000 deep (at line 2), deeper than any graph; refused before parsing
// COMPILE: fuse-compile: error: '{{.*}}deep.mlir': the input nests brackets more than 1000 deep (at line 2)
// OPT: fuse-opt: error: '{{.*}}deep.mlir': the input nests brackets more than 1000 deep (at line 2)
// OPT-STDIN: fuse-opt: error: '-': the input nests brackets more than 1000 deep (at line 2)
// PARSED: does not parse
// WORD: error: '{{.*}}rank.mlir': the input holds a word (a name, number or shape) of more than 4096 characters (at line 1); refused before parsing
// RANK1500: output out0: tensor<1x1x1x{{(1x)+}}4xf32>
// ZERO: fuse-compile: error: cannot read '/dev/zero': it is a character device, not a regular file
