//===- CacheWarnings.h - fuse-run's bundle cache warnings -------*- C++ -*-===//
//
// The bundle cache reports each entry it cannot use and removes
// (BundleCacheOptions::onProblem). After an upgrade of Fuse every kernel
// file of a model was made by another version: a line each was more than
// a hundred lines for one model. Those go on one line, the first in full,
// and a count of the rest when the cache closes; every other problem (a
// corrupt or truncated entry) keeps a line of its own.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TOOLS_FUSE_RUN_CACHEWARNINGS_H
#define FUSE_TOOLS_FUSE_RUN_CACHEWARNINGS_H

#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <string>

namespace fuse {

class CacheWarnings {
public:
  CacheWarnings() = default;
  CacheWarnings(const CacheWarnings &) = delete;
  CacheWarnings &operator=(const CacheWarnings &) = delete;
  ~CacheWarnings() {
    if (otherVersions > 1)
      llvm::errs() << "fuse-run: warning: bundle cache: removed "
                   << otherVersions - 1
                   << " more entries made by another version of Fuse\n";
  }

  void report(const std::string &message) {
    if (message.find("made by another version of Fuse") != std::string::npos &&
        ++otherVersions > 1)
      return;
    llvm::errs() << "fuse-run: warning: bundle cache: " << message << "\n";
  }

  /// An onProblem callback that reports to a CacheWarnings of its own,
  /// which prints its count when the cache drops the callback.
  static std::function<void(const std::string &)> callback() {
    auto warnings = std::make_shared<CacheWarnings>();
    return
        [warnings](const std::string &message) { warnings->report(message); };
  }

private:
  unsigned otherVersions = 0;
};

} // namespace fuse

#endif // FUSE_TOOLS_FUSE_RUN_CACHEWARNINGS_H
