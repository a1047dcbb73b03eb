// lld's files live in a private folder under $TMPDIR named for its process
// (fuse-link-RANDOM-PID@HOST) and removed after the link. The first link of
// a process reclaims the folders a killed compile left: of a pid of this
// host that is gone, or over an hour old; a young folder of another host
// stays (its pid means nothing here).

// RUN: rm -rf %t && mkdir -p %t/tmp
// RUN: sh -c 'echo $$' > %t/pid
// RUN: sh -c 'd="%t/tmp/fuse-link-dead-$(cat %t/pid)@$(uname -n)" && mkdir "$d" && touch "$d/kernels.o"'
// RUN: mkdir %t/tmp/fuse-link-old-1@elsewhere && touch %t/tmp/fuse-link-old-1@elsewhere/kernels.so
// RUN: touch -d '2 hours ago' %t/tmp/fuse-link-old-1@elsewhere
// RUN: mkdir %t/tmp/fuse-link-young-1@elsewhere
// RUN: env TMPDIR=%t/tmp fuse-run %s --cache-dir %t/cache | FileCheck %s --check-prefix=RAN
// RUN: ls -A %t/tmp | FileCheck %s --implicit-check-not=fuse-link

// RAN: output out0: tensor<8xf32>
// CHECK: {{^}}fuse-link-young-1@elsewhere{{$}}

func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuse.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
