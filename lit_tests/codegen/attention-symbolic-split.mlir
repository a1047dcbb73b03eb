// Issue 22: an attention with runtime dims laid out as GPT-2's
// dynamic-axes export has it: Q, K and V sliced out of one [batch,
// sequence, 768] tensor and split into 4 heads by reshapes and transposes,
// K read transposed (transpose_b), Q and K scaled, a causal mask from two
// iotas over the symbolic sequence and a padding mask, a softmax with
// PyTorch's NaN guard. The kernel reads each row of Q, K and V and each
// row of scores split at the row (splitAtRow): the maps' quotients by
// runtime sizes (the heads' and the masks' broadcasts) are the row's, so
// the optimized code of the row passes' vector loops divides nothing (no
// lshr, the magic-number division, in the max pass's loop). One bundle
// serves every length; each run is checked against the reference runtime on
// random inputs, at lengths below, at and past a vector (16) and a tile of
// keys (64).

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-compile %s --target=host-x86-64-v4 --emit=llvm | awk -v RS= '/phi <16 x i1>/ && /mask[.]range[.]ps[.]512/' | FileCheck %s --check-prefix=LLVM
// RUN: fuse-run %s --dim batch=1 --dim sequence=1 --check --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --dim batch=2 --dim sequence=17 --check --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --dim batch=1 --dim sequence=64 --check --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --dim batch=3 --dim sequence=101 --check --cache-dir %t/cache | FileCheck %s
// RUN: fuse-run %s --dim batch=1 --dim sequence=130 --check --cache-dir %t/cache | FileCheck %s

// The max pass's vector loops (the basic blocks, awk's paragraphs, that
// carry mask lanes, phi <16 x i1>, into a vrangeps): no division.
// LLVM-NOT: {{= (lshr|udiv|urem) }}
// LLVM: phi <16 x i1>
// LLVM: @llvm.x86.avx512.mask.range.ps.512
// LLVM-NOT: {{= (lshr|udiv|urem) }}

// CHECK: check: passed

func.func @main(%qkv: tensor<?x?x768xf32, #fuse.dims<batch, sequence>>,
                %pad: tensor<?x?xi64, #fuse.dims<batch, sequence>>)
    -> tensor<?x4x?x64xf32, #fuse.dims<batch, sequence>> {
  %padb = fuse.cast %pad : tensor<?x?xi64, #fuse.dims<batch, sequence>> to tensor<?x?xi1, #fuse.dims<batch, sequence>>
  %i0 = fuse.iota axis = 0 : tensor<?xi64, #fuse.dims<sequence>>
  %i1 = fuse.iota axis = 0 : tensor<?xi64, #fuse.dims<sequence>>
  %rows = fuse.reshape %i0 : tensor<?xi64, #fuse.dims<sequence>> -> tensor<1x1x?x1xi64, #fuse.dims<sequence>>
  %cols = fuse.reshape %i1 : tensor<?xi64, #fuse.dims<sequence>> -> tensor<1x1x1x?xi64, #fuse.dims<sequence>>
  %colsb = fuse.broadcast %cols, dims = [0, 1, 2, 3] : tensor<1x1x1x?xi64, #fuse.dims<sequence>> -> tensor<1x1x?x?xi64, #fuse.dims<sequence, sequence>>
  %rowsb = fuse.broadcast %rows, dims = [0, 1, 2, 3] : tensor<1x1x?x1xi64, #fuse.dims<sequence>> -> tensor<1x1x?x?xi64, #fuse.dims<sequence, sequence>>
  %causal = fuse.compare le, %colsb, %rowsb : tensor<1x1x?x?xi64, #fuse.dims<sequence, sequence>>
  %pad4 = fuse.reshape %padb : tensor<?x?xi1, #fuse.dims<batch, sequence>> -> tensor<?x1x1x?xi1, #fuse.dims<batch, sequence>>
  %cb = fuse.broadcast %causal, dims = [0, 1, 2, 3] : tensor<1x1x?x?xi1, #fuse.dims<sequence, sequence>> -> tensor<?x1x?x?xi1, #fuse.dims<batch, sequence, sequence>>
  %pb = fuse.broadcast %pad4, dims = [0, 1, 2, 3] : tensor<?x1x1x?xi1, #fuse.dims<batch, sequence>> -> tensor<?x1x?x?xi1, #fuse.dims<batch, sequence, sequence>>
  %mask = fuse.and %cb, %pb : tensor<?x1x?x?xi1, #fuse.dims<batch, sequence, sequence>>
  %qs = fuse.slice %qkv offsets = [0, 0, 0] sizes = [-1, -1, 256] strides = [1, 1, 1] : tensor<?x?x768xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %ks = fuse.slice %qkv offsets = [0, 0, 256] sizes = [-1, -1, 256] strides = [1, 1, 1] : tensor<?x?x768xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %vs = fuse.slice %qkv offsets = [0, 0, 512] sizes = [-1, -1, 256] strides = [1, 1, 1] : tensor<?x?x768xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x256xf32, #fuse.dims<batch, sequence>>
  %q4 = fuse.reshape %qs : tensor<?x?x256xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x4x64xf32, #fuse.dims<batch, sequence>>
  %k4 = fuse.reshape %ks : tensor<?x?x256xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x4x64xf32, #fuse.dims<batch, sequence>>
  %v4 = fuse.reshape %vs : tensor<?x?x256xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x4x64xf32, #fuse.dims<batch, sequence>>
  %q = fuse.transpose %q4, permutation = [0, 2, 1, 3] : tensor<?x?x4x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x?x64xf32, #fuse.dims<batch, sequence>>
  %k = fuse.transpose %k4, permutation = [0, 2, 1, 3] : tensor<?x?x4x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x?x64xf32, #fuse.dims<batch, sequence>>
  %v = fuse.transpose %v4, permutation = [0, 2, 1, 3] : tensor<?x?x4x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x?x64xf32, #fuse.dims<batch, sequence>>
  %scale = fuse.constant dense<0.353553385> : tensor<f32>
  %scaleb = fuse.broadcast %scale, dims = [] : tensor<f32> -> tensor<?x4x?x64xf32, #fuse.dims<batch, sequence>>
  %qq = fuse.mul %q, %scaleb : tensor<?x4x?x64xf32, #fuse.dims<batch, sequence>>
  %kk = fuse.mul %k, %scaleb : tensor<?x4x?x64xf32, #fuse.dims<batch, sequence>>
  %s = fuse.matmul %qq, %kk transpose_b : tensor<?x4x?x64xf32, #fuse.dims<batch, sequence>>, tensor<?x4x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %ninf = fuse.constant dense<0xFF800000> : tensor<f32>
  %ninfb = fuse.broadcast %ninf, dims = [] : tensor<f32> -> tensor<?x1x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %zero = fuse.constant dense<0.0> : tensor<f32>
  %zerob = fuse.broadcast %zero, dims = [] : tensor<f32> -> tensor<?x1x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %bias = fuse.select %mask, %zerob, %ninfb : tensor<?x1x?x?xi1, #fuse.dims<batch, sequence, sequence>>, tensor<?x1x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %biasb = fuse.broadcast %bias, dims = [0, 1, 2, 3] : tensor<?x1x?x?xf32, #fuse.dims<batch, sequence, sequence>> -> tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %x = fuse.add %s, %biasb : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %m = fuse.reduce max %x dims = [3] keep_dims : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>> -> tensor<?x4x?x1xf32, #fuse.dims<batch, sequence>>
  %mb = fuse.broadcast %m, dims = [0, 1, 2, 3] : tensor<?x4x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %d = fuse.sub %x, %mb : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %e = fuse.exp %d : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %sum = fuse.reduce sum %e dims = [3] keep_dims : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>> -> tensor<?x4x?x1xf32, #fuse.dims<batch, sequence>>
  %sumb = fuse.broadcast %sum, dims = [0, 1, 2, 3] : tensor<?x4x?x1xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %p = fuse.div %e, %sumb : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %nan = fuse.isnan %p : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %z4b = fuse.broadcast %zero, dims = [] : tensor<f32> -> tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %pg = fuse.select %nan, %z4b, %p : tensor<?x4x?x?xi1, #fuse.dims<batch, sequence, sequence>>, tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %o = fuse.matmul %pg, %v : tensor<?x4x?x?xf32, #fuse.dims<batch, sequence, sequence>>, tensor<?x4x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x4x?x64xf32, #fuse.dims<batch, sequence>>
  return %o : tensor<?x4x?x64xf32, #fuse.dims<batch, sequence>>
}
