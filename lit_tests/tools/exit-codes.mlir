// fuse-run's exit status: 0 when the run (and its check) succeeds, exactly 2
// for every usage or input error (errors.mlir checks the messages).

// RUN: rm -rf %t && mkdir -p %t
// RUN: sh -c 'fuse-run %s --check > /dev/null 2>&1; echo "exit=$?"' | FileCheck %s --check-prefix=OK
// RUN: sh -c 'fuse-run %t/missing.mlir 2>/dev/null; echo "exit=$?"' | FileCheck %s --check-prefix=USAGE
// RUN: echo 'func.func @f(' > %t/bad.mlir
// RUN: sh -c 'fuse-run %t/bad.mlir 2>/dev/null; echo "exit=$?"' | FileCheck %s --check-prefix=USAGE
// RUN: sh -c 'fuse-run %s --input nope=%t/x.npy 2>/dev/null; echo "exit=$?"' | FileCheck %s --check-prefix=USAGE
// RUN: sh -c 'fuse-run %s --runtime tpu 2>/dev/null; echo "exit=$?"' | FileCheck %s --check-prefix=USAGE
// RUN: printf 'not a model' > %t/bad.onnx
// RUN: sh -c 'fuse-run %t/bad.onnx 2>/dev/null; echo "exit=$?"' | FileCheck %s --check-prefix=USAGE

// OK: {{^}}exit=0{{$}}
// USAGE: {{^}}exit=2{{$}}

func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuse.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
