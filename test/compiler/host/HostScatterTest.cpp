// Host scatter kernels (HostScatterEmitter.cpp) against the reference
// interpreter: rows and elements at run-time indices with duplicates and
// negative ones, every reduction, f32, f16 and i32 data, enough columns for
// several chunks running in parallel; an index outside the rows fails the
// run naming the kernel, the op and the index, as the reference does.

#include "test/compiler/host/HostCodegenTest.h"

namespace fuse {
namespace {

Graph scatterGraph(TensorType data, std::vector<int64_t> indices,
                   std::string_view reduction,
                   ElementType indexType = ElementType::I64) {
  GraphBuilder b;
  TensorId x = b.input(data, "data");
  TensorId k = b.input({indexType, indices}, "indices");
  std::vector<int64_t> updates = indices;
  updates.insert(updates.end(), data.shape.begin() + 1, data.shape.end());
  TensorId u = b.input({data.elementType, updates}, "updates");
  b.output(b.scatter(x, k, u, reduction), "y");
  return *b.finish();
}

TEST_F(HostCodegen, ScatterRowsInParallelChunks) {
  // 3000 columns: many chunks; 20 indices in [-50, 50), duplicates likely.
  for (std::string_view reduction : {"none", "add", "mul", "max", "min"}) {
    SCOPED_TRACE(std::string(reduction));
    check(scatterGraph({ElementType::F32, {50, 3000}}, {20}, reduction),
          {{-2, 2}, {-50, 49.99}, {-2, 2}});
    EXPECT_EQ(checkedKernels, std::vector<std::string>{"fuse_k0_scatter"});
  }
}

TEST_F(HostCodegen, ScatterElementsTypesAndIndexShapes) {
  // One column (the flattened data of ScatterElements), 2-D i32 indices,
  // f16 and i32 data, vector tails (37 columns).
  check(scatterGraph({ElementType::F32, {90}}, {4, 5}, "add", ElementType::I32),
        {{-2, 2}, {-90, 89.99}, {-2, 2}});
  check(scatterGraph({ElementType::F16, {12, 37}}, {7}, "none"),
        {{-2, 2}, {-12, 11.99}, {-2, 2}});
  check(scatterGraph({ElementType::I32, {12, 37}}, {9}, "max"),
        {{-100, 100}, {-12, 11.99}, {-100, 100}});
  check(scatterGraph({ElementType::I32, {12, 37}}, {9}, "mul"),
        {{-3, 3}, {-12, 11.99}, {-3, 3}});
}

TEST_F(HostCodegen, ScatterIndexOutsideTheRowsFailsTheRun) {
  Graph graph = scatterGraph({ElementType::F32, {50, 300}}, {6}, "none");
  Expected<Compilation> compiled = compiler.compile(graph, target, {});
  ASSERT_TRUE(compiled.ok()) << compiled.message();
  std::vector<float> data(50 * 300, 1.0f), updates(6 * 300, 2.0f);
  for (int64_t bad : {50, -51}) {
    std::vector<int64_t> indices{0, 1, 2, bad, 4, 5};
    std::vector<TensorBytes> inputs{bytesOf(data), bytesOf(indices),
                                    bytesOf(updates)};
    device::DeviceResult<std::vector<TensorBytes>> run =
        device::runBundle(runtime, compiled->bundle, inputs);
    ASSERT_FALSE(run.ok());
    const std::string range =
        "is out of range for dim 0 of size 50 of tensor<50x300xf32> (valid: "
        "-50 to 49)";
    EXPECT_NE(run.error().message.find("kernel fuse_k0_scatter: op #0 "
                                       "(scatter): index " +
                                       std::to_string(bad) + " " + range),
              std::string::npos)
        << run.error().message;
    std::vector<HostTensor> views;
    for (size_t i = 0; i < inputs.size(); ++i)
      views.push_back({graph.typeOf(graph.inputs[i]), inputs[i].data()});
    Expected<std::vector<HostTensorData>> reference =
        evaluateGraph(graph, views);
    ASSERT_FALSE(reference.ok());
    EXPECT_NE(reference.message().find("op #0 (scatter): index " +
                                       std::to_string(bad) +
                                       " (element 3 of the indices) " + range),
              std::string::npos)
        << reference.message();
  }
}

} // namespace
} // namespace fuse
