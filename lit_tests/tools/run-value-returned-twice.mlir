// A function that returns one value twice: both outputs hold it, on the
// reference runtime and on the host (the reference once returned zeros for
// the first copy, and --check then blamed the host's correct result).

// RUN: rm -rf %t.ref %t.host %t.cache
// RUN: fuse-run %s --runtime reference --seed 3 --output-dir %t.ref --cache-dir %t.cache > /dev/null
// RUN: fuse-run %s --seed 3 --output-dir %t.host --check --cache-dir %t.cache | FileCheck %s --check-prefix=CHECK
// RUN: %python -c "import numpy as np; r = [np.load('%t.ref/out%%d.npy' %% i) for i in (0, 1)]; h = [np.load('%t.host/out%%d.npy' %% i) for i in (0, 1)]; print('nonzero', bool(np.all(r[0] != 0))); print('same', np.array_equal(r[0], r[1]) and np.array_equal(h[0], h[1])); print('close', np.allclose(r[0], h[0], rtol=1e-6, atol=0))" | FileCheck %s --check-prefix=SAME

// CHECK: check out0: {{.*}}: ok
// CHECK: check out1: {{.*}}: ok
// CHECK: check: passed, 2 outputs match the reference
// SAME: nonzero True
// SAME: same True
// SAME: close True

func.func @twice(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %y = fuse.exp %x : tensor<16xf32>
  return %y, %y : tensor<16xf32>, tensor<16xf32>
}
