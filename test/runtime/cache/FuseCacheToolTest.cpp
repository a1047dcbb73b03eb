//===- FuseCacheToolTest.cpp - The fuse-cache command line ----------------===//

#include "CacheTestSupport.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <sys/stat.h>
#include <sys/wait.h>

using namespace fuse;
using namespace fuse::test;

namespace {

struct ToolRun {
  int exitCode = -1;
  std::string output;
};

/// Runs fuse-cache with `arguments` (shell words), stdout and stderr
/// together.
ToolRun runTool(const std::string &arguments) {
  ToolRun run;
  std::string command =
      std::string("'") + FUSE_CACHE_TOOL + "' " + arguments + " 2>&1";
  FILE *pipe = ::popen(command.c_str(), "r");
  if (!pipe)
    return run;
  char buffer[4096];
  while (std::size_t got = std::fread(buffer, 1, sizeof(buffer), pipe))
    run.output.append(buffer, got);
  int status = ::pclose(pipe);
  run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

class FuseCacheTool : public testing::Test {
protected:
  void SetUp() override {
    BundleCacheOptions options;
    options.directory = directory;
    auto opened = BundleCache::open(options);
    ASSERT_TRUE(opened.ok()) << opened.message();
    cache = opened.take();
    for (std::int64_t rows : {2, 3}) {
      Graph graph = makeGraph(rows);
      keys.push_back(makeKey(graph).toHex());
      ASSERT_TRUE(cache->store(makeKey(graph), makeBundle(graph)).ok());
    }
  }
  ToolRun tool(const std::string &command) {
    return runTool(command + " --cache-dir '" + directory + "'");
  }

  TempDir dir;
  std::string directory = dir.path() + "/cache";
  std::unique_ptr<BundleCache> cache;
  std::vector<std::string> keys;
};

TEST_F(FuseCacheTool, ListNamesEveryEntry) {
  ToolRun run = tool("list");
  EXPECT_EQ(run.exitCode, 0) << run.output;
  for (const std::string &key : keys)
    EXPECT_NE(run.output.find(key), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("entries: 2"), std::string::npos) << run.output;
}

TEST_F(FuseCacheTool, StatsCountsEntries) {
  ToolRun run = tool("stats");
  EXPECT_EQ(run.exitCode, 0) << run.output;
  EXPECT_NE(run.output.find("directory: " + directory), std::string::npos);
  EXPECT_NE(run.output.find("entries: 2"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("kernels: 0\n"), std::string::npos) << run.output;
  // Kernel files are counted apart from the bundles.
  ASSERT_TRUE(
      cache
          ->storeKernel(std::string(64, 'c'),
                        KernelFile{std::vector<std::uint8_t>(5, 1), {"f"}})
          .ok());
  run = tool("stats");
  EXPECT_NE(run.output.find("entries: 2\n"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("kernels: 1\n"), std::string::npos) << run.output;
}

TEST_F(FuseCacheTool, ShowPrintsTheBundleAsJson) {
  ToolRun run = tool("show " + keys[0]);
  EXPECT_EQ(run.exitCode, 0) << run.output;
  EXPECT_NE(run.output.find("\"versionId\""), std::string::npos);
  EXPECT_NE(run.output.find("\"kind\": \"mul\""), std::string::npos);
  EXPECT_NE(run.output.find("target host-x86-64-v3"), std::string::npos)
      << run.output;
}

TEST_F(FuseCacheTool, ShowOfAMissingKeyFails) {
  ToolRun run = tool("show " + std::string(64, 'a'));
  EXPECT_EQ(run.exitCode, 1) << run.output;
  EXPECT_NE(run.output.find("no entry for key"), std::string::npos)
      << run.output;
  run = tool("show nonsense");
  EXPECT_EQ(run.exitCode, 1) << run.output;
  EXPECT_NE(run.output.find("not a cache key"), std::string::npos);
  run = tool("show");
  EXPECT_EQ(run.exitCode, 2) << run.output;
}

TEST_F(FuseCacheTool, VerifyPassesThenReportsDamage) {
  ToolRun run = tool("verify");
  EXPECT_EQ(run.exitCode, 0) << run.output;
  EXPECT_NE(run.output.find("verified 2 entries: 0 damaged"), std::string::npos)
      << run.output;
  writeFile(cache->pathFor(keys[1]), {1, 2, 3});
  run = tool("verify");
  EXPECT_EQ(run.exitCode, 1) << run.output;
  EXPECT_NE(run.output.find("damaged: " + cache->pathFor(keys[1])),
            std::string::npos)
      << run.output;
  EXPECT_EQ(tool("verify").exitCode, 0);
}

TEST_F(FuseCacheTool, ClearEmptiesTheCache) {
  ToolRun run = tool("clear");
  EXPECT_EQ(run.exitCode, 0) << run.output;
  EXPECT_TRUE(cache->list()->empty());
  EXPECT_NE(tool("list").output.find("entries: 0"), std::string::npos);
}

TEST_F(FuseCacheTool, BadCommandIsAUsageError) {
  ToolRun run = tool("frobnicate");
  EXPECT_EQ(run.exitCode, 2) << run.output;
  EXPECT_NE(run.output.find("unknown command 'frobnicate'"), std::string::npos);
  EXPECT_NE(run.output.find("usage:"), std::string::npos);
  EXPECT_EQ(runTool("").exitCode, 2);
  EXPECT_EQ(tool("list --bogus").exitCode, 2);
}

TEST_F(FuseCacheTool, UnsafeDirectoryIsRefused) {
  ASSERT_EQ(::chmod(directory.c_str(), 0777), 0);
  ToolRun run = tool("list");
  EXPECT_EQ(run.exitCode, 1) << run.output;
  EXPECT_NE(run.output.find(directory), std::string::npos);
  EXPECT_NE(run.output.find("writable by others"), std::string::npos)
      << run.output;
}

TEST_F(FuseCacheTool, FolderFuseDidNotMakeIsRefused) {
  std::string foreign = dir.path() + "/foreign";
  ASSERT_EQ(::mkdir(foreign.c_str(), 0700), 0);
  writeFile(foreign + "/notes.txt", {1});
  for (const char *command : {"list", "clear"}) {
    ToolRun run =
        runTool(std::string(command) + " --cache-dir '" + foreign + "'");
    EXPECT_EQ(run.exitCode, 1) << run.output;
    EXPECT_NE(run.output.find("refusing the cache directory " + foreign),
              std::string::npos)
        << run.output;
    EXPECT_NE(run.output.find("'notes.txt'"), std::string::npos) << run.output;
  }
  EXPECT_TRUE(fileExists(foreign + "/notes.txt"));
  EXPECT_FALSE(fileExists(foreign + "/.fuse-cache"));
}

} // namespace
