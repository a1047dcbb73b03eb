//===- BundleTest.cpp - Bundle checks, targets and ISA levels -------------===//

#include "TestSupport.h"

#include "runtime/Version.h"
#include "runtime/device/HostIsa.h"

#include <gtest/gtest.h>

using namespace fuse;

namespace {

TEST(Target, ParsesKnownTargets) {
  for (const char *name :
       {"sm_80", "sm_90", "host-x86-64-v3", "host-x86-64-v4"})
    EXPECT_TRUE(Target::parse(name).ok()) << name;
  EXPECT_TRUE(Target::parse("sm_90")->isCuda());
  EXPECT_TRUE(Target::parse("host-x86-64-v4")->isHost());
  Expected<Target> bad = Target::parse("host-arm");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("host-arm"), std::string::npos);
  EXPECT_FALSE(Target::parse("sm_").ok());
  EXPECT_FALSE(Target::parse("sm_9x").ok());
}

TEST(Bundle, ReferenceBundleCoversEveryOp) {
  Bundle bundle = test::mulAddBundle(3);
  Bundle reference = makeReferenceBundle(bundle.graph);
  ASSERT_TRUE(verifyBundle(reference).ok());
  ASSERT_EQ(reference.kernels.size(), 1u);
  EXPECT_EQ(reference.kernels[0].ops, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(reference.kernels[0].bindings.size(), 4u);
  EXPECT_EQ(reference.kernels[0].schedule, ScheduleKind::ReferenceOnly);
  EXPECT_EQ(reference.versionId, versionId());
  EXPECT_EQ(boundTensor(reference, reference.kernels[0].bindings[3]),
            reference.graph.outputs[0].tensor);
  EXPECT_EQ(bindingBytes(reference, reference.kernels[0]),
            (std::vector<uint64_t>{12, 12, 12, 12}));
}

TEST(Bundle, VerifySaysWhatIsWrong) {
  auto expectError = [](const Bundle &bundle, const std::string &needle) {
    Status status = verifyBundle(bundle);
    ASSERT_FALSE(status.ok()) << needle;
    EXPECT_NE(status.message().find(needle), std::string::npos)
        << status.message();
  };
  ASSERT_TRUE(verifyBundle(test::mulAddBundle(3)).ok());
  Bundle bundle = test::mulAddBundle(3);
  bundle.memoryPlan.peakBytes = 10;
  expectError(bundle, "ends past the arena");
  bundle = test::mulAddBundle(3);
  bundle.memoryPlan.intermediates[0].bytes = 4;
  expectError(bundle, "it needs 12");
  bundle = test::mulAddBundle(3);
  bundle.kernels[1].ops = {7};
  expectError(bundle, "covers op 7");
  bundle = test::mulAddBundle(3);
  bundle.kernels[0].bindings[2].index = 3;
  expectError(bundle, "out of range");
  bundle = test::mulAddBundle(3);
  bundle.launchOrder.push_back(2);
  expectError(bundle, "launch order names kernel 2");
  bundle = test::mulAddBundle(3);
  bundle.outputs.clear();
  expectError(bundle, "outputs");
  bundle = test::mulAddBundle(3);
  bundle.kernels[0].payloadKind = PayloadKind::None;
  expectError(bundle, "no payload");
  bundle = test::mulAddBundle(3);
  bundle.aliases.push_back({0, 5});
  expectError(bundle, "alias");
  bundle = test::mulAddBundle(3);
  bundle.kernels[1].checkedOps = {1};
  expectError(bundle,
              "reports the checks of op 1, which is not a gather or a scatter");
  bundle.kernels[1].checkedOps = {9};
  expectError(bundle,
              "reports the checks of op 9, which is not a gather or a scatter");
}

TEST(Bundle, NamesOfKinds) {
  EXPECT_EQ(payloadKindName(PayloadKind::Cubin), "cubin");
  EXPECT_EQ(scheduleKindName(ScheduleKind::ColumnReduction),
            "column-reduction");
}

TEST(HostIsa, LevelsAreNested) {
  using device::HostIsaLevel;
  if (device::hostSupports(HostIsaLevel::X86_64_V4))
    EXPECT_TRUE(device::hostSupports(HostIsaLevel::X86_64_V3));
  if (device::hostSupports(HostIsaLevel::X86_64_V3))
    EXPECT_TRUE(device::hostSupports(HostIsaLevel::X86_64_V2));
  std::optional<HostIsaLevel> best = device::bestHostIsaLevel();
  if (best)
    EXPECT_TRUE(device::hostSupports(*best));
  EXPECT_EQ(device::parseHostTarget("host-x86-64-v4"), HostIsaLevel::X86_64_V4);
  EXPECT_EQ(device::parseHostTarget("sm_90"), std::nullopt);
  EXPECT_EQ(device::hostTargetName(HostIsaLevel::X86_64_V3), "host-x86-64-v3");
}

} // namespace
