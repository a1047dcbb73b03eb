//===- CacheTestSupport.cpp - Shared fixtures of the cache tests ----------===//

#include "CacheTestSupport.h"

#include "runtime/Version.h"
#include "runtime/ir/GraphHash.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sys/stat.h>

namespace fuse::test {

Graph makeGraph(std::int64_t rows) {
  GraphBuilder builder;
  TensorType type{ElementType::F32, {rows, 3}};
  TensorId a = builder.input(type, "a");
  TensorId b = builder.input(type, "b");
  TensorId c = builder.input(type, "c");
  builder.output(builder.mul(builder.add(a, b), c), "out");
  Expected<Graph> graph = builder.finish();
  EXPECT_TRUE(graph.ok()) << graph.message();
  return graph.take();
}

Bundle makeBundle(const Graph &graph, const std::string &target,
                  std::size_t payloadBytes, unsigned seed) {
  Bundle bundle = makeReferenceBundle(canonicalize(graph));
  bundle.target = target;
  bundle.versionId = versionId();
  BundleKernel &kernel = bundle.kernels.front();
  kernel.name = "fused_add_mul";
  kernel.target = target;
  kernel.payloadKind = PayloadKind::HostSharedObject;
  kernel.schedule = ScheduleKind::Pointwise;
  kernel.entry = "fuse_kernel_0";
  std::mt19937 random(seed);
  std::vector<std::uint8_t> payload;
  for (std::size_t i = 0; i < payloadBytes; ++i)
    payload.push_back(std::uint8_t(random()));
  kernel.payload = std::move(payload);
  return bundle;
}

BundleKey makeKey(const Graph &graph, const std::string &target,
                  const CompileOptions &options) {
  return BundleKey::make(graph, target, options);
}

TempDir::TempDir() {
  std::string pattern = testing::TempDir() + "fuse-cache-test-XXXXXX";
  char *made = ::mkdtemp(pattern.data());
  EXPECT_NE(made, nullptr);
  dirPath = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(dirPath, ignored);
}

std::vector<std::uint8_t> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void writeFile(const std::string &path,
               const std::vector<std::uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            std::streamsize(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

bool fileExists(const std::string &path) {
  struct stat info;
  return ::lstat(path.c_str(), &info) == 0;
}

} // namespace fuse::test
