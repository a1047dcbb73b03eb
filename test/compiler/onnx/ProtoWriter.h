//===- ProtoWriter.h - Protobuf wire format for the ONNX tests --*- C++ -*-===//
//
// The few protobuf writers the importer tests build models and tensors with
// (varints, field keys, length-delimited fields), so that a test can write
// bytes that protobuf's own serializer never would. Test-only.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TEST_COMPILER_ONNX_PROTOWRITER_H
#define FUSE_TEST_COMPILER_ONNX_PROTOWRITER_H

#include <cstdint>
#include <string>

namespace fuse::test {

/// `value` as a base-128 varint.
inline void varint(std::string &out, std::uint64_t value) {
  while (value >= 0x80) {
    out += char(value | 0x80);
    value >>= 7;
  }
  out += char(value);
}

/// The key of field `number` with `wireType` (0 varint, 2 length-delimited).
inline void field(std::string &out, int number, int wireType) {
  varint(out, std::uint64_t(number) << 3 | wireType);
}

/// Field `number` holding `bytes` (a string, bytes or a message).
inline void bytesField(std::string &out, int number, const std::string &bytes) {
  field(out, number, 2);
  varint(out, bytes.size());
  out += bytes;
}

} // namespace fuse::test

#endif // FUSE_TEST_COMPILER_ONNX_PROTOWRITER_H
