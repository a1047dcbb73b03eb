//===- RegularFileTest.cpp - Reading a file named by a user ---------------===//

#include "runtime/ir/RegularFile.h"
#include "runtime/ir/Allocation.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <future>
#include <sys/stat.h>
#include <unistd.h>

using namespace fuse;

namespace {

class RegularFileTest : public testing::Test {
protected:
  void SetUp() override {
    std::string pattern = testing::TempDir() + "fuse-regular-file-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  std::string write(const std::string &name, const std::string &contents) {
    std::string path = dir + "/" + name;
    std::ofstream(path, std::ios::binary) << contents;
    return path;
  }

  std::string dir;
};

void expectRefused(const std::string &path, const std::string &kind) {
  Expected<std::string> read = readRegularFile(path, 1 << 20);
  ASSERT_FALSE(read.ok()) << path;
  EXPECT_EQ(read.message(), "cannot read '" + path + "': it is " + kind +
                                ", not a regular file");
}

TEST_F(RegularFileTest, ReadsARegularFile) {
  std::string path = write("a.txt", "hello");
  Expected<std::string> read = readRegularFile(path, 5);
  ASSERT_TRUE(read.ok()) << read.message();
  EXPECT_EQ(*read, "hello");
  Expected<RegularFile> file = RegularFile::open(path);
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->size(), 5u);
  std::uint8_t two[2];
  ASSERT_TRUE(file->readAt(3, two).ok());
  EXPECT_EQ(two[0], 'l');
  EXPECT_EQ(two[1], 'o');
}

TEST_F(RegularFileTest, RefusesWhatIsNotARegularFile) {
  expectRefused(dir, "a directory");
  expectRefused("/dev/zero", "a character device");
  std::string link = dir + "/zero.mlir";
  ASSERT_EQ(::symlink("/dev/zero", link.c_str()), 0);
  expectRefused(link, "a character device");
}

TEST_F(RegularFileTest, AFifoIsRefusedWithoutBlocking) {
  std::string fifo = dir + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::future<Expected<std::string>> read = std::async(
      std::launch::async, [&] { return readRegularFile(fifo, 1 << 20); });
  if (read.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    ADD_FAILURE() << "opening a FIFO without a writer blocks";
    // A writer lets the blocked open return, so that the test ends.
    int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (writer >= 0)
      ::close(writer);
  }
  Expected<std::string> result = read.get();
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.message().find("it is a FIFO"), std::string::npos)
      << result.message();
}

TEST_F(RegularFileTest, AMissingFileNamesThePath) {
  Expected<std::string> read = readRegularFile(dir + "/absent", 10);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.message(),
            "cannot read '" + dir + "/absent': No such file or directory");
}

TEST_F(RegularFileTest, ReadsAreBounded) {
  std::string path = write("big", std::string(100, 'x'));
  Expected<std::string> read = readRegularFile(path, 99);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.message().find("larger than 99 bytes"), std::string::npos)
      << read.message();
  Expected<RegularFile> file = RegularFile::open(path);
  ASSERT_TRUE(file.ok());
  std::uint8_t past[8];
  Status status = file->readAt(96, past);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("ends at byte 100"), std::string::npos)
      << status.message();
}

TEST_F(RegularFileTest, AProcFileIsReadToItsEnd) {
  // Its size says 0; its contents are read up to the end all the same.
  Expected<std::string> read = readRegularFile("/proc/self/status", 1 << 20);
  ASSERT_TRUE(read.ok()) << read.message();
  EXPECT_NE(read->find("Pid:"), std::string::npos);
}

TEST(Allocation, NamesWhatCannotBeAllocated) {
  EXPECT_TRUE(checkAllocatable(1 << 20, "a small buffer").ok());
  EXPECT_TRUE(checkAllocatable(0, "nothing").ok());
  // More than any address space: 2^63 bytes.
  Status status = checkAllocatable(std::uint64_t(1) << 63, "input 'x'");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "cannot allocate 9223372036854775808 bytes for input 'x'");
}

} // namespace
