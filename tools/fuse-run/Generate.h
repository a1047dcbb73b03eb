//===- Generate.h - fuse-run --generate: a decoder's greedy loop -*- C++
//-*-===//
//
// Greedy generation with a decoder exported with its key/value cache
// (issue 22): inputs input_ids, optionally attention_mask and position_ids,
// and past_key_values.* (or past.*); outputs logits and present.* of the
// same names. Each step imports the model at the step's shapes, records it
// through the lazy engine (engine::call) and reads back only the chosen
// tokens: the present.* tensors stay on the device and are the next step's
// past, and the weights are uploaded once.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TOOLS_FUSE_RUN_GENERATE_H
#define FUSE_TOOLS_FUSE_RUN_GENERATE_H

#include "runtime/cache/SymbolicBundle.h"

#include <string>
#include <vector>

namespace fuse {

struct GenerateOptions {
  std::string model, runtime, outputDir, cacheDir;
  /// fuse-run's --input specs: only input_ids=PATH (the prompt) is taken.
  std::vector<std::string> inputs;
  unsigned tokens = 0;
  bool json = false;
  /// --dim-range: every step's dims inside them (checked before it runs),
  /// and the engine told (a decoder's arena sized for the largest).
  DimRanges dimRanges;
};

/// fuse-run's exit status: 0, or 2 with the error said on stderr.
int generateTokens(const GenerateOptions &options);

} // namespace fuse

#endif // FUSE_TOOLS_FUSE_RUN_GENERATE_H
