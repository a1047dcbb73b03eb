// Model and input paths that are not regular files (a directory, a FIFO,
// /dev/zero, a link to /dev/zero, /proc/self/mem) are refused with a message
// naming the path and what it is, and exit 2: never a crash, a hang (a FIFO
// without a writer) or an out-of-memory abort (a file without an end).
// `timeout` turns a hang into a failure of the check. Where an output goes,
// a FIFO, a directory or a symbolic link is refused the same way, never
// followed or waited on (a FIFO blocked fuse-run --output-dir forever, a
// link was written through, wherever it pointed).

// RUN: rm -rf %t && mkdir -p %t/dir %t/dir.mlir %t/dir.onnx
// RUN: mkfifo %t/fifo.npy %t/fifo.pb %t/fifo.mlir %t/fifo.onnx
// RUN: ln -s /dev/zero %t/zero.mlir && ln -s /dev/zero %t/zero.onnx && ln -s /dev/zero %t/zero.pb

// RUN: sh -c 'timeout 60 fuse-run %s --input x=%t/dir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=INDIR
// RUN: sh -c 'timeout 60 fuse-run %s --input x=/dev/zero; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=INZERO
// RUN: sh -c 'timeout 60 fuse-run %s --input x=%t/fifo.npy; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=INFIFO
// RUN: sh -c 'timeout 60 fuse-run %s --input x=%t/fifo.pb; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=INFIFOPB
// RUN: sh -c 'timeout 60 fuse-run %s --input x=%t/zero.pb; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=INZEROPB
// RUN: sh -c 'timeout 60 fuse-run %s --input x=/proc/self/mem; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=INMEM

// RUN: sh -c 'timeout 60 fuse-run %t/dir.mlir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=DIRMLIR
// RUN: sh -c 'timeout 60 fuse-run %t/dir.onnx; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=DIRONNX
// RUN: sh -c 'timeout 60 fuse-run %t/fifo.mlir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FIFOMLIR
// RUN: sh -c 'timeout 60 fuse-run %t/fifo.onnx; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FIFOONNX
// RUN: sh -c 'timeout 60 fuse-run %t/zero.mlir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=ZEROMLIR
// RUN: sh -c 'timeout 60 fuse-run %t/zero.onnx; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=ZEROONNX
// fuse-opt reads its input as fuse-run does (mlir-opt's driver read
// /dev/zero to the end, and waited on a FIFO):
// RUN: sh -c 'timeout 60 fuse-opt %t/dir.mlir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=OPTDIR
// RUN: sh -c 'timeout 60 fuse-opt %t/fifo.mlir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=OPTFIFO
// RUN: sh -c 'timeout 60 fuse-opt %t/zero.mlir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=OPTZERO
// One output file the user names (fuse-run --dot, fuse-opt -o) follows a
// link and may be a device, but a FIFO that no process reads is refused, not
// waited on, and a failed write (/dev/full) is an error, where LLVM's stream
// aborted with "LLVM ERROR: IO failure on output stream":
// RUN: mkfifo %t/plan.dot
// RUN: sh -c 'timeout 60 fuse-run %s --runtime reference --dot %t/plan.dot; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=DOTFIFO
// RUN: sh -c 'timeout 60 fuse-run %s --runtime reference --dot /dev/full; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=DOTFULL
// RUN: sh -c 'timeout 60 fuse-run %s --runtime reference --dot %t/dir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=DOTDIR
// RUN: sh -c 'timeout 60 fuse-opt %s -o %t/plan.dot; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=OPTOUTFIFO
// RUN: sh -c 'timeout 60 fuse-opt %s -o /dev/full; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=OPTOUTFULL
// RUN: fuse-run %s --runtime reference --dot /dev/null | FileCheck %s --check-prefix=DOTNULL
// RUN: mkdir -p %t/out-fifo %t/out-dir/out0.npy %t/out-link
// RUN: mkfifo %t/out-fifo/out0.npy && ln -s %t/victim %t/out-link/out0.npy
// RUN: sh -c 'timeout 60 fuse-run %s --runtime reference --output-dir %t/out-fifo; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=OUTFIFO
// RUN: sh -c 'timeout 60 fuse-run %s --runtime reference --output-dir %t/out-dir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=OUTDIR
// RUN: sh -c 'timeout 60 fuse-run %s --runtime reference --output-dir %t/out-link; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=OUTLINK
// RUN: not ls %t/victim

// INDIR: fuse-run: error: --input x: cannot read '{{.*}}/dir': it is a directory, not a regular file
// INDIR: {{^}}exit=2{{$}}
// INZERO: fuse-run: error: --input x: cannot read '/dev/zero': it is a character device, not a regular file
// INZERO: {{^}}exit=2{{$}}
// INFIFO: fuse-run: error: --input x: cannot read '{{.*}}/fifo.npy': it is a FIFO, not a regular file
// INFIFO: {{^}}exit=2{{$}}
// INFIFOPB: fuse-run: error: --input x: cannot read '{{.*}}/fifo.pb': it is a FIFO, not a regular file
// INFIFOPB: {{^}}exit=2{{$}}
// INZEROPB: fuse-run: error: --input x: cannot read '{{.*}}/zero.pb': it is a character device, not a regular file
// INZEROPB: {{^}}exit=2{{$}}
// INMEM: fuse-run: error: --input x: '/proc/self/mem': not a .npy file
// INMEM: {{^}}exit=2{{$}}

// DIRMLIR: fuse-run: error: cannot read '{{.*}}/dir.mlir': it is a directory, not a regular file
// DIRMLIR: {{^}}exit=2{{$}}
// DIRONNX: fuse-run: error: cannot read '{{.*}}/dir.onnx': it is a directory, not a regular file
// DIRONNX: {{^}}exit=2{{$}}
// FIFOMLIR: fuse-run: error: cannot read '{{.*}}/fifo.mlir': it is a FIFO, not a regular file
// FIFOMLIR: {{^}}exit=2{{$}}
// FIFOONNX: fuse-run: error: cannot read '{{.*}}/fifo.onnx': it is a FIFO, not a regular file
// FIFOONNX: {{^}}exit=2{{$}}
// ZEROMLIR: fuse-run: error: cannot read '{{.*}}/zero.mlir': it is a character device, not a regular file
// ZEROMLIR: {{^}}exit=2{{$}}
// ZEROONNX: fuse-run: error: cannot read '{{.*}}/zero.onnx': it is a character device, not a regular file
// ZEROONNX: {{^}}exit=2{{$}}

// OPTDIR: fuse-opt: error: cannot read '{{.*}}/dir.mlir': it is a directory, not a regular file
// OPTDIR: {{^}}exit=1{{$}}
// OPTFIFO: fuse-opt: error: cannot read '{{.*}}/fifo.mlir': it is a FIFO, not a regular file
// OPTFIFO: {{^}}exit=1{{$}}
// OPTZERO: fuse-opt: error: cannot read '{{.*}}/zero.mlir': it is a character device, not a regular file
// OPTZERO: {{^}}exit=1{{$}}

// DOTFIFO: fuse-run: error: cannot write '{{.*}}/plan.dot': it is a FIFO that no process reads
// DOTFIFO: {{^}}exit=2{{$}}
// DOTFULL: fuse-run: error: cannot write '/dev/full': No space left on device
// DOTFULL-NOT: LLVM ERROR
// DOTFULL: {{^}}exit=2{{$}}
// DOTDIR: fuse-run: error: cannot write '{{.*}}/dir': it is a directory
// DOTDIR: {{^}}exit=2{{$}}
// OPTOUTFIFO: fuse-opt: error: cannot write '{{.*}}/plan.dot': it is a FIFO that no process reads
// OPTOUTFIFO: {{^}}exit=1{{$}}
// OPTOUTFULL: fuse-opt: error: cannot write '/dev/full': No space left on device
// OPTOUTFULL-NOT: LLVM ERROR
// OPTOUTFULL: {{^}}exit=1{{$}}
// DOTNULL: output out0: tensor<8xf32>

// OUTFIFO: fuse-run: error: cannot write '{{.*}}/out-fifo/out0.npy': it is a FIFO
// OUTFIFO: {{^}}exit=2{{$}}
// OUTDIR: fuse-run: error: cannot write '{{.*}}/out-dir/out0.npy': it is a directory
// OUTDIR: {{^}}exit=2{{$}}
// OUTLINK: fuse-run: error: cannot write '{{.*}}/out-link/out0.npy': it is a symbolic link, which is not followed
// OUTLINK: {{^}}exit=2{{$}}

func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuse.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
