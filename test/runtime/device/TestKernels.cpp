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

/// y0 = data[k0], y1 = data[k1] (f32 data of 4 elements, i64 indices
/// wrapped when negative), as compiled gathers do: an index outside [-4, 4)
/// reads element 0 and is reported in the error record at buffers[-1]
/// (KernelAbi.h: slot 0 for k0, slot 1 for k1). Buffers: data, k0, k1, y0,
/// y1.
void fuse_test_checked_gathers(void **buffers, int64_t begin, int64_t end) {
  const float *data = static_cast<const float *>(buffers[0]);
  int64_t *record = static_cast<int64_t *>(buffers[-1]);
  for (int slot = 0; slot < 2; ++slot) {
    const int64_t *k = static_cast<const int64_t *>(buffers[1 + slot]);
    float *y = static_cast<float *>(buffers[3 + slot]);
    for (int64_t i = begin; i < end; ++i) {
      int64_t at = k[i] < 0 ? k[i] + 4 : k[i];
      if (at < 0 || at >= 4) {
        __atomic_store_n(&record[2 * slot + 1], k[i], __ATOMIC_RELAXED);
        __atomic_store_n(&record[2 * slot], 1, __ATOMIC_RELAXED);
        at = 0;
      }
      y[i] = data[at];
    }
  }
}

/// x += 1 in place, i32; buffers: x.
void fuse_test_increment_i32(void **buffers, int64_t begin, int64_t end) {
  int32_t *x = static_cast<int32_t *>(buffers[0]);
  for (int64_t i = begin; i < end; ++i)
    x[i] += 1;
}
}
