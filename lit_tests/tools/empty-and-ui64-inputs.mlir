// Random inputs and --check on an empty tensor (0 elements: its byte
// vectors hold null pointers, which fuse-run passed to memcpy) and on ui64
// (the bound of its random values shifted a 64-bit 1 by 64: undefined, and
// on x86-64 every random ui64 was 0). The sanitizer build
// (scripts/sanitizers.sh) aborted on both; here the sums must not all
// be 0.

// RUN: rm -rf %t.cache
// RUN: fuse-run %s --check --cache-dir %t.cache 2>&1 | FileCheck %s

// CHECK: output out0: tensor<0x3xf32> []
// CHECK: output out1: tensor<4xui64> [{{.*[1-9].*}}]
// CHECK: check: passed, 2 outputs match the reference

func.func @main(%x: tensor<0x3xf32>, %n: tensor<4xui64>) -> (tensor<0x3xf32>, tensor<4xui64>) {
  %y = fuse.exp %x : tensor<0x3xf32>
  %m = fuse.add %n, %n : tensor<4xui64>
  return %y, %m : tensor<0x3xf32>, tensor<4xui64>
}
