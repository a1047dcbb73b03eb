//===- BindingPlanTest.cpp - bindBundle through a BindingPlan -------------===//
//
// A BindingPlan (SymbolicBundle.h) validates again, per binding, only the
// ops whose dims have values no earlier valid binding had: a binding that
// is invalid at its values must still be refused, with the message of
// bindBundle without a plan, and a valid one must give the same bundle.
//
//===----------------------------------------------------------------------===//

#include "runtime/cache/SymbolicBundle.h"

#include <gtest/gtest.h>

namespace fuse {
namespace {

/// table: [16] f32 (static), y: [sequence], z: [past]; outputs
/// slice(table, 0, sequence) + y (valid only for sequence <= 16) and -z.
Bundle sliceBundle() {
  GraphBuilder b;
  std::int64_t sequence = b.symbol("sequence");
  std::int64_t past = b.symbol("past");
  TensorId table = b.input({ElementType::F32, {16}}, "table");
  TensorId y = b.input({ElementType::F32, {sequence}}, "y");
  TensorId z = b.input({ElementType::F32, {past}}, "z");
  b.output(b.add(b.slice(table, {0}, {sequence}, {1}), y), "sum");
  b.output(b.neg(z), "negated");
  Expected<Graph> graph = b.finish();
  EXPECT_TRUE(graph.ok()) << graph.message();
  return makeReferenceBundle(*graph);
}

TEST(BindingPlan, RefusesWhatBindBundleRefusesAfterValidBindings) {
  auto bundle = std::make_shared<const Bundle>(sliceBundle());
  ASSERT_TRUE(bundle->isSymbolic());
  BindingPlan plan(bundle);
  // Each in turn: valid bindings are remembered, and the next ones check
  // only the ops whose dims changed (the slice where 'sequence' does).
  const std::vector<DimBindings> bindings = {
      {{"sequence", 8}, {"past", 3}},  {{"sequence", 8}, {"past", 4}},
      {{"sequence", 20}, {"past", 4}}, {{"sequence", 9}, {"past", 5}},
      {{"sequence", 17}, {"past", 5}}, {{"sequence", 16}, {"past", 6}},
      {{"sequence", 8}, {"past", 7}}};
  for (const DimBindings &values : bindings) {
    SCOPED_TRACE(dimBindingsText(values));
    Expected<Bundle> planned = bindBundle(plan, values);
    Expected<Bundle> plain = bindBundle(*bundle, values);
    bool valid = values.at("sequence") <= 16;
    ASSERT_EQ(plain.ok(), valid) << plain.message();
    ASSERT_EQ(planned.ok(), valid) << planned.message();
    if (valid) {
      EXPECT_TRUE(*planned == *plain);
      continue;
    }
    EXPECT_EQ(planned.message(), plain.message());
    EXPECT_NE(planned.message().find("at these values"), std::string::npos)
        << planned.message();
    EXPECT_NE(planned.message().find("too small"), std::string::npos)
        << planned.message();
  }
  // The valid bindings were remembered (the first of them validated the
  // whole graph; the later ones only what differed).
  EXPECT_EQ(plan.validatedBindings().size(), 5u);
}

TEST(BindingPlan, InfersAgainOnlyOpsWhoseRuleCanFailAtOtherValues) {
  // The slice's rule compares its size with the table's (sequence <= 16):
  // it can fail at other values, and is inferred at every new value. The
  // add and the neg only compare equal dims, which stay equal at any
  // values.
  auto bundle = std::make_shared<const Bundle>(sliceBundle());
  BindingPlan plan(bundle);
  const std::vector<Op> &ops = bundle->graph.ops;
  ASSERT_EQ(plan.validAtEveryBinding.size(), ops.size());
  int sliceOps = 0, otherOps = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    SCOPED_TRACE(i);
    bool slice = ops[i].kind == OpKind::Slice;
    (slice ? sliceOps : otherOps) += 1;
    EXPECT_EQ(plan.validAtEveryBinding[i], !slice);
  }
  EXPECT_EQ(sliceOps, 1);
  EXPECT_EQ(otherOps, 2);
}

TEST(BindingPlan, ValidatesTheWholeGraphAtItsFirstBinding) {
  auto bundle = std::make_shared<const Bundle>(sliceBundle());
  BindingPlan plan(bundle);
  EXPECT_TRUE(plan.validatedBindings().empty());
  Expected<Bundle> refused = bindBundle(plan, {{"sequence", 30}, {"past", 1}});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.message(),
            bindBundle(*bundle, {{"sequence", 30}, {"past", 1}}).message());
  EXPECT_TRUE(plan.validatedBindings().empty());
  ASSERT_TRUE(bindBundle(plan, {{"sequence", 2}, {"past", 1}}).ok());
  EXPECT_EQ(plan.validatedBindings().size(), 1u);
}

TEST(BindingPlan, ABindingRewrittenForOtherValuesEqualsAFreshOne) {
  auto bundle = std::make_shared<const Bundle>(sliceBundle());
  BindingPlan plan(bundle);
  Expected<Bundle> first = bindBundle(plan, {{"sequence", 8}, {"past", 3}});
  ASSERT_TRUE(first.ok()) << first.message();
  Bundle reused = first.take();
  // Valid and invalid values in turn; after a refusal the bundle is no
  // binding, so the next rewrite starts from a fresh one.
  const std::vector<DimBindings> bindings = {
      {{"sequence", 8}, {"past", 4}},  {{"sequence", 3}, {"past", 9}},
      {{"sequence", 16}, {"past", 0}}, {{"sequence", 20}, {"past", 4}},
      {{"sequence", 1}, {"past", 1}},  {{"sequence", 17}, {"past", 5}},
      {{"sequence", 8}, {"past", 3}}};
  for (const DimBindings &values : bindings) {
    SCOPED_TRACE(dimBindingsText(values));
    Status rewritten = rebindBundle(plan, values, reused);
    Expected<Bundle> plain = bindBundle(*bundle, values);
    bool valid = values.at("sequence") <= 16;
    ASSERT_EQ(plain.ok(), valid) << plain.message();
    ASSERT_EQ(rewritten.ok(), valid) << rewritten.message();
    if (valid) {
      EXPECT_TRUE(reused == *plain);
      continue;
    }
    EXPECT_EQ(rewritten.message(), plain.message());
    Expected<Bundle> fresh = bindBundle(plan, {{"sequence", 2}, {"past", 2}});
    ASSERT_TRUE(fresh.ok()) << fresh.message();
    reused = fresh.take();
  }
}

TEST(BindingPlan, RewritingRefusesWhatBindBundleRefuses) {
  auto bundle = std::make_shared<const Bundle>(sliceBundle());
  BindingPlan plan(bundle);
  Expected<Bundle> first = bindBundle(plan, {{"sequence", 8}, {"past", 3}});
  ASSERT_TRUE(first.ok()) << first.message();
  for (const DimBindings &values :
       std::vector<DimBindings>{{{"sequence", 8}},
                                {{"sequence", 8}, {"past", -1}},
                                {{"sequence", 8}, {"past", 1}, {"heads", 2}}}) {
    SCOPED_TRACE(dimBindingsText(values));
    Bundle reused = *first;
    Status rewritten = rebindBundle(plan, values, reused);
    Expected<Bundle> plain = bindBundle(*bundle, values);
    ASSERT_FALSE(plain.ok());
    ASSERT_FALSE(rewritten.ok());
    EXPECT_EQ(rewritten.message(), plain.message());
  }
}

TEST(BindingPlan, RewritingRefusesABundleBoundFromAnother) {
  auto bundle = std::make_shared<const Bundle>(sliceBundle());
  BindingPlan plan(bundle);
  // The same graph with one more op: not a binding of the plan's bundle.
  GraphBuilder b;
  std::int64_t sequence = b.symbol("sequence");
  std::int64_t past = b.symbol("past");
  TensorId table = b.input({ElementType::F32, {16}}, "table");
  TensorId y = b.input({ElementType::F32, {sequence}}, "y");
  TensorId z = b.input({ElementType::F32, {past}}, "z");
  b.output(b.add(b.slice(table, {0}, {sequence}, {1}), y), "sum");
  b.output(b.neg(b.neg(z)), "twice");
  Expected<Graph> graph = b.finish();
  ASSERT_TRUE(graph.ok()) << graph.message();
  Expected<Bundle> other =
      bindBundle(makeReferenceBundle(*graph), {{"sequence", 4}, {"past", 2}});
  ASSERT_TRUE(other.ok()) << other.message();
  Bundle reused = other.take();
  Status rewritten = rebindBundle(plan, {{"sequence", 4}, {"past", 3}}, reused);
  ASSERT_FALSE(rewritten.ok());
  EXPECT_NE(rewritten.message().find("no binding of the plan's bundle"),
            std::string::npos)
      << rewritten.message();
  // Nor a static bundle, nor the symbolic bundle itself.
  Bundle symbolic = *bundle;
  EXPECT_FALSE(
      rebindBundle(plan, {{"sequence", 4}, {"past", 3}}, symbolic).ok());
}

} // namespace
} // namespace fuse
