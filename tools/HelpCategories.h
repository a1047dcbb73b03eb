//===- HelpCategories.h - --help shows a tool's own options ----*- C++ -*-===//
//
// Every tool links LLVM, which registers hundreds of options of its own
// (backends such as AMDGPU and ARM, code generation). A tool's --help shows
// only its own option categories (and LLVM's generic --help, --version);
// --help-hidden still lists everything. llvm::cl::HideUnrelatedOptions alone
// would make the others ReallyHidden, which --help-hidden omits too.
// Header-only: the tools share no library.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TOOLS_HELPCATEGORIES_H
#define FUSE_TOOLS_HELPCATEGORIES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/CommandLine.h"

namespace fuse {

/// Hides from --help, not from --help-hidden, every registered option that
/// is in none of `categories` (LLVM's generic options excepted). Options
/// registered later stay visible.
inline void
showOnlyInHelp(llvm::ArrayRef<const llvm::cl::OptionCategory *> categories) {
  auto &options = llvm::cl::getRegisteredOptions();
  llvm::SmallPtrSet<llvm::cl::Option *, 32> reallyHidden;
  for (auto &entry : options)
    if (entry.second->getOptionHiddenFlag() == llvm::cl::ReallyHidden)
      reallyHidden.insert(entry.second);
  llvm::cl::HideUnrelatedOptions(categories);
  for (auto &entry : options)
    if (entry.second->getOptionHiddenFlag() == llvm::cl::ReallyHidden &&
        !reallyHidden.contains(entry.second))
      entry.second->setHiddenFlag(llvm::cl::Hidden);
}

} // namespace fuse

#endif // FUSE_TOOLS_HELPCATEGORIES_H
