// A cache folder Fuse did not make (not empty, no .fuse-cache marker: think
// FUSE_CACHE_DIR=/) is never written to. fuse-run says why and runs without
// the cache, as for any cache it cannot use (run-json.mlir); fuse-cache
// refuses it with exit 1 (FuseCacheToolTest). An empty folder is adopted.

// RUN: rm -rf %t && mkdir -p %t/foreign %t/empty && echo notes > %t/foreign/notes.txt
// RUN: fuse-run %s --cache-dir %t/foreign 2>&1 | FileCheck %s --check-prefix=FOREIGN
// RUN: env FUSE_CACHE_DIR=%t/foreign fuse-run %s 2>&1 | FileCheck %s --check-prefix=FOREIGN
// RUN: ls -A %t/foreign | FileCheck %s --check-prefix=UNTOUCHED --implicit-check-not=.fuse-cache --implicit-check-not=.fbundle
// RUN: fuse-run %s --cache-dir %t/empty 2>&1 | FileCheck %s --check-prefix=ADOPTED
// RUN: ls -A %t/empty | FileCheck %s --check-prefix=MARKED

// FOREIGN: fuse-run: warning: bundle cache disabled: refusing the cache directory {{.*}}/foreign: it holds 'notes.txt', which is not a cache entry, and no .fuse-cache marker
// FOREIGN: output out0: tensor<8xf32>

// UNTOUCHED: {{^}}notes.txt{{$}}

// ADOPTED-NOT: warning
// ADOPTED: output out0: tensor<8xf32>

// MARKED: {{^}}.fuse-cache{{$}}
// MARKED-DAG: {{^[0-9a-f]+}}.fkernel{{$}}
// MARKED-DAG: {{^[0-9a-f]+}}.fbundle{{$}}

func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuse.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
