//===- FuzzOnnx.cpp - Fuzz target: the ONNX importer ----------------------===//
//
// Any bytes end in a Graph or an error that says what is wrong, never a
// crash. Models are imported as fuse-run does (asking which inputs must be
// constants); the bytes are also read as a TensorProto (`.pb` inputs).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/OnnxImporter.h"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data,
                                      std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  std::vector<fuse::onnximport::ConstantInputNeed> needs;
  (void)fuse::onnximport::importModel(bytes, {}, "<fuzz>", &needs).ok();
  (void)fuse::onnximport::parseTensorProto(bytes).ok();
  return 0;
}
