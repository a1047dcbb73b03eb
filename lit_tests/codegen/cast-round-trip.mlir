// A cast to f16 or bf16 rounds to its precision where it is computed, not
// only when stored: f16 and bf16 compute in f32, and a cast back to a wider
// type in the same kernel must read the rounded value (the structured ONNX
// fuzzer, seed 5332: Cast to f16 then back to f32 returned the input
// unrounded, exit 0 without --check). Each round trip is one kernel; random
// inputs are in [-2, 2], where f16 and bf16 keep 10 and 7 mantissa bits, so
// every element differs from its unrounded value by far more than an ulp
// of f32. --check compares with the reference runtime, exactly (the policy
// for casts). f64 through f16 rounds once (through f32 rounded to odd).

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s
// RUN: fuse-compile %s --target=sm_80 --emit=kernels | FileCheck %s --check-prefix=GPU

// CHECK: plan: 5 kernels for 10 ops
// CHECK-COUNT-4: ops cast cast
// CHECK: ops cast cast cast
// CHECK: check: passed, 5 outputs match the reference
// GPU-COUNT-5: gpu.func

func.func @round_trips(%x: tensor<4x33xf32>, %d: tensor<4x33xf64>, %i: tensor<4x33xi32>)
    -> (tensor<4x33xf32>, tensor<4x33xf32>, tensor<4x33xf64>, tensor<4x33xf32>, tensor<4x33xf32>) {
  %h = fuse.cast %x : tensor<4x33xf32> to tensor<4x33xf16>
  %hx = fuse.cast %h : tensor<4x33xf16> to tensor<4x33xf32>
  %b = fuse.cast %x : tensor<4x33xf32> to tensor<4x33xbf16>
  %bx = fuse.cast %b : tensor<4x33xbf16> to tensor<4x33xf32>
  %dh = fuse.cast %d : tensor<4x33xf64> to tensor<4x33xf16>
  %dhd = fuse.cast %dh : tensor<4x33xf16> to tensor<4x33xf64>
  %ib = fuse.cast %i : tensor<4x33xi32> to tensor<4x33xbf16>
  %ibf = fuse.cast %ib : tensor<4x33xbf16> to tensor<4x33xf32>
  %hb = fuse.cast %h : tensor<4x33xf16> to tensor<4x33xbf16>
  %hbf = fuse.cast %hb : tensor<4x33xbf16> to tensor<4x33xf32>
  return %hx, %bx, %dhd, %ibf, %hbf : tensor<4x33xf32>, tensor<4x33xf32>, tensor<4x33xf64>, tensor<4x33xf32>, tensor<4x33xf32>
}
