//===- InitializerSplit.cpp - A model's weights apart from its structure --===//

#include "compiler/onnx/InitializerSplit.h"

#include <cstdint>

namespace fuse::onnximport {
namespace {

// Field numbers of onnx.proto.
constexpr std::uint64_t kModelGraph = 7;
constexpr std::uint64_t kGraphInitializer = 5;
constexpr std::uint64_t kTensorRawData = 9;

constexpr unsigned kVarint = 0, kFixed64 = 1, kLengthDelimited = 2,
                   kFixed32 = 5;

/// A reader of one message's fields, each kept as the bytes it spans.
class FieldReader {
public:
  explicit FieldReader(std::string_view bytes) : bytes(bytes) {}

  /// The next field: its number, wire type, whole bytes (tag included) and,
  /// for a length-delimited one, its contents. False at the end and on a
  /// malformed or unsupported (group) field; `failed` tells them apart.
  bool next() {
    if (at == bytes.size())
      return false;
    const std::size_t start = at;
    std::optional<std::uint64_t> tag = varint();
    // Protobuf reads a tag in at most 5 bytes.
    if (!tag || at - start > 5 || (*tag >> 3) == 0 || (*tag >> 3) > 0x1fffffff)
      return fail();
    number = *tag >> 3;
    wireType = unsigned(*tag & 7);
    switch (wireType) {
    case kVarint:
      if (!varint())
        return fail();
      break;
    case kFixed64:
    case kFixed32: {
      const std::size_t width = wireType == kFixed64 ? 8 : 4;
      if (bytes.size() - at < width)
        return fail();
      at += width;
      break;
    }
    case kLengthDelimited: {
      std::optional<std::uint64_t> length = varint();
      if (!length || *length > bytes.size() - at)
        return fail();
      contents = bytes.substr(at, std::size_t(*length));
      at += std::size_t(*length);
      break;
    }
    default: // Groups (3, 4) and the undefined 6 and 7.
      return fail();
    }
    whole = bytes.substr(start, at - start);
    return true;
  }

  bool failed = false;
  std::uint64_t number = 0;
  unsigned wireType = 0;
  std::string_view whole, contents;

private:
  bool fail() {
    failed = true;
    return false;
  }

  /// At most 10 bytes, as protobuf reads them.
  std::optional<std::uint64_t> varint() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 70 && at < bytes.size(); shift += 7) {
      const std::uint8_t byte = std::uint8_t(bytes[at++]);
      value |= std::uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80))
        return value;
    }
    return std::nullopt;
  }

  std::string_view bytes;
  std::size_t at = 0;
};

void appendVarint(std::string &out, std::uint64_t value) {
  while (value >= 0x80) {
    out += char(value | 0x80);
    value >>= 7;
  }
  out += char(value);
}

void appendMessage(std::string &out, std::uint64_t number,
                   std::string_view contents) {
  appendVarint(out, number << 3 | kLengthDelimited);
  appendVarint(out, contents.size());
  out += contents;
}

/// An initializer's fields but its raw_data, which goes to `rawData`
/// (nullopt: it has none); false where the split does not apply.
bool splitTensor(std::string_view tensor, std::string &out,
                 std::optional<std::string_view> &rawData) {
  FieldReader fields(tensor);
  while (fields.next()) {
    if (fields.number != kTensorRawData) {
      out += fields.whole;
      continue;
    }
    if (fields.wireType != kLengthDelimited || rawData)
      return false;
    rawData = fields.contents;
    appendMessage(out, kTensorRawData, {});
  }
  return !fields.failed;
}

bool splitGraph(std::string_view graph, SplitModel &split, std::string &out) {
  FieldReader fields(graph);
  std::string tensor;
  while (fields.next()) {
    if (fields.number != kGraphInitializer) {
      out += fields.whole;
      continue;
    }
    if (fields.wireType != kLengthDelimited)
      return false;
    tensor.clear();
    std::optional<std::string_view> rawData;
    if (!splitTensor(fields.contents, tensor, rawData))
      return false;
    split.rawData.push_back(rawData);
    appendMessage(out, kGraphInitializer, tensor);
  }
  return !fields.failed;
}

} // namespace

std::optional<SplitModel> splitInitializerData(std::string_view model) {
  SplitModel split;
  FieldReader fields(model);
  bool sawGraph = false;
  while (fields.next()) {
    if (fields.number != kModelGraph) {
      split.skeleton += fields.whole;
      continue;
    }
    // A second graph would be merged into the first.
    if (fields.wireType != kLengthDelimited || sawGraph)
      return std::nullopt;
    sawGraph = true;
    std::string graph;
    if (!splitGraph(fields.contents, split, graph))
      return std::nullopt;
    appendMessage(split.skeleton, kModelGraph, graph);
  }
  if (fields.failed)
    return std::nullopt;
  return split;
}

} // namespace fuse::onnximport
