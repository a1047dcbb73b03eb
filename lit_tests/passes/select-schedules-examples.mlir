// The fusion pipeline then fuse-select-schedules on example graphs: every
// fusion carries its schedule, on the host and the GPU.

// RUN: fuse-opt %S/../../examples/encoder_layer.mlir --fuse-fusion-pipeline --fuse-select-schedules | FileCheck %s --check-prefix=HOST
// RUN: fuse-opt %S/../../examples/encoder_layer.mlir --fuse-fusion-pipeline=target=gpu --fuse-select-schedules=target=gpu | FileCheck %s --check-prefix=ENCODER
// RUN: fuse-opt %S/../../examples/softmax.mlir --fuse-fusion-pipeline --fuse-select-schedules=target=gpu | FileCheck %s --check-prefix=SOFTMAX
// RUN: fuse-opt %S/../../examples/sum_squares.mlir --fuse-fusion-pipeline --fuse-select-schedules | FileCheck %s --check-prefix=SUM

// The host and the GPU run attention as one kernel (the GPU's scores in
// shared memory: its limits are the target's), then the output projection
// with the residual, layernorm, the MLP and layernorm.
// HOST-COUNT-3: fuse.fusion matmul{{.*}}fuse.schedule = {kind = "matmul"
// HOST: fuse.fusion attention{{.*}}fuse.schedule = {batch = 4 : i64, keys = 64 : i64, kind = "attention", rows = 64 : i64
// HOST-COUNT-1: fuse.fusion matmul{{.*}}fuse.schedule = {kind = "matmul"
// HOST: fuse.fusion row_reduction{{.*}}fuse.schedule = {kind = "row_reduction", row_length = 128 : i64, rows = 64 : i64
// HOST-COUNT-2: fuse.fusion matmul{{.*}}fuse.schedule = {kind = "matmul"
// HOST: fuse.fusion row_reduction{{.*}}fuse.schedule = {kind = "row_reduction", row_length = 128 : i64, rows = 64 : i64
// HOST-NOT: fuse.fusion

// ENCODER-COUNT-3: fuse.fusion matmul{{.*}}fuse.schedule = {kind = "matmul"
// ENCODER: fuse.fusion attention{{.*}}fuse.schedule = {batch = 4 : i64, keys = 64 : i64, kind = "attention", rows = 64 : i64, vector_width = 4 : i64}
// ENCODER-COUNT-1: fuse.fusion matmul{{.*}}fuse.schedule = {kind = "matmul"
// ENCODER: fuse.fusion row_reduction{{.*}}fuse.schedule = {kind = "row_reduction", row_length = 128 : i64, rows = 64 : i64
// ENCODER-COUNT-2: fuse.fusion matmul{{.*}}fuse.schedule = {kind = "matmul"
// ENCODER: fuse.fusion row_reduction{{.*}}fuse.schedule = {kind = "row_reduction", row_length = 128 : i64, rows = 64 : i64
// ENCODER-NOT: fuse.fusion

// SOFTMAX: fuse.fusion row_reduction{{.*}}fuse.schedule = {kind = "row_reduction", row_length = 256 : i64, rows = 32 : i64, vector_width = 4 : i64}
// SOFTMAX-NOT: fuse.fusion

// SUM: fuse.fusion full_reduction{{.*}}fuse.schedule = {elements = 4096 : i64, kind = "full_reduction", vector_width = 16 : i64}
