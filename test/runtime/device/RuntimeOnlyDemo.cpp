//===- RuntimeOnlyDemo.cpp - A program linked only against the runtime ----===//
//
// Shows that the runtime alone executes bundles: a hand-built graph runs on
// the reference runtime, a hand-written kernel (from the test build's shared
// object) runs on the host runtime, and the two must agree. Exits 0 when
// they do, 1 otherwise. Links FuseRuntime only: no MLIR, no LLVM, no test
// framework.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include "runtime/device/HostRuntime.h"
#include "runtime/device/ReferenceRuntime.h"

#include <cstdio>

using namespace fuse;
using namespace fuse::device;

int main() {
  const int64_t n = 1000;
  Bundle hostBundle = test::mulAddBundle(n);
  std::vector<TensorBytes> inputs;
  for (uint64_t seed = 1; seed <= 3; ++seed)
    inputs.push_back(test::toBytes(test::randomFloats(seed, n)));

  ReferenceRuntime reference;
  DeviceResult<std::vector<TensorBytes>> expected =
      runBundle(reference, makeReferenceBundle(hostBundle.graph), inputs);
  if (!expected.ok()) {
    std::printf("reference runtime: %s\n",
                reference.describeError(expected.error()).toString().c_str());
    return 1;
  }
  HostRuntime host;
  DeviceResult<std::vector<TensorBytes>> actual =
      runBundle(host, hostBundle, inputs);
  if (!actual.ok()) {
    std::printf("host runtime: %s\n",
                host.describeError(actual.error()).toString().c_str());
    return 1;
  }
  std::vector<float> want = test::fromBytes<float>((*expected)[0]);
  std::vector<float> got = test::fromBytes<float>((*actual)[0]);
  int64_t mismatches = 0;
  for (int64_t i = 0; i < n; ++i)
    mismatches += want[i] != got[i];
  std::printf("a * b + c over %lld f32 elements: reference (%llu ops "
              "interpreted) and %s runtime (%s, %u threads) %s; out[0] = %g\n",
              (long long)n,
              (unsigned long long)reference.snapshot().opsExecuted,
              host.descriptor().name.c_str(), host.descriptor().target.c_str(),
              host.descriptor().computeUnits, mismatches ? "disagree" : "agree",
              double(got[0]));
  return mismatches ? 1 : 0;
}
