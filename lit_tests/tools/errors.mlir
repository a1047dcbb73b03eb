// fuse-run's errors: a clear message and exit status 2 (`not` checks that it
// fails; the message says why).

// RUN: rm -rf %t && mkdir -p %t
// RUN: not fuse-run %t/model.onnx 2>&1 | FileCheck %s --check-prefix=ONNX
// RUN: not fuse-run %t/model.txt 2>&1 | FileCheck %s --check-prefix=EXTENSION
// RUN: not fuse-run %t/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: echo 'func.func @f(' > %t/bad.mlir
// RUN: not fuse-run %t/bad.mlir 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: echo 'func.func private @f(tensor<4xf32>) -> tensor<4xf32>' > %t/notfuse.mlir
// RUN: not fuse-run %t/notfuse.mlir 2>&1 | FileCheck %s --check-prefix=NOTFUSE
// RUN: not fuse-run %s --runtime cuda 2>&1 | FileCheck %s --check-prefix=RUNTIME
// RUN: not fuse-run %s --threads 5000 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not fuse-run %s --threads 2 --runtime reference 2>&1 | FileCheck %s --check-prefix=THREADS-REF
// RUN: fuse-run %s --threads 1 | FileCheck %s --check-prefix=ONE-THREAD
// RUN: not fuse-run %s --input nope=%t/x.npy 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not fuse-run %s --input x 2>&1 | FileCheck %s --check-prefix=SPEC
// RUN: not fuse-run %s --input x=%t/absent.npy 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: fuse-run %s --output-dir %t/out
// RUN: not fuse-run %s --input x=%t/out/r.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not fuse-run %s --input n=%t/out/r.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: printf '\223NUMPY\001\000\071\000{'"'"'descr'"'"': '"'"'<f4'"'"', '"'"'fortran_order'"'"': True, '"'"'shape'"'"': (2,), }\n\000\000\000\000\000\000\000\000' > %t/fortran.npy
// RUN: not fuse-run %s --input x=%t/fortran.npy 2>&1 | FileCheck %s --check-prefix=FORTRAN
// RUN: printf '\223NUMPY\001\000\072\000{'"'"'descr'"'"': '"'"'<c8'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (2,), }\n\000\000\000\000' > %t/c8.npy
// RUN: not fuse-run %s --input x=%t/c8.npy 2>&1 | FileCheck %s --check-prefix=C8
// RUN: echo 'not numpy' > %t/junk.npy
// RUN: not fuse-run %s --input x=%t/junk.npy 2>&1 | FileCheck %s --check-prefix=JUNK
// RUN: not fuse-run %s --input n=%t/out/out1.npy --input n=%t/out/out1.npy 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not fuse-run %s --no-such-flag 2>&1 | FileCheck %s --check-prefix=FLAG

func.func @errors(%x: tensor<8x4xf32>, %n: tensor<8xi32>) -> (tensor<8xf32> {fuse.name = "r"}, tensor<8xi32>) {
  %r = fuse.reduce sum %x dims = [1] : tensor<8x4xf32> -> tensor<8xf32>
  %m = fuse.add %n, %n : tensor<8xi32>
  return %r, %m : tensor<8xf32>, tensor<8xi32>
}

// ONNX: fuse-run: error: cannot read '{{.*}}model.onnx': no such file or directory
// EXTENSION: fuse-run: error: '{{.*}}model.txt': unknown model type '.txt'; expected a .mlir file
// MISSING: fuse-run: error: cannot read '{{.*}}missing.mlir': {{.*}}
// MALFORMED: fuse-run: error: '{{.*}}bad.mlir' does not parse:
// MALFORMED-NEXT: bad.mlir:{{[0-9]+}}:{{[0-9]+}}: error:
// NOTFUSE: fuse-run: error: '{{.*}}notfuse.mlir' is not a graph of fuse ops:
// NOTFUSE-NEXT: notfuse.mlir:{{.*}}: error: holds no function with a body
// NOTFUSE-NOT: see current operation
// RUNTIME: fuse-run: error: unknown --runtime=cuda; expected host or reference
// THREADS: fuse-run: error: --threads=5000: at most 1024
// THREADS-REF: fuse-run: error: --threads applies to the host runtime only
// ONE-THREAD: output r: tensor<8xf32>
// NAME: fuse-run: error: --input names 'nope', which is not an input of '{{.*}}errors.mlir'; its inputs are: x, n
// SPEC: fuse-run: error: --input 'x' is not NAME=PATH.npy
// NOFILE: fuse-run: error: --input x: cannot read '{{.*}}absent.npy'
// SHAPE: fuse-run: error: --input x: '{{.*}}r.npy' holds a tensor<8xf32>, but the model's input 'x' is a tensor<8x4xf32>
// DTYPE: fuse-run: error: --input n: '{{.*}}r.npy' holds a tensor<8xf32>, but the model's input 'n' is a tensor<8xi32>
// FORTRAN: fuse-run: error: --input x: '{{.*}}fortran.npy': the array is in Fortran order; only C order is supported
// C8: fuse-run: error: --input x: '{{.*}}c8.npy': dtype '<c8' is not supported; expected little-endian f2, f4, f8, i1, i2, i4, i8, u1, u2, u4, u8 or b1
// JUNK: fuse-run: error: --input x: '{{.*}}junk.npy': not a .npy file
// TWICE: fuse-run: error: --input names 'n' twice; give each input once
// FLAG: Unknown command line argument '--no-such-flag'
