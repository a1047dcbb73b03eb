//===- HostLinker.cpp - Object file -> shared object, in process ----------===//

#include "compiler/host/HostLinker.h"

#include "compiler/common/PrivateFolder.h"

#include "lld/Common/CommonLinkerContext.h"
#include "lld/Common/Driver.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <mutex>
#include <random>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

LLD_HAS_DRIVER(elf)

namespace fuse {

Expected<std::vector<std::uint8_t>>
linkHostSharedObject(std::span<const std::vector<std::uint8_t>> objects) {
  if (objects.empty())
    return Status::error("linking the host kernels: no object file");
  Expected<ToolFiles> files = prepareToolFiles(
      "fuse-link-", "linking", "kernels.o", objects[0], {"kernels.so"});
  if (!files.ok())
    return files.status();
  std::vector<std::string> objectPaths{files->input};
  for (size_t i = 1; i < objects.size(); ++i) {
    objectPaths.push_back(
        files->folder.file("kernels-" + std::to_string(i) + ".o"));
    if (Status written = writePrivateFile(objectPaths.back(), objects[i]);
        !written.ok())
      return written;
  }
  const std::string &sharedPath = files->outputs[0];

  static std::mutex lldMutex;
  std::lock_guard lock(lldMutex);
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  std::string output;
  llvm::raw_string_ostream outputStream(output);
  std::vector<const char *> args = {
      "ld.lld", "-shared", "--hash-style=gnu", "-z", "noexecstack", "-z",
      "now",    "-o",      sharedPath.c_str()};
  for (const std::string &path : objectPaths)
    args.push_back(path.c_str());
  // The ELF driver itself, never exiting the process; its context is
  // destroyed after each link so that the next one starts clean.
  bool linked = lld::elf::link(args, outputStream, errorStream,
                               /*exitEarly=*/false, /*disableOutput=*/false);
  lld::CommonLinkerContext::destroy();
  if (!linked)
    return Status::error("linking the host kernels with lld failed: " + errors);

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> shared =
      llvm::MemoryBuffer::getFile(sharedPath);
  if (!shared)
    return Status::error("cannot read the linked shared object: " +
                         shared.getError().message());
  const auto *begin =
      reinterpret_cast<const std::uint8_t *>((*shared)->getBufferStart());
  return std::vector<std::uint8_t>(begin, begin + (*shared)->getBufferSize());
}

} // namespace fuse
