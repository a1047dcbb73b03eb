// Random inputs (no --input given) stay small and inside every integer
// type's range: 0 .. 8 for the unsigned types (0 .. 3 for ui2), -4 .. 4 for
// the signed ones (-2 .. 1 for i2). Widened to i64 so that NumPy can read the
// outputs; each check line fails if a value lies outside its range (a ui8
// drawn as -1 would read 255).

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --runtime reference --seed 7 --output-dir %t > /dev/null
// RUN: %python -c "import numpy as np; [print(n, int(np.load('%t/'+n+'.npy').min()), int(np.load('%t/'+n+'.npy').max())) for n in ['u8','u2','s2','s16']]" | FileCheck %s

// CHECK: u8 0 8
// CHECK: u2 0 3
// CHECK: s2 -2 1
// CHECK: s16 -4 4

func.func @main(%a: tensor<512xui8>, %b: tensor<512xui2>, %c: tensor<512xi2>,
                %d: tensor<512xi16>)
    -> (tensor<512xi64> {fuse.name = "u8"}, tensor<512xi64> {fuse.name = "u2"},
        tensor<512xi64> {fuse.name = "s2"}, tensor<512xi64> {fuse.name = "s16"}) {
  %a2 = fuse.cast %a : tensor<512xui8> to tensor<512xi64>
  %b2 = fuse.cast %b : tensor<512xui2> to tensor<512xi64>
  %c2 = fuse.cast %c : tensor<512xi2> to tensor<512xi64>
  %d2 = fuse.cast %d : tensor<512xi16> to tensor<512xi64>
  return %a2, %b2, %c2, %d2 : tensor<512xi64>, tensor<512xi64>, tensor<512xi64>, tensor<512xi64>
}
