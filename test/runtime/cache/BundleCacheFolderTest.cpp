//===- BundleCacheFolderTest.cpp - Whose folder, and what is left in it ---===//
//
// The cache writes only into a folder that is Fuse's (the .fuse-cache
// marker, or a new or empty folder it adopts), and reclaims the temporary
// files of writers that died.
//
//===----------------------------------------------------------------------===//

#include "CacheTestSupport.h"

#include "runtime/ir/TemporaryOwner.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace fuse;
using namespace fuse::test;

namespace {

Expected<std::unique_ptr<BundleCache>> openAt(const std::string &directory) {
  BundleCacheOptions options;
  options.directory = directory;
  options.onProblem = [](const std::string &message) {
    ADD_FAILURE() << "unexpected problem: " << message;
  };
  return BundleCache::open(options);
}

TEST(BundleCacheFolder, RefusesAFolderFuseDidNotMake) {
  TempDir dir;
  writeFile(dir.path() + "/notes.txt", {'h', 'i'});
  auto opened = openAt(dir.path());
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.message().find("refusing the cache directory " + dir.path()),
            std::string::npos)
      << opened.message();
  EXPECT_NE(opened.message().find("'notes.txt'"), std::string::npos)
      << opened.message();
  EXPECT_NE(opened.message().find(".fuse-cache"), std::string::npos)
      << opened.message();
  // Nothing was written there.
  EXPECT_FALSE(fileExists(dir.path() + "/.fuse-cache"));
  EXPECT_EQ(readFile(dir.path() + "/notes.txt"),
            (std::vector<std::uint8_t>{'h', 'i'}));
}

TEST(BundleCacheFolder, AdoptsAnEmptyFolderAndKeepsItsOwn) {
  TempDir dir;
  auto opened = openAt(dir.path());
  ASSERT_TRUE(opened.ok()) << opened.message();
  std::string marker = dir.path() + "/.fuse-cache";
  struct stat info;
  ASSERT_EQ(::lstat(marker.c_str(), &info), 0);
  EXPECT_TRUE(S_ISREG(info.st_mode));
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  Graph graph = makeGraph();
  ASSERT_TRUE((*opened)->store(makeKey(graph), makeBundle(graph)).ok());
  // Once marked, other files do not make it foreign.
  writeFile(dir.path() + "/notes.txt", {1});
  auto again = openAt(dir.path());
  ASSERT_TRUE(again.ok()) << again.message();
  EXPECT_TRUE((*again)->lookup(makeKey(graph)).has_value());
}

TEST(BundleCacheFolder, AdoptsACacheFromBeforeTheMarker) {
  TempDir dir;
  Graph graph = makeGraph();
  {
    auto opened = openAt(dir.path());
    ASSERT_TRUE(opened.ok()) << opened.message();
    ASSERT_TRUE((*opened)->store(makeKey(graph), makeBundle(graph)).ok());
  }
  writeFile(dir.path() + "/.tmp-leftover", {1});
  ASSERT_EQ(::unlink((dir.path() + "/.fuse-cache").c_str()), 0);
  auto opened = openAt(dir.path());
  ASSERT_TRUE(opened.ok()) << opened.message();
  EXPECT_TRUE(fileExists(dir.path() + "/.fuse-cache"));
  EXPECT_TRUE((*opened)->lookup(makeKey(graph)).has_value());
}

TEST(BundleCacheFolder, RefusesAMarkerThatIsNotAFile) {
  TempDir dir;
  ASSERT_EQ(::mkdir((dir.path() + "/.fuse-cache").c_str(), 0700), 0);
  auto opened = openAt(dir.path());
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.message().find("is not a regular file"), std::string::npos)
      << opened.message();
}

TEST(BundleCacheFolder, EntriesAreWrittenPrivate) {
  TempDir dir;
  auto opened = openAt(dir.path());
  ASSERT_TRUE(opened.ok()) << opened.message();
  Graph graph = makeGraph();
  ASSERT_TRUE((*opened)->store(makeKey(graph), makeBundle(graph)).ok());
  struct stat info;
  ASSERT_EQ(::lstat((*opened)->pathFor(makeKey(graph).toHex()).c_str(), &info),
            0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

/// A pid that no process has: a child's, once it has exited and been
/// waited for.
pid_t deadPid() {
  pid_t child = ::fork();
  if (child == 0)
    ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

void makeTemporary(const std::string &path, std::int64_t ageSeconds) {
  writeFile(path, {1, 2, 3});
  struct timespec times[2];
  ::clock_gettime(CLOCK_REALTIME, &times[0]);
  times[0].tv_sec -= ageSeconds;
  times[1] = times[0];
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

TEST(BundleCacheFolder, ReclaimsTemporariesWhoseWriterIsGone) {
  TempDir dir;
  ASSERT_TRUE(openAt(dir.path()).ok());
  std::string key(64, 'a'), own = temporaryOwnerTag();
  std::string host = own.substr(own.find('@'));
  std::string prefix = dir.path() + "/.tmp-" + key + "-0-0-";
  std::string fresh = prefix + own;
  std::string old = prefix + "1@other-host";
  std::string dead = prefix + std::to_string(deadPid()) + host;
  std::string deadElsewhere =
      prefix + std::to_string(deadPid()) + "@other-host";
  std::string untagged = dir.path() + "/.tmp-leftover";
  makeTemporary(fresh, 0);
  makeTemporary(old, 2 * kStaleTemporarySeconds);
  makeTemporary(dead, 0);
  makeTemporary(deadElsewhere, 0);
  makeTemporary(untagged, 60);

  ASSERT_TRUE(openAt(dir.path()).ok());
  // A live writer's file, and files whose writer cannot be known to be
  // gone (another host, no tag) while they are young, stay.
  EXPECT_TRUE(fileExists(fresh));
  EXPECT_TRUE(fileExists(deadElsewhere));
  EXPECT_TRUE(fileExists(untagged));
  // A file over an hour old, or whose writer on this host is gone, goes.
  EXPECT_FALSE(fileExists(old));
  EXPECT_FALSE(fileExists(dead));
}

TEST(BundleCacheFolder, StoringAlsoReclaims) {
  TempDir dir;
  auto opened = openAt(dir.path());
  ASSERT_TRUE(opened.ok()) << opened.message();
  std::string old = dir.path() + "/.tmp-leftover";
  makeTemporary(old, 2 * kStaleTemporarySeconds);
  Graph graph = makeGraph();
  ASSERT_TRUE((*opened)->store(makeKey(graph), makeBundle(graph)).ok());
  EXPECT_FALSE(fileExists(old));
}

} // namespace
