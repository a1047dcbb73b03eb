// The host compiler's memory of kernels it compiled before
// (KernelObjectCache): a later compilation by the same compiler takes the
// machine code of each kernel it has seen, by content, and compiles only the
// others. Every bundle is run on fresh random inputs and compared with the
// reference interpreter.

#include "test/compiler/host/HostCodegenTest.h"

#include "compiler/host/KernelObjectCache.h"

#include <algorithm>

namespace fuse {
namespace {

/// A layer whose matmul does not depend on `length` and whose softmax rows
/// do: relu(x @ w + b) over [32, 96] x [96, 80], and softmax over [4, length].
/// Large enough that its kernels compile one per part (1024 or more LLVM
/// instructions).
Graph layer(std::int64_t length) {
  GraphBuilder b;
  TensorId x = b.input({ElementType::F32, {32, 96}}, "x");
  TensorId w = b.input({ElementType::F32, {96, 80}}, "w");
  TensorId bias = b.input({ElementType::F32, {80}}, "bias");
  TensorId s = b.input({ElementType::F32, {4, length}}, "scores");
  TensorId y = b.add(b.matmul(x, w), b.broadcast(bias, {32, 80}, {1}));
  b.output(b.max(y, b.splat({ElementType::F32, {32, 80}}, 0.0)), "relu");
  std::vector<std::int64_t> shape = {4, length};
  TensorId m = b.reduce(ReduceKind::Max, s, {1}, true);
  TensorId e = b.exp(b.sub(s, b.broadcast(m, shape, {0, 1})));
  TensorId sum = b.reduce(ReduceKind::Sum, e, {1}, true);
  b.output(b.div(e, b.broadcast(sum, shape, {0, 1})), "softmax");
  return *b.finish();
}

/// The entries both bundles launch.
std::vector<std::string> common(std::vector<std::string> a,
                                std::vector<std::string> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::vector<std::string> both;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(),
                        std::back_inserter(both));
  return both;
}

TEST_F(HostCodegen, KernelsSeenBeforeAreNotCompiledAgain) {
  check(layer(100));
  ASSERT_FALSE(HasFatalFailure());
  // A fresh compiler has nothing to reuse; each kernel is compiled and
  // named after its content.
  EXPECT_EQ(checkedReuse.reused, 0u);
  EXPECT_GE(checkedReuse.compiled, 2u);
  for (const std::string &entry : checkedEntries)
    EXPECT_EQ(entry.find("fuse_k"), std::string::npos) << entry;
  std::vector<std::string> first = checkedEntries;

  // Another row length: the matmul's code is taken, the softmax compiled.
  check(layer(37));
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_GE(checkedReuse.reused, 1u);
  EXPECT_GE(checkedReuse.compiled, 1u);
  EXPECT_FALSE(common(first, checkedEntries).empty());
  EXPECT_NE(first, checkedEntries);

  // The first graph again: everything is taken, nothing compiled.
  check(layer(100));
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(checkedReuse.compiled, 0u);
  EXPECT_GE(checkedReuse.reused, 2u);
  EXPECT_EQ(checkedEntries, first);
}

TEST_F(HostCodegen, KernelsAreNotReusedAcrossTargetsOrLevels) {
  check(layer(64));
  ASSERT_FALSE(HasFatalFailure());
  std::uint32_t compiled = checkedReuse.compiled;
  ASSERT_GE(compiled, 2u);
  CompileOptions lower;
  lower.optimizationLevel = 1;
  check(layer(64), {}, lower);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(checkedReuse.reused, 0u);
  EXPECT_EQ(checkedReuse.compiled, compiled);

  // The other ISA level: compiled only (it may not run on this machine).
  Target other{target.name == "host-x86-64-v3" ? "host-x86-64-v4"
                                               : "host-x86-64-v3"};
  Expected<Compilation> again = compiler.compile(layer(64), other, {});
  ASSERT_TRUE(again.ok()) << again.message();
  EXPECT_EQ(again->kernels.reused, 0u);
  EXPECT_EQ(again->kernels.compiled, compiled);
}

TEST_F(HostCodegen, TieredKernelsCompileQuicklyFirstThenAtTheFullLevel) {
  CompileOptions tiered;
  tiered.tieredKernels = true;
  // A fresh compiler: every kernel is new, so each compiles quickly.
  check(layer(100), {}, tiered);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_GE(checkedReuse.compiled, 2u);
  EXPECT_EQ(checkedReuse.quick, checkedReuse.compiled);
  EXPECT_EQ(checkedReuse.reused, 0u);

  // Another row length: the matmul, compiled quickly before, now compiles
  // at the full level; the new softmax quickly.
  check(layer(37), {}, tiered);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_GE(checkedReuse.quick, 1u);
  EXPECT_LT(checkedReuse.quick, checkedReuse.compiled);
  EXPECT_EQ(checkedReuse.reused, 0u);

  // The first graph again: the matmul's full-level code is taken; its
  // softmax, compiled quickly before, compiles at the full level.
  check(layer(100), {}, tiered);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_GE(checkedReuse.reused, 1u);
  EXPECT_GE(checkedReuse.compiled, 1u);
  EXPECT_EQ(checkedReuse.quick, 0u);

  // And once more: every kernel is taken at the full level.
  check(layer(100), {}, tiered);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(checkedReuse.compiled, 0u);
  EXPECT_GE(checkedReuse.reused, 2u);

  // Without tiers, the same compiler takes the full-level kernels too.
  check(layer(100));
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(checkedReuse.compiled, 0u);
  EXPECT_EQ(checkedReuse.quick, 0u);
}

TEST(KernelObjectCache, KeepsTheNewestWithinItsBound) {
  KernelObjectCache cache(/*maxBytes=*/100);
  cache.store("a", {std::vector<std::uint8_t>(40, 1), {"fa"}});
  cache.store("b", {std::vector<std::uint8_t>(40, 2), {"fb"}});
  ASSERT_NE(cache.lookup("a"), nullptr);
  EXPECT_EQ(cache.lookup("a")->symbols, std::vector<std::string>{"fa"});
  // A key held keeps its first entry.
  cache.store("a", {std::vector<std::uint8_t>(10, 9), {"other"}});
  EXPECT_EQ(cache.lookup("a")->object.size(), 40u);
  EXPECT_EQ(cache.bytes(), 80u);
  // Over the bound: the oldest goes.
  cache.store("c", {std::vector<std::uint8_t>(40, 3), {"fc"}});
  EXPECT_EQ(cache.lookup("a"), nullptr);
  ASSERT_NE(cache.lookup("b"), nullptr);
  ASSERT_NE(cache.lookup("c"), nullptr);
  EXPECT_EQ(cache.lookup("c")->object, std::vector<std::uint8_t>(40, 3));
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.bytes(), 80u);
  // Larger than the whole bound: not kept.
  cache.store("d", {std::vector<std::uint8_t>(101, 4), {"fd"}});
  EXPECT_EQ(cache.lookup("d"), nullptr);
  EXPECT_EQ(cache.size(), 2u);
}

} // namespace
} // namespace fuse
