//===- Passes.td - Fuse passes -----------------------------*- tablegen -*-===//
//
// Every pass of Fuse, grouped under banner comments, alphabetical within a
// group; every pass argument starts with `fuse-`.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_PASSES_TD
#define FUSE_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

def FuseDuplicateCheapProducers
    : Pass<"fuse-duplicate-cheap-producers", "func::FuncOp"> {
  let summary = "Give each consumer its own copy of a cheap producer";
  let description = [{
    A broadcast, cast, reshape or transpose with several consumers is cloned
    next to each of them, so that every consumer kernel recomputes it from
    its (usually smaller) operand instead of reading a materialized copy. The
    cost model decides: with `n` consumers, duplicating reads the operand `n`
    times; materializing reads it once, writes the result once and reads the
    result `n` times. The producer is duplicated when that reads and writes
    no more bytes. A consumer outside the fuse dialect (`func.return`) keeps
    the original.

    Run it right before `fuse-form-fusions`: CSE would merge the copies
    again.

    Before:
    ```mlir
    %b = fuse.broadcast %bias, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
    %x = fuse.add %a, %b : tensor<8x32xf32>
    %y = fuse.mul %c, %b : tensor<8x32xf32>
    ```
    After:
    ```mlir
    %b0 = fuse.broadcast %bias, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
    %x = fuse.add %a, %b0 : tensor<8x32xf32>
    %b1 = fuse.broadcast %bias, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
    %y = fuse.mul %c, %b1 : tensor<8x32xf32>
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit one remark per decision, with the bytes it saves or costs">,
  ];
  let statistics = [
    Statistic<"numDuplicated", "duplicated",
              "Cheap producers cloned into their consumers">,
    Statistic<"numKept", "kept",
              "Cheap producers kept because copies would move more bytes">,
  ];
  let dependentDialects = ["::mlir::fuse::FuseDialect"];
}

def FuseFoldEmptyTensors : Pass<"fuse-fold-empty-tensors", "func::FuncOp"> {
  let summary = "Replace ops whose results hold no element by constants";
  let description = [{
    An op whose every result is a static tensor with a dim of 0 (a batch of
    0, a slice that selects nothing) computes nothing: each result becomes a
    `fuse.constant` splat of that empty type, and what only fed it is left
    dead for canonicalization. No kernel then iterates over an empty domain
    (a softmax's row kernel over 0 rows, a convolution over a batch of 0,
    which the host schedules refused), and the values are those the
    reference runtime gives: none. Runs first in the fusion pipeline.

    Before:
    ```mlir
    %e = fuse.exp %x : tensor<0x3xf32>
    ```
    After:
    ```mlir
    %e = fuse.constant dense<0.000000e+00> : tensor<0x3xf32>
    ```
  }];
  let statistics = [
    Statistic<"numFolded", "folded", "Ops with empty results folded">,
  ];
  let dependentDialects = ["::mlir::fuse::FuseDialect"];
}

def FuseFormFusions : Pass<"fuse-form-fusions", "func::FuncOp"> {
  let summary = "Group tensor ops into kernels with a traffic cost model";
  let description = [{
    Decides which ops run as one kernel and marks each fusible op with its
    group (`fuse.group`, an index); `fuse-outline-fusions` turns the groups
    into `fuse.fusion` ops of the schedule kind the cost model gives them.
    Groups grow by merging a producer's group into a consumer's group, in
    four rounds (the second and third repeated until nothing merges):

    1. matmul epilogues: each matmul takes the elementwise, broadcast and
       index-remapping (reshape, transpose) ops that consume its result,
       together with their cheap side inputs (a broadcast bias);
    1b. depthwise convolutions (an im2col read only by slices, the sum over
       window offsets of fuse-lower-convolutions) and their epilogues, as
       round 2 over the ops reachable from the im2col up to a reduction, a
       matmul or a window op: their `window_reduction` kernels form before a
       reduction of their output (a squeeze-and-excitation block's mean)
       could take the sum as its prologue and leave the im2col stored;
    2. every other op, consumers first: elementwise chains with broadcasts
       (`pointwise`); producers into reductions and reduce -> broadcast ->
       elementwise over the same rows (`row_reduction`,
       `column_reduction`, `full_reduction`); a pool with the pointwise ops
       over its output (`window_reduction`);
    3. matmul prologues: a producer group into a matmul operand when it is
       cheap arithmetic that does not multiply the operand's reads.

    A merge happens only when the union is one legal kernel:
    - no path from one group to the other through an op outside both (it
      would make a cycle of kernels);
    - at most one matmul, and no reduction next to it; a prologue holds no
      transcendental op and no reduction (the matmul re-reads its operand
      once per tile: they would be recomputed); fused, the prologue's reads
      times the re-reads cost no more than materializing the operand, plus
      a launch (`launch-cost-bytes`);
    - all reductions agree on rows and reduced columns; every other op
      iterates over the whole domain or over its rows;
    - the `target`'s schedules can run it: on the GPU, a full reduction whose
      result is used over more than one element (reduce-then-broadcast) or a
      column reduction over dims that are not consecutive is not one kernel
      (the host runs both);
    - at most `max-operands` inputs plus outputs, at most
      `max-live-values` values live at once and at most `max-ops` ops (a
      long chain is split: LLVM's register allocation and instruction
      selection take more than linear time in a kernel's length).

    A value needed both inside a group and after it becomes an output of
    the group (multi-output kernels): nothing is computed twice. The bytes
    a merge saves are the traffic of the two kernels minus that of the
    union (inputs read plus outputs written); with `explain`, every
    decision is a remark on the producer, and each function gets a summary
    remark (kernels and estimated bytes before and after, as the statistics
    count them):
    `fused %1 (fuse.exp) into %2 (fuse.reduce): saves 1 KiB of traffic` or
    `not fused %4 (fuse.div) into %5 (fuse.matmul): would recompute a
    reduction for every tile of the matmul`.

    Before:
    ```mlir
    %m = fuse.matmul %x, %w : tensor<8x32xf32>, tensor<32x64xf32> -> tensor<8x64xf32>
    %b = fuse.broadcast %bias, dims = [1] : tensor<64xf32> -> tensor<8x64xf32>
    %a = fuse.add %m, %b : tensor<8x64xf32>
    %s = fuse.reduce sum %a dims = [1] : tensor<8x64xf32> -> tensor<8xf32>
    ```
    After:
    ```mlir
    %m = fuse.matmul %x, %w {fuse.group = 0 : i64} : ...
    %b = fuse.broadcast %bias, dims = [1] {fuse.group = 0 : i64} : ...
    %a = fuse.add %m, %b {fuse.group = 0 : i64} : ...
    %s = fuse.reduce sum %a dims = [1] {fuse.group = 1 : i64} : ...
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit one remark per fusion decision, with its reason">,
    Option<"launchCostBytes", "launch-cost-bytes", "int64_t",
           /*default=*/"16384",
           "What one kernel launch costs, in bytes of memory traffic">,
    Option<"matmulTile", "matmul-tile", "int64_t", /*default=*/"64",
           "Output tile edge of the matmul schedule: an operand is re-read "
           "once per tile of the other dimension">,
    Option<"maxLiveValues", "max-live-values", "unsigned", /*default=*/"32",
           "Most values a kernel may keep live at once (register pressure)">,
    Option<"maxOperands", "max-operands", "unsigned", /*default=*/"16",
           "Most inputs plus outputs of one kernel">,
    Option<"maxOps", "max-ops", "unsigned", /*default=*/"256",
           "Most ops of one kernel (LLVM's compile time grows faster than "
           "linearly with a kernel's length: a long chain is split)">,
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "The target whose schedules decide what one kernel can hold: host "
           "or gpu (the legality rules of ScheduleLegality.h)">,
    Option<"verifyIncremental", "verify-incremental", "bool",
           /*default=*/"false",
           "Check every incremental verdict of GroupPlans against planKernel "
           "on the whole union; a disagreement fails the pass (slow: tests)">,
  ];
  let statistics = [
    Statistic<"numKernelsBefore", "kernels-before",
              "Kernels without fusion (one per tensor op)">,
    Statistic<"numKernelsAfter", "kernels-after", "Kernels after fusion">,
    Statistic<"numBytesBefore", "bytes-before",
              "Estimated bytes read and written without fusion">,
    Statistic<"numBytesAfter", "bytes-after",
              "Estimated bytes read and written after fusion">,
    Statistic<"numFused", "fused", "Merges of a producer into a consumer">,
    Statistic<"numRefused", "refused", "Merges the cost model refused">,
  ];
  let dependentDialects = ["::mlir::fuse::FuseDialect"];
}

def FuseOutlineFusions : Pass<"fuse-outline-fusions", "func::FuncOp"> {
  let summary = "Turn each fusion group into a fuse.fusion kernel";
  let description = [{
    Moves the ops of each `fuse.group` (set by `fuse-form-fusions`) into one
    `fuse.fusion` op of the group's schedule kind, isolated from above:
    values from outside become inputs (constants are cloned in instead), and
    every value used after the group is yielded (multi-output). A fuse op
    without a group gets a fusion of its own, so that afterwards every
    tensor op is inside exactly one `fuse.fusion` and the kernel count is
    the number of fusion ops. The function is then sorted topologically.

    Before:
    ```mlir
    %e = fuse.exp %x {fuse.group = 0 : i64} : tensor<8xf32>
    %t = fuse.tanh %e {fuse.group = 0 : i64} : tensor<8xf32>
    return %e, %t : tensor<8xf32>, tensor<8xf32>
    ```
    After:
    ```mlir
    %r:2 = fuse.fusion pointwise (%x) : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
    ^bb0(%a: tensor<8xf32>):
      %e = fuse.exp %a : tensor<8xf32>
      %t = fuse.tanh %e : tensor<8xf32>
      fuse.yield %e, %t : tensor<8xf32>, tensor<8xf32>
    }
    return %r#0, %r#1 : tensor<8xf32>, tensor<8xf32>
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "The target fuse-form-fusions planned the groups for: host or gpu "
           "(a group is checked against its schedules again)">,
  ];
  let dependentDialects = ["::mlir::fuse::FuseDialect"];
}

def FuseHorizontalFusion : Pass<"fuse-horizontal-fusion", "func::FuncOp"> {
  let summary = "Run independent matmul kernels that share their input as "
                "one launch";
  let description = [{
    Groups `fuse.fusion matmul` kernels whose matmuls read one lhs value (the
    query, key and value projections of attention) into one
    `fuse.fusion horizontal`: one launch whose work items are those of its
    members laid end to end, so that the shared input is read while it is
    in cache and the threads share out the members' tiles together. A
    member joins only when it reads nothing computed after the group's first
    kernel, so it depends on no other member; it moves up to the first.
    Kernels with run-time checks (gathers, scatters) stay alone. Does
    nothing for a target without horizontal launches (the GPU).

    Before:
    ```mlir
    %q = fuse.fusion matmul (%x, %wq) : ... { ... }
    %k = fuse.fusion matmul (%x, %wk) : ... { ... }
    ```
    After:
    ```mlir
    %h:2 = fuse.fusion horizontal (%x, %wq, %wk) : ... {
    ^bb0(%a: ..., %b: ..., %c: ...):
      %q = fuse.fusion matmul (%a, %b) : ... { ... }
      %k = fuse.fusion matmul (%a, %c) : ... { ... }
      fuse.yield %q, %k : ...
    }
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Report each horizontal fusion as a remark">,
    Option<"maxMembers", "max-members", "unsigned", /*default=*/"8",
           "The most kernels one horizontal fusion holds">,
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "host or gpu (the GPU has no horizontal launches)">,
  ];
  let statistics = [
    Statistic<"numHorizontal", "horizontal-fusions",
              "Number of horizontal fusions formed">,
  ];
  let dependentDialects = ["::mlir::fuse::FuseDialect"];
}

//===----------------------------------------------------------------------===//
// Lowering of ops no schedule runs yet
//===----------------------------------------------------------------------===//

def FuseFoldMatmulTransposes
    : Pass<"fuse-fold-matmul-transposes", "func::FuncOp"> {
  let summary = "Read a matmul's B through its transpose flag";
  let description = [{
    Inside a `fuse.fusion` (after outlining, so the values it makes stay
    in the kernel and are never stored between kernels): a `fuse.matmul`
    whose B is `fuse.transpose` of X that puts X's innermost dim second to
    last reads X (or X transposed by the same permutation with its last two
    entries swapped) with `transpose_b` flipped instead (B only: the
    attention schedule reads Q without `transpose_a`). Where B is a
    product, quotient, sum or difference of such a transpose and a splat
    constant, used only
    by the matmul (a scale on K, as PyTorch's scaled_dot_product_attention
    exports it), the op moves before the transpose. The schedules then read
    K's rows as they are stored: an attention kernel stages K [N, D] a row
    of D at a time and transposes whole squares of vectors in registers,
    where through the transpose every element of K^T [D, N] was a gather
    (GPT-2's and Llama's exported attention, their heads split by
    transposes inside the kernel). Any other transpose stays.

    Before:
    ```mlir
    %kt = fuse.transpose %k, permutation = [0, 2, 1] : tensor<4x9x8xf32> -> tensor<4x8x9xf32>
    %s = fuse.matmul %q, %kt : tensor<4x5x8xf32>, tensor<4x8x9xf32> -> tensor<4x5x9xf32>
    ```
    After:
    ```mlir
    %s = fuse.matmul %q, %k transpose_b : tensor<4x5x8xf32>, tensor<4x9x8xf32> -> tensor<4x5x9xf32>
    ```
  }];
  let statistics = [
    Statistic<"numFolded", "folded", "Matmul operands read through a flag">,
  ];
  let dependentDialects = ["::mlir::fuse::FuseDialect"];
}

def FuseLowerMatvecs : Pass<"fuse-lower-matvecs", "func::FuncOp"> {
  let summary = "Rewrite few-row matmuls with a transposed B as row reductions";
  let description = [{
    A `fuse.matmul` with `transpose_b`, an unbatched B [N, K], at most four
    rows of C in all (a classifier at batch 1, a decoder step) and f32 or
    f64 elements becomes the sum over k of A[..., m, k] * B[n, k]: A and B
    broadcast to [..., M, N, K], multiplied, reduced over the last dim (a
    row reduction that reads B once, contiguously) into C's shape. The
    matmul schedules vectorize over C's columns, so each vector of a
    transposed B would be a gather. Lower precisions keep the matmul, which
    accumulates in f32 where the products would be rounded.

    Before:
    ```mlir
    %c = fuse.matmul %a, %b transpose_b : tensor<1x3xf32>, tensor<5x3xf32> -> tensor<1x5xf32>
    ```
    After:
    ```mlir
    %sa = fuse.broadcast %a, dims = [0, 2] : tensor<1x3xf32> -> tensor<1x5x3xf32>
    %sb = fuse.broadcast %b, dims = [1, 2] : tensor<5x3xf32> -> tensor<1x5x3xf32>
    %p = fuse.mul %sa, %sb : tensor<1x5x3xf32>
    %c = fuse.reduce sum %p dims = [2] : tensor<1x5x3xf32> -> tensor<1x5xf32>
    ```
  }];
  let statistics = [
    Statistic<"numLowered", "lowered", "Matmuls rewritten as row reductions">,
  ];
  let dependentDialects = ["::mlir::fuse::FuseDialect"];
}

def FuseLowerConvolutions
    : Pass<"fuse-lower-convolutions", "func::FuncOp"> {
  let summary = "Rewrite fuse.conv into an im2col and a matmul, or slices";
  let description = [{
    A stand-in until an implicit-GEMM convolution schedule (issues 18 and
    20) replaces it. Each `fuse.conv` becomes its column matrix
    (`fuse.im2col`: [N, C, K, P], one row per channel and kernel offset, one
    column per output position, zero in the padding; a 1x1 convolution with
    unit strides and no padding reads the input as it is), reshaped, and one
    `fuse.matmul` with the weight reshaped to [M, C * K]; with groups, the
    columns are [N, G, C / G * K, P] and the weight [G, M / G, C / G * K]
    (broadcast over N when N > 1), one batched matmul for every group. The
    bias is broadcast and added.

    A depthwise convolution (one input channel per group, as many output
    channels) becomes instead the sum over the kernel offsets k of the
    im2col's slice at k times the channel's weight there (a slice of the
    weight, broadcast): a matmul of one row per group wastes most of its
    register tile. The slices fuse with the im2col into one window_reduction
    kernel that reads the input at each offset and never stores the column
    matrix (K times the input). Host and GPU lower alike; `target` is
    checked so that a pipeline names the one it builds for.

    Before:
    ```mlir
    %y = fuse.conv %x, %w strides = [1] dilations = [1] pads = [1, 1] group = 1
        : tensor<1x2x5xf32>, tensor<4x2x3xf32> -> tensor<1x4x5xf32>
    ```
    After:
    ```mlir
    %k = fuse.im2col %x window = [3] strides = [1] dilations = [1] pads = [1, 1]
        : tensor<1x2x5xf32> -> tensor<1x2x3x5xf32>
    %wm = fuse.reshape %w : tensor<4x2x3xf32> -> tensor<4x6xf32>
    %c = fuse.reshape %k : tensor<1x2x3x5xf32> -> tensor<1x6x5xf32>
    %y = fuse.matmul %wm, %c : tensor<4x6xf32>, tensor<1x6x5xf32> -> tensor<1x4x5xf32>
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "The target whose kernels run the result: host or gpu">,
  ];
  let statistics = [
    Statistic<"numLowered", "lowered", "Convolutions rewritten">,
  ];
  let dependentDialects = ["::mlir::fuse::FuseDialect"];
}

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

def FuseSelectSchedules : Pass<"fuse-select-schedules", "func::FuncOp"> {
  let summary = "Decide how each fusion runs on a target, and check it can";
  let description = [{
    For each `fuse.fusion`, checks that its schedule kind can run on the
    target (passes/ScheduleLegality: the rule the host and GPU code
    generators build their kernels from) and records the decision as a
    `fuse.schedule` dictionary on the fusion: the kind (an argmax or argmin
    becomes a `column_reduction` where the target scans them that way) and
    its extents (`rows` and `row_length`; `outer`, `reduced` and `inner`;
    `elements`) and the vector width. A fusion the target cannot run is an
    error at the op that prevents it, naming the target and the schedule.

    Target differences are options, not target names in shared code:
    `target=host` (reduced dims of a column reduction may interleave with
    kept ones; argmax and argmin are column scans) or `target=gpu`, and the
    vector width.

    ```mlir
    %0 = fuse.fusion row_reduction (%x) {fuse.schedule = {kind = "row_reduction",
        row_length = 64 : i64, rows = 8 : i64, vector_width = 16 : i64}} ...
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "The target whose code generator runs the fusions: host or gpu">,
    Option<"vectorWidth", "vector-width", "unsigned", /*default=*/"16",
           "Lanes of f32 arithmetic per vector step (host: 8 for "
           "x86-64-v3, 16 for x86-64-v4; the GPU always uses 4)">,
  ];
  let dependentDialects = ["::mlir::fuse::FuseDialect"];
}

#endif // FUSE_PASSES_TD
