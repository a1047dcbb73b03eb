// Random graphs (elementwise ops, reductions over any dims, broadcasts,
// transposes, reshapes, slices, matmuls) through fusion formation on both
// targets. Two properties:
//  1. fuse-form-fusions' incremental verdicts (GroupPlans) are planKernel's on
//     the whole union, for every merge tried (verify-incremental fails the pass
//     on the first disagreement);
//  2. every fusion formed is one that the target's schedule runs:
//     fuse-select-schedules, ScheduleLegality's analysis, accepts all of them,
//     and every schedule kind occurs. (The GPU reduces only consecutive dims
//     in a column reduction, which a lone reduce op cannot avoid: its graphs
//     reduce consecutive dims.)

// RUN: %python %S/Inputs/random_graphs.py --seed 1 --count 300 > %t.host.mlir
// RUN: fuse-opt %t.host.mlir "-fuse-form-fusions=target=host verify-incremental=true" -o /dev/null
// RUN: fuse-opt %t.host.mlir -fuse-fusion-pipeline=target=host -fuse-select-schedules=target=host | FileCheck %s --check-prefix=KINDS

// RUN: %python %S/Inputs/random_graphs.py --seed 2 --count 300 --consecutive-dims > %t.gpu.mlir
// RUN: fuse-opt %t.gpu.mlir "-fuse-form-fusions=target=gpu verify-incremental=true" -o /dev/null
// RUN: fuse-opt %t.gpu.mlir -fuse-fusion-pipeline=target=gpu -fuse-select-schedules=target=gpu | FileCheck %s --check-prefix=KINDS

// KINDS-DAG: kind = "pointwise"
// KINDS-DAG: kind = "row_reduction"
// KINDS-DAG: kind = "column_reduction"
// KINDS-DAG: kind = "full_reduction"
// KINDS-DAG: kind = "matmul"
