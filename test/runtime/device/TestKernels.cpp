//===- TestKernels.cpp - Hand-written host kernels for runtime tests ------===//
//
// Built by the test build into a shared object whose bytes the tests put in
// a Bundle, standing in for what the compiler emits: extern "C" functions in
// the host kernel ABI of runtime/device/KernelAbi.h.
//
//===----------------------------------------------------------------------===//

#include "runtime/device/KernelAbi.h"

extern "C" {

/// out = a + b, f32; buffers: a, b, out.
void fuse_test_add_f32(void **buffers, int64_t begin, int64_t end) {
  const float *a = static_cast<const float *>(buffers[0]);
  const float *b = static_cast<const float *>(buffers[1]);
  float *out = static_cast<float *>(buffers[2]);
  for (int64_t i = begin; i < end; ++i)
    out[i] = a[i] + b[i];
}

/// out = a * b, f32; buffers: a, b, out.
void fuse_test_mul_f32(void **buffers, int64_t begin, int64_t end) {
  const float *a = static_cast<const float *>(buffers[0]);
  const float *b = static_cast<const float *>(buffers[1]);
  float *out = static_cast<float *>(buffers[2]);
  for (int64_t i = begin; i < end; ++i)
    out[i] = a[i] * b[i];
}

/// out[i] = the first iteration of i's chunk, i64; buffers: out.
void fuse_test_record_chunks(void **buffers, int64_t begin, int64_t end) {
  int64_t *out = static_cast<int64_t *>(buffers[0]);
  for (int64_t i = begin; i < end; ++i)
    out[i] = begin;
}

/// x += 1 in place, i32; buffers: x.
void fuse_test_increment_i32(void **buffers, int64_t begin, int64_t end) {
  int32_t *x = static_cast<int32_t *>(buffers[0]);
  for (int64_t i = begin; i < end; ++i)
    x[i] += 1;
}
}
