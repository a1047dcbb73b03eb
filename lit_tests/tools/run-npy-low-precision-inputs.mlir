// Inputs of the types .npy has no dtype for: an f8 input is read from a
// float32 .npy (each value rounded to nearest even, as a cast rounds: 0.3 ->
// 0.3125), i4/i2 from int8 and ui4/ui2 from uint8 (as fuse-run writes them),
// every value inside the narrow type's range, else a clear error.

// RUN: rm -rf %t && mkdir -p %t/out
// RUN: %python -c "import numpy as np; np.save('%t/a.npy', np.array([0.3, -2, 448, 0.0078125], dtype=np.float32)); np.save('%t/b.npy', np.array([-8, 7, 0, -1], dtype=np.int8)); np.save('%t/c.npy', np.array([0, 1, 2, 3], dtype=np.uint8)); np.save('%t/bad.npy', np.array([-8, 8, 0, -1], dtype=np.int8)); np.save('%t/f64.npy', np.zeros(4))"
// RUN: fuse-run %s --runtime reference --input a=%t/a.npy --input b=%t/b.npy --input c=%t/c.npy --output-dir %t/out > /dev/null
// RUN: %python -c "import numpy as np; [print(n, np.load('%t/out/'+n+'.npy').tolist()) for n in ('fa', 'ib', 'ic')]" | FileCheck %s
// RUN: fuse-run %s --input a=%t/a.npy --input b=%t/b.npy --input c=%t/c.npy --check | FileCheck %s --check-prefix=HOST
// RUN: not fuse-run %s --input b=%t/bad.npy 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not fuse-run %s --input a=%t/f64.npy 2>&1 | FileCheck %s --check-prefix=TYPE

// CHECK: fa [0.3125, -2.0, 448.0, 0.0078125]
// CHECK: ib [-8, 7, 0, -1]
// CHECK: ic [0, 1, 2, 3]

// HOST: check: passed, 3 outputs match the reference

// RANGE: fuse-run: error: --input b: '{{.*}}bad.npy' element 1 is 8, outside i4's range -8 .. 7

// TYPE: fuse-run: error: --input a: '{{.*}}f64.npy' holds a tensor<4xf64>, but the model's input 'a' is a tensor<4xf8E4M3FN>

func.func @main(%a: tensor<4xf8E4M3FN>, %b: tensor<4xi4>, %c: tensor<4xui2>)
    -> (tensor<4xf32> {fuse.name = "fa"}, tensor<4xi32> {fuse.name = "ib"},
        tensor<4xi32> {fuse.name = "ic"}) {
  %fa = fuse.cast %a : tensor<4xf8E4M3FN> to tensor<4xf32>
  %ib = fuse.cast %b : tensor<4xi4> to tensor<4xi32>
  %ic = fuse.cast %c : tensor<4xui2> to tensor<4xi32>
  return %fa, %ib, %ic : tensor<4xf32>, tensor<4xi32>, tensor<4xi32>
}
