// ptxas' files (PTX, cubin, log) live in a private folder under $TMPDIR
// named for its process (fuse-ptxas-RANDOM-PID@HOST), removed after each
// kernel is assembled, as lld's are for the host (host-link-folder.mlir).
// The first assembly of a process reclaims the folders a killed compile
// left: of a pid of this host that is gone, or over an hour old; a young
// folder of another host stays.

// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t/tmp
// RUN: sh -c 'echo $$' > %t/pid
// RUN: sh -c 'd="%t/tmp/fuse-ptxas-dead-$(cat %t/pid)@$(uname -n)" && mkdir "$d" && touch "$d/kernel.ptx"'
// RUN: mkdir %t/tmp/fuse-ptxas-old-1@elsewhere && touch %t/tmp/fuse-ptxas-old-1@elsewhere/kernel.cubin
// RUN: touch -d '2 hours ago' %t/tmp/fuse-ptxas-old-1@elsewhere
// RUN: mkdir %t/tmp/fuse-ptxas-young-1@elsewhere
// RUN: env TMPDIR=%t/tmp fuse-compile %s --target=sm_90 -o %t/out
// RUN: FileCheck %s --check-prefix=BUNDLE < %t/out/bundle.txt
// RUN: ls %t/out | FileCheck %s --check-prefix=CUBIN
// RUN: ls -A %t/tmp | FileCheck %s --implicit-check-not=fuse-ptxas

// BUNDLE: kernels 1
// CUBIN: fuse_k0_pointwise.cubin
// CHECK: {{^}}fuse-ptxas-young-1@elsewhere{{$}}

func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuse.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
