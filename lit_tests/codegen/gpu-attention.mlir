// Attention as one GPU kernel (GpuAttentionEmitter): the spellings of
// attention.mlir (the host's test: a scale on the scores or a square-root
// scale on Q and K, additive and boolean masks, K and V read through
// transpose_b or given transposed, heads split by reshape + transpose, K/V
// repeated for grouped-query heads, P cleaned by select(isnan)) compiled
// for sm_90 and sm_80, and this file's three attentions:
//   e: 13 keys, Q rows of 7, V rows of 10 (no multiple of 4: scalar
//      scores, row passes and output), an additive mask per query row;
//   f: 2048 keys: blocks of 4 query rows (32 KiB of scores in shared
//      memory);
//   g: 9000 keys, over the GPU's 8192 (a row of scores would not fit its
//      shared memory): a matmul, a row kernel and a matmul, as before.
// One block of 256 threads per (head, block of query rows); the scores live
// in shared memory, never in global memory: the kernels bind Q, K, V, the
// mask and the output, and the arena holds no M x N buffer but g's. ptxas
// accepts every kernel for both architectures without spills
// (fuse-compile --timings prints its -v report). The CUDA runtime runs
// these against the reference where a GPU is present (bench/gpu/run.sh).

// REQUIRES: ptxas
// RUN: rm -rf %t
// RUN: fuse-compile %S/attention.mlir --target=sm_90 -o %t/a90 --timings 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: fuse-compile %S/attention.mlir --target=sm_80 -o %t/a80 --timings 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: FileCheck %s --check-prefix=SPELLINGS < %t/a90/bundle.txt
// RUN: FileCheck %s --check-prefix=SPELLINGS < %t/a80/bundle.txt
// RUN: fuse-compile %S/attention.mlir --target=sm_90 --emit=kernels | FileCheck %s --check-prefix=KERNELS
// RUN: fuse-compile %s --target=sm_90 -o %t/b90 --timings 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: fuse-compile %s --target=sm_80 -o %t/b80 --timings 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: FileCheck %s --check-prefix=SIZES < %t/b90/bundle.txt
// RUN: FileCheck %s --check-prefix=SIZES < %t/b80/bundle.txt
// RUN: fuse-compile %s --target=sm_90 --emit=kernels | FileCheck %s --check-prefix=SHARED
// RUN: %ptxas -arch=sm_80 -v %t/b80/fuse_k1_attention.ptx -o %t/f80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90 -v %t/b90/fuse_k1_attention.ptx -o %t/f90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// fuse-form-fusions says why g is no attention kernel on the GPU.
// RUN: fuse-opt %s --fuse-form-fusions="target=gpu explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=WHY
// The host runs the same three attentions as one kernel each (g's 9000
// keys are within its limit) and matches the reference.
// RUN: fuse-run %s --check --cache-dir %t/cache | FileCheck %s --check-prefix=HOST

// NOSPILL: total
// NOSPILL: Compiling entry function
// NOSPILL: 0 bytes spill stores, 0 bytes spill loads
// NOSPILL-NOT: {{[1-9][0-9]* bytes spill}}

// attention.mlir: a, b and c in one kernel each (40 query rows in blocks of
// 16 and 8: 3 blocks per head, 8 heads); d returns its probabilities, so its
// scores are stored: a matmul, a row kernel, a matmul. The kernels of a, b
// bind Q, K (or K transposed), the mask and V, and the output.
// SPELLINGS: kernels 7
// SPELLINGS-NEXT: kernel 0 fuse_k0_attention schedule attention grid 24 block 256
// SPELLINGS-NEXT: ops 0:matmul {{.*}}5:reduce {{.*}}9:reduce {{.*}}12:matmul
// SPELLINGS-NEXT: bindings input#0(%0) input#1(%1) input#3(%3) input#2(%2) output#0(
// SPELLINGS-NEXT: kernel 1 fuse_k1_attention schedule attention grid 24 block 256
// SPELLINGS-NEXT: ops {{.*}}:select {{.*}}:reciprocal {{.*}}:matmul
// SPELLINGS-NEXT: bindings input#6(%6) input#0(%0) input#4(%4) input#5(%5) output#1(
// SPELLINGS-NEXT: kernel 2 fuse_k2_attention schedule attention grid 24 block 256
// SPELLINGS-NEXT: ops {{.*}}:transpose {{.*}}:isnan {{.*}}:matmul
// SPELLINGS-NEXT: bindings input#7(%7) input#8(%8) arena#0(
// SPELLINGS-NEXT: kernel 3 fuse_k3_pointwise schedule pointwise
// SPELLINGS: kernel 4 fuse_k4_matmul schedule matmul
// SPELLINGS: kernel 5 fuse_k5_rows schedule row-reduction
// SPELLINGS: kernel 6 fuse_k6_matmul schedule matmul

// A block's 16 rows of 24 scores in shared memory; no global buffer of
// scores; the rows' max and sum by warp shuffles.
// KERNELS-LABEL: gpu.module @fuse_k0_attention_module
// KERNELS-NEXT: llvm.mlir.global internal @fuse_k0_attention_scores() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<384 x f32>
// KERNELS: gpu.func @fuse_k0_attention({{[^)]*}}) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// KERNELS: llvm.mlir.addressof @fuse_k0_attention_scores : !llvm.ptr<3>
// KERNELS: math.fma {{.*}} : vector<4xf32>
// KERNELS: llvm.store {{.*}} : vector<4xf32>, !llvm.ptr<3>
// KERNELS: gpu.barrier
// KERNELS: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xf32>
// KERNELS: gpu.subgroup_reduce maximumf
// KERNELS: math.exp
// KERNELS: gpu.subgroup_reduce add
// KERNELS: arith.divf
// KERNELS: llvm.store {{.*}} : vector<4xf32>, !llvm.ptr<3>
// KERNELS: gpu.barrier
// KERNELS: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// KERNELS: math.fma {{.*}} : vector<4xf32>
// KERNELS: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// KERNELS-NEXT: }
// KERNELS-NEXT: gpu.return
// KERNELS-LABEL: gpu.module @fuse_k1_attention_module

// e: 3 heads x 2 blocks (16 + 4 rows); f: 2 heads x 2 blocks of 4 rows;
// g: three kernels, its scores and P (4 x 9000) in the arena, the only
// buffers there.
// SIZES: kernels 5
// SIZES-NEXT: kernel 0 fuse_k0_attention schedule attention grid 6 block 256
// SIZES-NEXT: ops
// SIZES-NEXT: bindings input#0(%0) input#1(%1) input#3(%3) input#2(%2) output#0(
// SIZES-NEXT: kernel 1 fuse_k1_attention schedule attention grid 4 block 256
// SIZES-NEXT: ops
// SIZES-NEXT: bindings input#4(%4) input#5(%5) input#6(%6) output#1(
// SIZES-NEXT: kernel 2 fuse_k2_matmul schedule matmul
// SIZES: kernel 3 fuse_k3_rows schedule row-reduction
// SIZES: kernel 4 fuse_k4_matmul schedule matmul
// SIZES: arena 288000 bytes
// SIZES-NEXT: arena#0 tensor {{.*}} bytes 144000
// SIZES-NEXT: arena#1 tensor {{.*}} bytes 144000
// SIZES-NOT: arena#

// SHARED: llvm.mlir.global internal @fuse_k0_attention_scores() {{.*}} : !llvm.array<208 x f32>
// SHARED: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// SHARED-NOT: {{(llvm.load|llvm.store|math.fma).*vector<4xf32>}}
// SHARED: gpu.module @fuse_k1_attention_module
// SHARED-NEXT: llvm.mlir.global internal @fuse_k1_attention_scores() {{.*}} : !llvm.array<8192 x f32>

// WHY: remark: attention kernel: %0 (fuse.matmul) and %10 (fuse.matmul)
// WHY: remark: attention kernel: %11 (fuse.matmul) and %19 (fuse.matmul)
// WHY: remark: no attention kernel for %28 (fuse.matmul): 'fuse.matmul' op cannot be generated for the GPU as an attention kernel: its rows of Q or V (8, 8) are over 512 elements or its keys (9000) over 8192

// PTXAS: Used {{[0-9]+}} registers, used 1 barriers, 32768 bytes smem

// HOST: check: passed, 3 outputs match the reference

func.func @odd(%q: tensor<1x3x20x7xf32>, %k: tensor<1x3x13x7xf32>,
               %v: tensor<1x3x13x10xf32>, %mask: tensor<1x1x20x13xf32>,
               %q2: tensor<1x2x8x16xf32>, %k2: tensor<1x2x2048x16xf32>,
               %v2: tensor<1x2x2048x16xf32>,
               %q3: tensor<1x1x4x8xf32>, %k3: tensor<1x1x9000x8xf32>,
               %v3: tensor<1x1x9000x8xf32>)
    -> (tensor<1x3x20x10xf32>, tensor<1x2x8x16xf32>, tensor<1x1x4x8xf32>) {
  // e
  %se = fuse.matmul %q, %k transpose_b : tensor<1x3x20x7xf32>, tensor<1x3x13x7xf32> -> tensor<1x3x20x13xf32>
  %me = fuse.broadcast %mask, dims = [0, 1, 2, 3] : tensor<1x1x20x13xf32> -> tensor<1x3x20x13xf32>
  %te = fuse.add %se, %me : tensor<1x3x20x13xf32>
  %xe = fuse.reduce max %te dims = [3] keep_dims : tensor<1x3x20x13xf32> -> tensor<1x3x20x1xf32>
  %xeb = fuse.broadcast %xe, dims = [0, 1, 2, 3] : tensor<1x3x20x1xf32> -> tensor<1x3x20x13xf32>
  %de = fuse.sub %te, %xeb : tensor<1x3x20x13xf32>
  %ee = fuse.exp %de : tensor<1x3x20x13xf32>
  %le = fuse.reduce sum %ee dims = [3] keep_dims : tensor<1x3x20x13xf32> -> tensor<1x3x20x1xf32>
  %leb = fuse.broadcast %le, dims = [0, 1, 2, 3] : tensor<1x3x20x1xf32> -> tensor<1x3x20x13xf32>
  %pe = fuse.div %ee, %leb : tensor<1x3x20x13xf32>
  %oe = fuse.matmul %pe, %v : tensor<1x3x20x13xf32>, tensor<1x3x13x10xf32> -> tensor<1x3x20x10xf32>
  // f
  %sf = fuse.matmul %q2, %k2 transpose_b : tensor<1x2x8x16xf32>, tensor<1x2x2048x16xf32> -> tensor<1x2x8x2048xf32>
  %xf = fuse.reduce max %sf dims = [3] keep_dims : tensor<1x2x8x2048xf32> -> tensor<1x2x8x1xf32>
  %xfb = fuse.broadcast %xf, dims = [0, 1, 2, 3] : tensor<1x2x8x1xf32> -> tensor<1x2x8x2048xf32>
  %df = fuse.sub %sf, %xfb : tensor<1x2x8x2048xf32>
  %ef = fuse.exp %df : tensor<1x2x8x2048xf32>
  %lf = fuse.reduce sum %ef dims = [3] keep_dims : tensor<1x2x8x2048xf32> -> tensor<1x2x8x1xf32>
  %lfb = fuse.broadcast %lf, dims = [0, 1, 2, 3] : tensor<1x2x8x1xf32> -> tensor<1x2x8x2048xf32>
  %pf = fuse.div %ef, %lfb : tensor<1x2x8x2048xf32>
  %of = fuse.matmul %pf, %v2 : tensor<1x2x8x2048xf32>, tensor<1x2x2048x16xf32> -> tensor<1x2x8x16xf32>
  // g
  %sg = fuse.matmul %q3, %k3 transpose_b : tensor<1x1x4x8xf32>, tensor<1x1x9000x8xf32> -> tensor<1x1x4x9000xf32>
  %xg = fuse.reduce max %sg dims = [3] keep_dims : tensor<1x1x4x9000xf32> -> tensor<1x1x4x1xf32>
  %xgb = fuse.broadcast %xg, dims = [0, 1, 2, 3] : tensor<1x1x4x1xf32> -> tensor<1x1x4x9000xf32>
  %dg = fuse.sub %sg, %xgb : tensor<1x1x4x9000xf32>
  %eg = fuse.exp %dg : tensor<1x1x4x9000xf32>
  %lg = fuse.reduce sum %eg dims = [3] keep_dims : tensor<1x1x4x9000xf32> -> tensor<1x1x4x1xf32>
  %lgb = fuse.broadcast %lg, dims = [0, 1, 2, 3] : tensor<1x1x4x1xf32> -> tensor<1x1x4x9000xf32>
  %pg = fuse.div %eg, %lgb : tensor<1x1x4x9000xf32>
  %og = fuse.matmul %pg, %v3 : tensor<1x1x4x9000xf32>, tensor<1x1x9000x8xf32> -> tensor<1x1x4x8xf32>
  return %oe, %of, %og : tensor<1x3x20x10xf32>, tensor<1x2x8x16xf32>, tensor<1x1x4x8xf32>
}
