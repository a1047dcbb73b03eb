// .npy has no dtype for the f8/f4 and the 2- and 4-bit integer types:
// fuse-run writes such outputs widened to a dtype that holds their values
// exactly (f8/f4 as float32, i4/i2 as int8, ui4/ui2 as uint8), and refuses an
// untyped-bytes input ('|V1', how NumPy saves ml_dtypes' arrays of them)
// with a message that says why.

// RUN: rm -rf %t && mkdir -p %t/out
// RUN: %python %S/Inputs/npy_low_precision.py write %t
// RUN: fuse-run %s --runtime reference --input x=%t/x.npy --output-dir %t/out | FileCheck %s --check-prefix=OUT
// RUN: %python %S/Inputs/npy_low_precision.py check %t/out | FileCheck %s
// RUN: fuse-run %s --input x=%t/x.npy --check | FileCheck %s --check-prefix=HOST
// RUN: not fuse-run %s --input x=%t/v1.npy 2>&1 | FileCheck %s --check-prefix=V1

func.func @main(%x: tensor<4xf32>)
    -> (tensor<4xf8E4M3FN> {fuse.name = "f8"}, tensor<4xi4> {fuse.name = "n"},
        tensor<4xui2> {fuse.name = "u"}) {
  %a = fuse.cast %x {saturate} : tensor<4xf32> to tensor<4xf8E4M3FN>
  %b = fuse.cast %x : tensor<4xf32> to tensor<4xi4>
  %c = fuse.cast %x : tensor<4xf32> to tensor<4xui2>
  return %a, %b, %c : tensor<4xf8E4M3FN>, tensor<4xi4>, tensor<4xui2>
}

// OUT: output f8: tensor<4xf8E4M3FN>
// OUT: output n: tensor<4xi4>
// OUT: output u: tensor<4xui2>

// 1e6 saturates to 448; 0.3 rounds to 0.3125. Float to i4/ui2 truncates and
// keeps the low bits: 1000000 = 0xF4240 -> 0; -9 -> 7 (i4), 3 (ui2).
// CHECK: f8 <f4 [448.0, 0.3125, -9.0, 2.0]
// CHECK: n |i1 [0, 0, 7, 2]
// CHECK: u |u1 [0, 0, 3, 2]

// HOST: check: passed, 3 outputs match the reference

// V1: fuse-run: error: --input x: '{{.*}}v1.npy': dtype '|V1' is untyped bytes (how NumPy saves ml_dtypes' float8, float4, int4 and int2 arrays): .npy cannot say which of Fuse's f8, f4, i4, ui4, i2 or ui2 types they hold
