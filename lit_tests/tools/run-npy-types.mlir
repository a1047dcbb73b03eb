// .npy inputs and outputs of the integer types beyond i8/i32/i64: int16
// ('<i2') and the unsigned uint8/16/32/64 ('|u1', '<u2', '<u4', '<u8'), read
// from files NumPy wrote and written back as NumPy reads them, with values
// only an unsigned reading gets right (ui64 above 2^63, ui32 above 2^31).
// (errors.mlir: an unsupported dtype.)

// RUN: rm -rf %t && mkdir -p %t/out
// RUN: %python %S/Inputs/npy_types.py write %t
// RUN: fuse-run %s --runtime reference --input a=%t/a.npy --input b=%t/b.npy --input c=%t/c.npy --input d=%t/d.npy --input e=%t/e.npy --output-dir %t/out | FileCheck %s --check-prefix=OUT
// RUN: %python %S/Inputs/npy_types.py check %t/out | FileCheck %s
// RUN: fuse-run %s --input a=%t/a.npy --input b=%t/b.npy --input c=%t/c.npy --input d=%t/d.npy --input e=%t/e.npy --check | FileCheck %s --check-prefix=HOST

func.func @main(%a: tensor<3xi16>, %b: tensor<3xui8>, %c: tensor<3xui16>,
                %d: tensor<3xui32>, %e: tensor<3xui64>)
    -> (tensor<3xi16> {fuse.name = "a"}, tensor<3xui8> {fuse.name = "b"},
        tensor<3xui16> {fuse.name = "c"}, tensor<3xui32> {fuse.name = "d"},
        tensor<3xui64> {fuse.name = "e"}) {
  %a2 = fuse.add %a, %a : tensor<3xi16>
  %b2 = fuse.add %b, %b : tensor<3xui8>
  %c2 = fuse.max %c, %c : tensor<3xui16>
  %three = fuse.constant dense<3> : tensor<3xui32>
  %d2 = fuse.div %d, %three : tensor<3xui32>
  %two = fuse.constant dense<2> : tensor<3xui64>
  %e2 = fuse.div %e, %two : tensor<3xui64>
  return %a2, %b2, %c2, %d2, %e2
      : tensor<3xi16>, tensor<3xui8>, tensor<3xui16>, tensor<3xui32>, tensor<3xui64>
}

// OUT: output a: tensor<3xi16>
// OUT: output e: tensor<3xui64>

// i16 wraps; ui8 wraps modulo 256; ui32 and ui64 divide unsigned.
// CHECK: a <i2 [0, 600, -2]
// CHECK: b |u1 [144, 200, 14]
// CHECK: c <u2 [65535, 40000, 1]
// CHECK: d <u4 [1333333333, 1000000000, 3]
// CHECK: e <u8 [9223372036854775807, 4611686018427387904, 2]

// HOST: check: passed, 5 outputs match the reference
