//===- HostLinker.cpp - Object file -> shared object, in process ----------===//

#include "compiler/HostLinker.h"

#include "lld/Common/CommonLinkerContext.h"
#include "lld/Common/Driver.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <string>

LLD_HAS_DRIVER(elf)

namespace fuse {

namespace {

/// Removes its files when it goes out of scope.
struct TemporaryFiles {
  llvm::SmallVector<llvm::SmallString<128>> paths;
  ~TemporaryFiles() {
    for (const auto &path : paths)
      llvm::sys::fs::remove(path);
  }
  Expected<std::string> create(llvm::StringRef suffix) {
    llvm::SmallString<128> path;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "fuse-host-kernels", suffix, path))
      return Status::error("cannot create a temporary file for linking: " +
                           ec.message());
    paths.push_back(path);
    return std::string(path);
  }
};

} // namespace

Expected<std::vector<std::uint8_t>>
linkHostSharedObject(std::span<const std::uint8_t> object) {
  TemporaryFiles files;
  Expected<std::string> objectPath = files.create("o");
  if (!objectPath.ok())
    return objectPath.status();
  Expected<std::string> sharedPath = files.create("so");
  if (!sharedPath.ok())
    return sharedPath.status();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(*objectPath, ec);
    if (ec)
      return Status::error("cannot write " + *objectPath + ": " + ec.message());
    os.write(reinterpret_cast<const char *>(object.data()), object.size());
  }

  static std::mutex lldMutex;
  std::lock_guard lock(lldMutex);
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  std::string output;
  llvm::raw_string_ostream outputStream(output);
  const char *args[] = {"ld.lld",
                        "-shared",
                        "--hash-style=gnu",
                        "-z",
                        "noexecstack",
                        "-z",
                        "now",
                        "-o",
                        sharedPath->c_str(),
                        objectPath->c_str()};
  // The ELF driver itself, never exiting the process; its context is
  // destroyed after each link so that the next one starts clean.
  bool linked = lld::elf::link(args, outputStream, errorStream,
                               /*exitEarly=*/false, /*disableOutput=*/false);
  lld::CommonLinkerContext::destroy();
  if (!linked)
    return Status::error("linking the host kernels with lld failed: " + errors);

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> shared =
      llvm::MemoryBuffer::getFile(*sharedPath);
  if (!shared)
    return Status::error("cannot read the linked shared object: " +
                         shared.getError().message());
  const auto *begin =
      reinterpret_cast<const std::uint8_t *>((*shared)->getBufferStart());
  return std::vector<std::uint8_t>(begin, begin + (*shared)->getBufferSize());
}

} // namespace fuse
