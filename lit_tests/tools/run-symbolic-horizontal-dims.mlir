// Issue 22: a horizontal fusion of two linear layers on symbolic (batch,
// sequence) tokens whose epilogues add a [sequence, 32] table broadcast over
// the batch. With runtime dims the members' matmuls are one launch, laid end
// to end at offsets the launch computes from its dims array (each member's
// rows, batch*sequence), and each member's epilogue reads the length from
// its dims array (KernelAbi.h, buffers[-2]); the launch copies its own dims
// array and error record below the buffer list it hands to the member.
// Before, the member read the slot below that list (stack memory), so its
// results were wrong or it crashed. One bundle serves every length; each
// run is checked against the reference.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; rng = np.random.default_rng(7); [np.save('%t/x%%d.npy' %% s, rng.uniform(-2, 2, (2, s, 64)).astype(np.float32)) for s in (1, 7, 77)]; [np.save('%t/p%%d.npy' %% s, rng.uniform(-2, 2, (s, 32)).astype(np.float32)) for s in (1, 7, 77)]"
// RUN: fuse-run %s --input x=%t/x1.npy --input p=%t/p1.npy --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: fuse-run %s --input x=%t/x7.npy --input p=%t/p7.npy --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=SEVEN
// RUN: fuse-run %s --input x=%t/x77.npy --input p=%t/p77.npy --check --json --cache-dir %t/cache 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: fuse-compile %s --target=host -o %t/bundle
// RUN: FileCheck %s --check-prefix=BUNDLE < %t/bundle/bundle.txt

// FIRST: compiling {{[0-9]+}} ops for {{.*}} (once for every value of the dims)
// FIRST-NOT: note: not every fusion
// FIRST: check: passed, 2 outputs match the reference
// FIRST: "compiled": {{[1-9][0-9]*}}, "cache_hits": 0, {{.*}}"symbolic_bundle": true

// SEVEN-NOT: compiling
// SEVEN: check: passed, 2 outputs match the reference
// SEVEN: "compiled": 0, "cache_hits": 1, {{.*}}"dims": {"batch": 2, "sequence": 7}, "symbolic_bundle": true

// LONG-NOT: compiling
// LONG: check: passed, 2 outputs match the reference
// LONG: "compiled": 0, "cache_hits": 1, {{.*}}"dims": {"batch": 2, "sequence": 77}, "symbolic_bundle": true

// The two matmuls are one horizontal fusion: each member's pack of its
// weight a launch of its own (a constant count, once per binding), then
// both members' matmuls over rows in one launch.
// BUNDLE: kernels 3
// BUNDLE: fuse_k0_horizontal_0 schedule horizontal iterations 64 grain {{[0-9]+}} once per binding of input 2
// BUNDLE: fuse_k0_horizontal_1 schedule horizontal iterations 64 grain {{[0-9]+}} once per binding of input 3
// BUNDLE: fuse_k0_horizontal_2 schedule horizontal iterations batch*sequence*2 grain {{[0-9]+}}{{$}}

func.func @two(%x: tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {fuse.name = "x"},
               %p: tensor<?x32xf32, #fuse.dims<sequence>> {fuse.name = "p"},
               %w1: tensor<64x32xf32> {fuse.name = "w1"}, %w2: tensor<64x32xf32> {fuse.name = "w2"})
    -> (tensor<?x?x32xf32, #fuse.dims<batch, sequence>> {fuse.name = "y1"},
        tensor<?x?x32xf32, #fuse.dims<batch, sequence>> {fuse.name = "y2"}) {
  %m1 = fuse.matmul %x, %w1 : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<64x32xf32> -> tensor<?x?x32xf32, #fuse.dims<batch, sequence>>
  %m2 = fuse.matmul %x, %w2 : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<64x32xf32> -> tensor<?x?x32xf32, #fuse.dims<batch, sequence>>
  %pb = fuse.broadcast %p, dims = [1, 2] : tensor<?x32xf32, #fuse.dims<sequence>> -> tensor<?x?x32xf32, #fuse.dims<batch, sequence>>
  %y1 = fuse.add %m1, %pb : tensor<?x?x32xf32, #fuse.dims<batch, sequence>>
  %y2 = fuse.mul %m2, %pb : tensor<?x?x32xf32, #fuse.dims<batch, sequence>>
  return %y1, %y2 : tensor<?x?x32xf32, #fuse.dims<batch, sequence>>, tensor<?x?x32xf32, #fuse.dims<batch, sequence>>
}
