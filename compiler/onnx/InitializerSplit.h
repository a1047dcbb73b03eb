//===- InitializerSplit.h - Weights apart from structure ---*- C++ -*-===//
//
// An ONNX model file is mostly its initializers' raw_data. Parsed whole,
// protobuf copies every one of those bytes into a string of its own before
// the importer copies them once more into the tensor's value: on an 8-layer
// BERT, 27 MB touched twice, most of a warm start's import. The split reads
// the model's wire format just deep enough to find those fields, so that
// protobuf parses only the rest (the skeleton) and each initializer's value
// is copied once, from the model's bytes, where the importer reads it.
//
// No protobuf here: the wire format (varints, tags, length-delimited fields)
// is read directly, every length checked against the bytes left.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_COMPILER_ONNX_INITIALIZERSPLIT_H
#define FUSE_COMPILER_ONNX_INITIALIZERSPLIT_H

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fuse::onnximport {

/// A ModelProto's bytes split in two.
struct SplitModel {
  /// The model with the raw_data of each of its graph's initializers
  /// emptied (present, zero bytes long): protobuf parses it into the same
  /// message as the whole model but for those fields' contents.
  std::string skeleton;
  /// One per initializer of the graph, in order: the bytes of its raw_data,
  /// a view into the bytes split; nullopt for one without raw_data.
  std::vector<std::optional<std::string_view>> rawData;
};

/// `model` split, or nullopt where its bytes are not in the plain form the
/// split reads (not wire format, a graph given twice, an initializer with
/// raw_data twice or of another wire type, groups): such bytes are parsed
/// whole, and protobuf says what is wrong with them.
std::optional<SplitModel> splitInitializerData(std::string_view model);

} // namespace fuse::onnximport

#endif // FUSE_COMPILER_ONNX_INITIALIZERSPLIT_H
