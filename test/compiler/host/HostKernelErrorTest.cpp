// The kernel error channel on the host (KernelAbi.h): a gather whose index
// is computed in the graph (not a graph input, which runBundle checks before
// the run) and lies outside its axis fails the run with the kernel, the op
// and the index, as the reference interpreter says it; indices inside
// [-dim, dim) (negative ones wrap) run and match the reference.

#include "test/compiler/host/HostCodegenTest.h"

namespace fuse {
namespace {

/// rows = table[ids + 990] (an embedding row per id, [n, 16]: one index
/// for every lane) when `rows`, else picks = line[ids + 990] (one element
/// per id, [n]: an index per lane): the index is computed in the graph, out
/// of reach of the check before the run.
Graph computedIndexGather(int64_t n, bool rows) {
  GraphBuilder b;
  TensorType idsType{ElementType::I64, {n}};
  TensorId ids = b.input(idsType, "ids");
  TensorId table = b.input({ElementType::F32, {1000, 16}}, "table");
  TensorId line = b.input({ElementType::F32, {1000}}, "line");
  TensorId index = b.add(ids, b.splat(idsType, 990));
  if (rows)
    b.output(b.gather(table, index, 0), "rows");
  else
    b.output(b.gather(line, index, 0), "picks");
  return *b.finish();
}

std::vector<std::vector<std::byte>>
computedIndexInputs(const std::vector<int64_t> &ids) {
  std::vector<float> table(1000 * 16), line(1000);
  for (size_t i = 0; i < table.size(); ++i)
    table[i] = float(i % 977) * 0.25f + 1;
  for (size_t i = 0; i < line.size(); ++i)
    line[i] = float(i) + 0.5f;
  return {bytesOf(ids), bytesOf(table), bytesOf(line)};
}

/// The run's error on the host, and the reference interpreter's.
std::pair<std::string, std::string>
errorsOf(device::HostRuntime &runtime, HostCompiler &compiler,
         const Target &target, const Graph &graph,
         const std::vector<std::vector<std::byte>> &inputs) {
  Expected<Compilation> compiled = compiler.compile(graph, target, {});
  EXPECT_TRUE(compiled.ok()) << compiled.message();
  if (!compiled.ok())
    return {};
  std::vector<TensorBytes> bytes(inputs.begin(), inputs.end());
  device::DeviceResult<std::vector<TensorBytes>> run =
      device::runBundle(runtime, compiled->bundle, bytes);
  std::vector<HostTensor> views;
  for (size_t i = 0; i < inputs.size(); ++i)
    views.push_back({graph.typeOf(graph.inputs[i]),
                     const_cast<std::byte *>(inputs[i].data())});
  Expected<std::vector<HostTensorData>> reference = evaluateGraph(graph, views);
  return {run.ok() ? "" : run.error().message,
          reference.ok() ? "" : reference.message()};
}

TEST_F(HostCodegen, ComputedGatherIndexPastTheAxisFailsTheRun) {
  // 37 ids: vectors of indices and a scalar tail; id 20 -> index 1010.
  std::vector<int64_t> ids(37, 3);
  ids[29] = 20;
  for (bool rows : {true, false}) {
    SCOPED_TRACE(rows ? "rows" : "picks");
    auto [host, reference] =
        errorsOf(runtime, compiler, target, computedIndexGather(37, rows),
                 computedIndexInputs(ids));
    EXPECT_NE(host.find("kernel fuse_k"), std::string::npos) << host;
    // The host names the op and the index as the reference does (which
    // also knows the index's position).
    const std::string range =
        "is out of range for dim 0 of size 1000 of " +
        std::string(rows ? "tensor<1000x16xf32>" : "tensor<1000xf32>") +
        " (valid: -1000 to 999)";
    EXPECT_NE(host.find("op #2 (gather): index 1010 " + range),
              std::string::npos)
        << host;
    EXPECT_NE(reference.find("op #2 (gather): index 1010 (element 29 of the "
                             "indices) " +
                             range),
              std::string::npos)
        << reference;
  }
}

TEST_F(HostCodegen, ComputedGatherIndexBeforeTheAxisFailsTheRun) {
  // Every lane of a vector and the tail: the element gather (picks) reads
  // one index per lane. Id -1991 -> index -1001, the first below -dim.
  for (size_t at : {size_t(0), size_t(5), size_t(36)}) {
    std::vector<int64_t> ids(37, -1990);
    ids[at] = -1991;
    auto [host, reference] =
        errorsOf(runtime, compiler, target, computedIndexGather(37, false),
                 computedIndexInputs(ids));
    EXPECT_NE(host.find("index -1001 is out of range for dim 0 of size 1000"),
              std::string::npos)
        << "id at " << at << ": " << host;
    EXPECT_NE(reference.find("index -1001 (element " + std::to_string(at)),
              std::string::npos)
        << reference;
  }
}

TEST_F(HostCodegen, ComputedGatherIndicesInsideTheAxisRunAsTheReference) {
  // -1990 -> -1000 (row 0), 9 -> 999, and negative ids in between; then
  // the same runtime runs again after a failed run.
  std::vector<int64_t> ids(37);
  for (size_t i = 0; i < ids.size(); ++i)
    ids[i] = int64_t(i * 53 % 1999) - 1990;
  ids[3] = 9;
  Graph graph = computedIndexGather(37, false);
  std::vector<int64_t> bad(37, 3);
  bad[7] = 10;
  EXPECT_FALSE(
      errorsOf(runtime, compiler, target, graph, computedIndexInputs(bad))
          .first.empty());
  for (bool rows : {true, false}) {
    std::vector<TensorBytes> host, reference;
    runOnHostAndReference(computedIndexGather(37, rows),
                          computedIndexInputs(ids), host, reference);
    ASSERT_FALSE(HasFatalFailure());
    ASSERT_EQ(host.size(), 1u);
    EXPECT_EQ(host[0], reference[0]) << (rows ? "rows" : "picks");
  }
}

} // namespace
} // namespace fuse
