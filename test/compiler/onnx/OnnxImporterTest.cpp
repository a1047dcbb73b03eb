//===- OnnxImporterTest.cpp - FuseOnnx API tests --------------------------===//
//
// Malformed and truncated input is an error, never a crash; TensorProto
// raw_data and typed fields read alike. Protobuf messages are written by
// hand (wire format) so the test needs no protobuf headers.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/OnnxImporter.h"
#include "ProtoWriter.h"
#include "runtime/ir/GraphHash.h"
#include "runtime/ir/Verifier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <random>
#include <set>
#include <sstream>

using namespace fuse;
using namespace fuse::onnximport;
using namespace fuse::test;

namespace {

/// A TensorProto: dims (1), data_type (2), name (8).
std::string tensorHeader(std::vector<std::int64_t> dims, int type,
                         const std::string &name) {
  std::string out;
  for (std::int64_t d : dims) {
    field(out, 1, 0);
    varint(out, std::uint64_t(d));
  }
  field(out, 2, 0);
  varint(out, type);
  bytesField(out, 8, name);
  return out;
}

TEST(OnnxTensorProto, RawData) {
  std::string proto = tensorHeader({2, 2}, /*FLOAT*/ 1, "x");
  float values[4] = {1.5f, -2, 3, 4};
  bytesField(proto, 9, std::string(reinterpret_cast<char *>(values), 16));
  Expected<NamedTensor> tensor = parseTensorProto(proto);
  ASSERT_TRUE(tensor.ok()) << tensor.message();
  EXPECT_EQ(tensor->name, "x");
  EXPECT_EQ(tensor->value.type, (TensorType{ElementType::F32, {2, 2}}));
  EXPECT_EQ(tensor->value.toDoubles(), (std::vector<double>{1.5, -2, 3, 4}));
}

TEST(OnnxTensorProto, TypedFields) {
  // float_data (4), packed.
  std::string floats = tensorHeader({3}, 1, "f");
  std::string packed;
  for (float v : {0.25f, 2.0f, -1.0f})
    packed.append(reinterpret_cast<char *>(&v), 4);
  bytesField(floats, 4, packed);
  Expected<NamedTensor> f = parseTensorProto(floats);
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f->value.toDoubles(), (std::vector<double>{0.25, 2, -1}));

  // int64_data (7), packed varints; negative values take ten bytes.
  std::string ints = tensorHeader({2}, /*INT64*/ 7, "i");
  std::string values;
  varint(values, 5);
  varint(values, std::uint64_t(std::int64_t(-3)));
  bytesField(ints, 7, values);
  Expected<NamedTensor> i = parseTensorProto(ints);
  ASSERT_TRUE(i.ok()) << i.message();
  EXPECT_EQ(i->value.type, (TensorType{ElementType::I64, {2}}));
  EXPECT_EQ(i->value.toInts(), (std::vector<std::int64_t>{5, -3}));

  // Booleans in int32_data (5).
  std::string bools = tensorHeader({3}, /*BOOL*/ 9, "b");
  std::string bits;
  for (int v : {1, 0, 1})
    varint(bits, v);
  bytesField(bools, 5, bits);
  Expected<NamedTensor> b = parseTensorProto(bools);
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_EQ(b->value.toInts(), (std::vector<std::int64_t>{1, 0, 1}));
}

/// The unsigned reading of every element.
std::vector<std::uint64_t> unsignedValues(const HostTensorData &data) {
  std::vector<std::uint64_t> values;
  for (std::int64_t i = 0; i < data.type.numElements(); ++i)
    values.push_back(loadUnsigned(data.type.elementType, data.bytes.data(), i));
  return values;
}

TEST(OnnxTensorProto, UnsignedAndInt16Types) {
  // raw_data: little-endian bytes of the type's width.
  struct Raw {
    int onnxType;
    ElementType type;
    std::string bytes;
    std::vector<std::uint64_t> expected;
  };
  const Raw raws[] = {
      {/*UINT8*/ 2, ElementType::UI8, "\xff\x80\x01", {255, 128, 1}},
      {/*UINT16*/ 4,
       ElementType::UI16,
       std::string("\xff\xff\x34\x12\x00\x00", 6),
       {65535, 0x1234, 0}},
      {/*UINT32*/ 12,
       ElementType::UI32,
       std::string("\x00\x5e\xd0\xb2\x05\x00\x00\x00\xff\xff\xff\xff", 12),
       {3000000000u, 5, 4294967295u}},
      {/*UINT64*/ 13,
       ElementType::UI64,
       std::string(8, '\xff') +
           std::string("\x06\x00\x00\x00\x00\x00\x00\x80", 8) +
           std::string("\x01\x00\x00\x00\x00\x00\x00\x00", 8),
       {~std::uint64_t(0), (std::uint64_t(1) << 63) + 6, 1}},
  };
  for (const Raw &raw : raws) {
    std::string proto = tensorHeader({3}, raw.onnxType, "r");
    bytesField(proto, 9, raw.bytes);
    Expected<NamedTensor> tensor = parseTensorProto(proto);
    ASSERT_TRUE(tensor.ok()) << tensor.message();
    EXPECT_EQ(tensor->value.type, (TensorType{raw.type, {3}}));
    EXPECT_EQ(unsignedValues(tensor->value), raw.expected)
        << elementTypeName(raw.type);
  }
  std::string i16Raw = tensorHeader({2}, /*INT16*/ 5, "i");
  bytesField(i16Raw, 9, std::string("\xfe\xff\x00\x80", 4));
  Expected<NamedTensor> i16 = parseTensorProto(i16Raw);
  ASSERT_TRUE(i16.ok()) << i16.message();
  EXPECT_EQ(i16->value.type, (TensorType{ElementType::I16, {2}}));
  EXPECT_EQ(i16->value.toInts(), (std::vector<std::int64_t>{-2, -32768}));

  // int32_data (5): one value per int32 for UINT8, UINT16 and INT16.
  struct Packed {
    int onnxType;
    ElementType type;
    std::vector<std::int64_t> values;
    std::vector<std::int64_t> expected;
  };
  const Packed packed[] = {
      {/*UINT8*/ 2, ElementType::UI8, {250, 0, 17}, {250, 0, 17}},
      {/*UINT16*/ 4, ElementType::UI16, {65535, 40000, 1}, {65535, 40000, 1}},
      {/*INT16*/ 5, ElementType::I16, {-32768, 32767, -5}, {-32768, 32767, -5}},
  };
  for (const Packed &p : packed) {
    std::string proto = tensorHeader({3}, p.onnxType, "p");
    std::string values;
    for (std::int64_t v : p.values)
      varint(values, std::uint64_t(v));
    bytesField(proto, 5, values);
    Expected<NamedTensor> tensor = parseTensorProto(proto);
    ASSERT_TRUE(tensor.ok()) << tensor.message();
    EXPECT_EQ(tensor->value.type, (TensorType{p.type, {3}}));
    EXPECT_EQ(tensor->value.toInts(), p.expected) << elementTypeName(p.type);
  }

  // uint64_data (11): UINT32 and UINT64.
  std::string u64 = tensorHeader({2}, /*UINT64*/ 13, "u");
  std::string u64Values;
  varint(u64Values, ~std::uint64_t(0));
  varint(u64Values, std::uint64_t(1) << 63);
  bytesField(u64, 11, u64Values);
  Expected<NamedTensor> big = parseTensorProto(u64);
  ASSERT_TRUE(big.ok()) << big.message();
  EXPECT_EQ(
      unsignedValues(big->value),
      (std::vector<std::uint64_t>{~std::uint64_t(0), std::uint64_t(1) << 63}));
  std::string u32 = tensorHeader({1}, /*UINT32*/ 12, "u");
  std::string u32Value;
  varint(u32Value, 4000000000u);
  bytesField(u32, 11, u32Value);
  Expected<NamedTensor> word = parseTensorProto(u32);
  ASSERT_TRUE(word.ok()) << word.message();
  EXPECT_EQ(word->value.type, (TensorType{ElementType::UI32, {1}}));
  EXPECT_EQ(unsignedValues(word->value),
            (std::vector<std::uint64_t>{4000000000u}));
}

TEST(OnnxTensorProto, Errors) {
  // Too few values for the shape.
  std::string shortRaw = tensorHeader({4}, 1, "x");
  bytesField(shortRaw, 9, std::string(8, '\0'));
  Expected<NamedTensor> a = parseTensorProto(shortRaw);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.message().find("has 8 bytes of raw_data, expected 16"),
            std::string::npos)
      << a.message();

  // Element types Fuse does not support: STRING and COMPLEX64.
  std::string text = tensorHeader({1}, /*STRING*/ 8, "s");
  bytesField(text, 6, "hello");
  Expected<NamedTensor> c = parseTensorProto(text);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.message().find("tensor 's' has element type STRING, which Fuse "
                             "does not support"),
            std::string::npos)
      << c.message();
  std::string complex = tensorHeader({2}, /*COMPLEX64*/ 14, "z");
  bytesField(complex, 9, std::string(16, '\0'));
  Expected<NamedTensor> g = parseTensorProto(complex);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.message().find("COMPLEX64, which Fuse does not support"),
            std::string::npos)
      << g.message();

  // int32_data values must fit the narrower type they stand for.
  std::string wide = tensorHeader({2}, /*UINT8*/ 2, "w");
  std::string wideValues;
  varint(wideValues, 7);
  varint(wideValues, 300);
  bytesField(wide, 5, wideValues);
  Expected<NamedTensor> h = parseTensorProto(wide);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.message().find("holds 300 in int32_data, which does not fit "
                             "UINT8"),
            std::string::npos)
      << h.message();
  std::string negative = tensorHeader({1}, /*UINT16*/ 4, "n");
  std::string negativeValue;
  varint(negativeValue, std::uint64_t(std::int64_t(-1)));
  bytesField(negative, 5, negativeValue);
  EXPECT_FALSE(parseTensorProto(negative).ok());
  // uint64_data values must fit UINT32.
  std::string big = tensorHeader({1}, /*UINT32*/ 12, "u");
  std::string bigValue;
  varint(bigValue, std::uint64_t(1) << 32);
  bytesField(big, 11, bigValue);
  Expected<NamedTensor> k = parseTensorProto(big);
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.message().find("holds 4294967296 in uint64_data, which does "
                             "not fit UINT32"),
            std::string::npos)
      << k.message();
  // UINT64 values are in uint64_data, not int64_data.
  std::string misplaced = tensorHeader({1}, /*UINT64*/ 13, "m");
  std::string misplacedValue;
  varint(misplacedValue, 5);
  bytesField(misplaced, 7, misplacedValue);
  Expected<NamedTensor> l = parseTensorProto(misplaced);
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.message().find("holds 0 values in uint64_data, expected 1"),
            std::string::npos)
      << l.message();

  // Not a protobuf.
  Expected<NamedTensor> d = parseTensorProto("\xff\xff\xff");
  ASSERT_FALSE(d.ok());

  Expected<NamedTensor> e = readTensorProtoFile("/nonexistent/x.pb");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.message().find("cannot read '/nonexistent/x.pb'"),
            std::string::npos);
}

/// A TensorProto of `type` and `dims` with `bytes` as raw_data.
std::string rawTensor(std::vector<std::int64_t> dims, int type,
                      const std::string &bytes) {
  std::string proto = tensorHeader(std::move(dims), type, "t");
  bytesField(proto, 9, bytes);
  return proto;
}

/// A TensorProto of `type` and `dims` with `values` as int32_data.
std::string int32Tensor(std::vector<std::int64_t> dims, int type,
                        const std::vector<std::int64_t> &values) {
  std::string proto = tensorHeader(std::move(dims), type, "t");
  std::string packed;
  for (std::int64_t v : values)
    varint(packed, std::uint64_t(v));
  bytesField(proto, 5, packed);
  return proto;
}

/// The bytes of a parsed tensor (Fuse's layout: one per element).
std::vector<std::uint8_t> parsedBytes(const std::string &proto,
                                      ElementType expectedType) {
  Expected<NamedTensor> tensor = parseTensorProto(proto);
  if (!tensor.ok()) {
    ADD_FAILURE() << tensor.message();
    return {};
  }
  EXPECT_EQ(tensor->value.type.elementType, expectedType);
  return tensor->value.bytes;
}

using Bytes = std::vector<std::uint8_t>;

// onnx.proto: INT4/UINT4/FLOAT4E2M1 two to a byte and INT2/UINT2 four, the
// first element in the least significant bits; Fuse unpacks them to a byte
// each (i4/i2 sign-extended). The f8 types are a byte each.
TEST(OnnxTensorProto, LowPrecisionTypes) {
  // 0x8F 0x17 0x0A: nibbles F 8 7 1 A (and a padding nibble).
  const std::string nibbles("\x8f\x17\x0a", 3);
  EXPECT_EQ(parsedBytes(rawTensor({5}, /*INT4*/ 22, nibbles), ElementType::I4),
            (Bytes{0xFF, 0xF8, 0x07, 0x01, 0xFA}));
  EXPECT_EQ(
      parsedBytes(rawTensor({5}, /*UINT4*/ 21, nibbles), ElementType::UI4),
      (Bytes{0x0F, 0x08, 0x07, 0x01, 0x0A}));
  // 0xE4 = 11 10 01 00: elements 0, 1, 2, 3; then 0x02: 2.
  const std::string crumbs("\xe4\x02", 2);
  EXPECT_EQ(parsedBytes(rawTensor({5}, /*UINT2*/ 25, crumbs), ElementType::UI2),
            (Bytes{0, 1, 2, 3, 2}));
  EXPECT_EQ(parsedBytes(rawTensor({5}, /*INT2*/ 26, crumbs), ElementType::I2),
            (Bytes{0, 1, 0xFE, 0xFF, 0xFE}));
  Expected<NamedTensor> f4 =
      parseTensorProto(rawTensor({3}, /*FLOAT4E2M1*/ 23, "\x9f\x02"));
  ASSERT_TRUE(f4.ok()) << f4.message();
  EXPECT_EQ(f4->value.type, (TensorType{ElementType::F4E2M1FN, {3}}));
  EXPECT_EQ(f4->value.toDoubles(), (std::vector<double>{-6, -0.5, 1}));
  // f8: raw bytes, or one int32 each.
  Expected<NamedTensor> e5m2 =
      parseTensorProto(rawTensor({2}, /*FLOAT8E5M2*/ 19, "\x3c\xc0"));
  ASSERT_TRUE(e5m2.ok()) << e5m2.message();
  EXPECT_EQ(e5m2->value.toDoubles(), (std::vector<double>{1, -2}));
  const struct {
    int onnxType;
    ElementType type;
  } f8Types[] = {{17, ElementType::F8E4M3FN},
                 {18, ElementType::F8E4M3FNUZ},
                 {19, ElementType::F8E5M2},
                 {20, ElementType::F8E5M2FNUZ},
                 {24, ElementType::F8E8M0FNU}};
  for (const auto &f8 : f8Types)
    EXPECT_EQ(parsedBytes(int32Tensor({2}, f8.onnxType, {0x38, 0xFF}), f8.type),
              (Bytes{0x38, 0xFF}));
  // int32_data of a sub-byte type: a packed byte per entry.
  EXPECT_EQ(
      parsedBytes(int32Tensor({3}, /*INT4*/ 22, {0x8F, 0x07}), ElementType::I4),
      (Bytes{0xFF, 0xF8, 0x07}));
  EXPECT_EQ(parsedBytes(int32Tensor({6}, /*UINT2*/ 25, {0xE4, 0x0B}),
                        ElementType::UI2),
            (Bytes{0, 1, 2, 3, 3, 2}));
  // A zero-sized tensor packs to nothing.
  EXPECT_EQ(parsedBytes(rawTensor({0, 3}, /*INT4*/ 22, ""), ElementType::I4),
            Bytes{});
}

TEST(OnnxTensorProto, LowPrecisionErrors) {
  auto message = [](const std::string &proto) {
    Expected<NamedTensor> tensor = parseTensorProto(proto);
    return tensor.ok() ? std::string("(parsed)") : tensor.message();
  };
  auto expectMessage = [&](const std::string &proto, const char *part) {
    const std::string text = message(proto);
    EXPECT_NE(text.find(part), std::string::npos) << text;
  };
  expectMessage(rawTensor({5}, /*INT4*/ 22, "\x01\x02"),
                "has 2 bytes of raw_data, expected 3 (2 elements packed in a "
                "byte)");
  expectMessage(rawTensor({5}, /*INT2*/ 26, std::string(5, '\0')),
                "has 5 bytes of raw_data, expected 2 (4 elements packed in a "
                "byte)");
  expectMessage(int32Tensor({4}, /*UINT4*/ 21, {1}),
                "holds 1 values in int32_data, expected 2 (2 elements packed "
                "in each)");
  expectMessage(int32Tensor({2}, /*INT4*/ 22, {300}),
                "holds 300 in int32_data, which is not a byte of packed INT4 "
                "elements");
  expectMessage(int32Tensor({1}, /*FLOAT8E4M3FN*/ 17, {256}),
                "holds 256 in int32_data, which is not the bits of a "
                "FLOAT8E4M3FN");
  expectMessage(rawTensor({2}, /*FLOAT8E8M0*/ 24, "\x01"),
                "has 1 bytes of raw_data, expected 2");
}

/// A ModelProto (opset 24) of one Cast from `from` to `to`, of shape
/// [count], with `attributes` (AttributeProtos) besides `to`.
std::string castModel(int from, int to, int count,
                      const std::vector<std::string> &attributes) {
  auto valueInfo = [&](const char *name, int type) {
    std::string dim, shape, tensorType, typeProto, info;
    field(dim, 1, 0);
    varint(dim, std::uint64_t(count));
    bytesField(shape, 1, dim);
    field(tensorType, 1, 0);
    varint(tensorType, std::uint64_t(type));
    bytesField(tensorType, 2, shape);
    bytesField(typeProto, 1, tensorType);
    bytesField(info, 1, name);
    bytesField(info, 2, typeProto);
    return info;
  };
  std::string node;
  bytesField(node, 1, "x");
  bytesField(node, 2, "y");
  bytesField(node, 3, "cast");
  bytesField(node, 4, "Cast");
  std::string toAttr;
  bytesField(toAttr, 1, "to");
  field(toAttr, 3, 0);
  varint(toAttr, std::uint64_t(to));
  field(toAttr, 20, 0);
  varint(toAttr, 2); // INT
  bytesField(node, 5, toAttr);
  for (const std::string &attribute : attributes)
    bytesField(node, 5, attribute);
  std::string graph;
  bytesField(graph, 1, node);
  bytesField(graph, 2, "g");
  bytesField(graph, 11, valueInfo("x", from));
  bytesField(graph, 12, valueInfo("y", to));
  std::string opset, model;
  bytesField(opset, 1, "");
  field(opset, 2, 0);
  varint(opset, 24);
  field(model, 1, 0);
  varint(model, 10);
  bytesField(model, 7, graph);
  bytesField(model, 8, opset);
  return model;
}

std::string intAttribute(const char *name, std::int64_t value) {
  std::string attribute;
  bytesField(attribute, 1, name);
  field(attribute, 3, 0);
  varint(attribute, std::uint64_t(value));
  field(attribute, 20, 0);
  varint(attribute, 2); // INT
  return attribute;
}

std::string stringAttribute(const char *name, const std::string &value) {
  std::string attribute;
  bytesField(attribute, 1, name);
  bytesField(attribute, 4, value);
  field(attribute, 20, 0);
  varint(attribute, 3); // STRING
  return attribute;
}

/// Imports `model` and runs it on the reference interpreter with `input`.
Expected<std::vector<HostTensorData>> importAndRun(const std::string &model,
                                                   HostTensorData input,
                                                   Graph *imported = nullptr) {
  Expected<ImportedModel> result = importModel(model, {}, "cast");
  if (!result.ok())
    return result.status();
  if (imported)
    *imported = result->graph;
  std::vector<HostTensor> views{input.view()};
  return evaluateGraph(result->graph, views);
}

// Cast-19 `saturate` (default 1) applies to the f8 targets; Cast-24
// `round_mode` to FLOAT8E8M0. The values are worked out by hand.
TEST(OnnxImporter, CastSaturateAndRoundMode) {
  const std::vector<double> values{1e6, 0.3, 3.0};
  const HostTensorData x =
      HostTensorData::fromDoubles({ElementType::F32, {3}}, values);
  Graph graph;
  // FLOAT -> FLOAT8E4M3FN, saturating by default: 448; 0.3 -> 0.3125.
  Expected<std::vector<HostTensorData>> saturated =
      importAndRun(castModel(1, 17, 3, {}), x, &graph);
  ASSERT_TRUE(saturated.ok()) << saturated.message();
  EXPECT_TRUE(graph.ops.back().getFlag("saturate"));
  EXPECT_EQ(saturated->front().type.elementType, ElementType::F8E4M3FN);
  EXPECT_EQ(saturated->front().toDoubles(),
            (std::vector<double>{448, 0.3125, 3}));
  // saturate=0: out of range is NaN.
  Expected<std::vector<HostTensorData>> plain = importAndRun(
      castModel(1, 17, 3, {intAttribute("saturate", 0)}), x, &graph);
  ASSERT_TRUE(plain.ok()) << plain.message();
  EXPECT_FALSE(graph.ops.back().getFlag("saturate"));
  EXPECT_TRUE(std::isnan(plain->front().toDoubles()[0]));
  // FLOAT8E8M0: `up` by default (3 -> 4), `down` on request (3 -> 2).
  Expected<std::vector<HostTensorData>> up =
      importAndRun(castModel(1, 24, 3, {}), x, &graph);
  ASSERT_TRUE(up.ok()) << up.message();
  EXPECT_EQ(graph.ops.back().findAttr("round_mode"), nullptr);
  EXPECT_EQ(up->front().toDoubles()[2], 4.0);
  Expected<std::vector<HostTensorData>> down = importAndRun(
      castModel(1, 24, 3, {stringAttribute("round_mode", "down")}), x, &graph);
  ASSERT_TRUE(down.ok()) << down.message();
  ASSERT_NE(graph.ops.back().findAttr("round_mode"), nullptr);
  EXPECT_EQ(graph.ops.back().findAttr("round_mode")->getEnumName(), "down");
  EXPECT_EQ(down->front().toDoubles(),
            (std::vector<double>{std::ldexp(1.0, 19), 0.25, 2}));
  // The attributes mean nothing to other targets (f4E2M1FN always
  // saturates): no flag in the graph.
  for (int to : {/*FLOAT16*/ 10, /*FLOAT4E2M1*/ 23, /*INT4*/ 22}) {
    Expected<std::vector<HostTensorData>> other =
        importAndRun(castModel(1, to, 3,
                               {intAttribute("saturate", 1),
                                stringAttribute("round_mode", "nearest")}),
                     x, &graph);
    ASSERT_TRUE(other.ok()) << other.message();
    EXPECT_TRUE(graph.ops.back().attributes.empty()) << to;
  }
  // An unknown round mode is an error that names it.
  Expected<ImportedModel> bad = importModel(
      castModel(1, 24, 3, {stringAttribute("round_mode", "sideways")}), {},
      "bad");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("attribute 'round_mode' is 'sideways', "
                               "expected up, down or nearest"),
            std::string::npos)
      << bad.message();
}

TEST(OnnxImporter, MalformedModels) {
  Expected<ImportedModel> junk = importModel("not a model at all", {}, "junk");
  ASSERT_FALSE(junk.ok());
  EXPECT_NE(junk.message().find("'junk' is not a valid ONNX model"),
            std::string::npos)
      << junk.message();

  Expected<ImportedModel> empty = importModel("", {}, "empty");
  ASSERT_FALSE(empty.ok());

  // Every truncation of a real model is an error or a model, never a crash.
  std::filesystem::path path =
      "/usr/share/libonnx-testdata/data/node/test_add/model.onnx";
  if (!std::filesystem::exists(path))
    GTEST_FAIL()
        << "libonnx-testdata is not installed (scripts/install-deps.sh)";
  std::ifstream file(path, std::ios::binary);
  std::stringstream contents;
  contents << file.rdbuf();
  std::string bytes = contents.str();
  Expected<ImportedModel> whole = importModel(bytes, {}, "add");
  ASSERT_TRUE(whole.ok()) << whole.message();
  EXPECT_EQ(whole->graph.inputs.size(), 2u);
  EXPECT_EQ(whole->graph.outputs.size(), 1u);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    Expected<ImportedModel> cut =
        importModel(std::string_view(bytes).substr(0, n), {}, "cut");
    if (!cut.ok())
      EXPECT_FALSE(cut.message().empty());
  }
  // Flipped bytes too.
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    std::string flipped = bytes;
    flipped[n] = char(flipped[n] ^ 0x5a);
    Expected<ImportedModel> model = importModel(flipped, {}, "flipped");
    if (!model.ok())
      EXPECT_FALSE(model.message().empty());
  }
}

// Every node test model, with bytes flipped: an error or a model, never a
// crash.
TEST(OnnxImporter, FuzzedNodeTestModels) {
  std::filesystem::path root = "/usr/share/libonnx-testdata/data/node";
  if (!std::filesystem::is_directory(root))
    GTEST_FAIL()
        << "libonnx-testdata is not installed (scripts/install-deps.sh)";
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  int imported = 0, rejected = 0;
  for (const auto &entry : std::filesystem::directory_iterator(root)) {
    std::ifstream file(entry.path() / "model.onnx", std::ios::binary);
    std::stringstream contents;
    contents << file.rdbuf();
    std::string bytes = contents.str();
    if (bytes.empty())
      continue;
    for (int round = 0; round < 8; ++round) {
      std::string mutated = bytes;
      for (int flips = 1 + int(next() % 3); flips > 0; --flips)
        mutated[next() % mutated.size()] = char(next());
      ImportOptions options;
      options.dims["N"] = 2;
      Expected<ImportedModel> model = importModel(mutated, options, "fuzzed");
      if (model.ok())
        ++imported;
      else
        ++rejected;
      if (!model.ok())
        EXPECT_FALSE(model.message().empty());
    }
  }
  EXPECT_GT(imported + rejected, 0);
}

std::string inputsDir() {
  const char *dir = std::getenv("FUSE_SOURCE_DIR");
  return std::string(dir ? dir : FUSE_ONNX_TEST_SOURCE_DIR) +
         "/lit_tests/onnx/Inputs/";
}

/// Imports `file` from lit_tests/onnx/Inputs and runs it on the reference
/// interpreter with `x` as its one model input and its weights bound.
Expected<std::vector<HostTensorData>> runWithWeights(const std::string &file,
                                                     HostTensorData &x) {
  Expected<ImportedModel> model = importModelFile(inputsDir() + file);
  if (!model.ok())
    return model.status();
  if (model->modelInputs.size() != 1)
    return Status::error(file + ": expected one model input");
  std::vector<HostTensor> views;
  // The weights are shared and read-only: the views are of copies.
  std::vector<HostTensorData> weights;
  weights.reserve(model->graph.inputs.size());
  for (std::size_t i = 0; i < model->graph.inputs.size(); ++i) {
    if (i == model->modelInputs[0])
      views.push_back(x.view());
    else if (model->weights[i])
      views.push_back(weights.emplace_back(*model->weights[i]).view());
    else
      return Status::error(file + ": an input without a value");
  }
  return evaluateGraph(model->graph, views);
}

/// Random f32 values in [-3, 3] away from zero, from a fresh seed (printed on
/// failure by the caller).
HostTensorData randomInput(std::vector<std::int64_t> shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(0.05, 3.0);
  std::int64_t count = 1;
  for (std::int64_t d : shape)
    count *= d;
  std::vector<double> values(count);
  for (double &v : values)
    v = (rng() & 1 ? 1 : -1) * dist(rng);
  return HostTensorData::fromDoubles({ElementType::F32, std::move(shape)},
                                     values);
}

// Clip and PRelu with constant bounds and slopes (a Constant node,
// initializers, IR version 3 where initializers are also graph inputs, old
// and new opsets): the importer adds those constants while lowering the node,
// which once left a reference into the graph's growing tensor storage
// dangling (a wrong type, std::bad_array_new_length, or nothing visible
// outside AddressSanitizer, which CI runs these tests under). The expected
// values are computed here, element by element, in f32.
TEST(OnnxImporter, ClipAndPReluWithConstantOperands) {
  unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto clip = [](float lo, float hi) {
    return [=](float x, std::int64_t) { return std::min(std::max(x, lo), hi); };
  };
  auto prelu = [](std::vector<float> slopes, std::int64_t inner) {
    return [=](float x, std::int64_t i) {
      float slope = slopes[std::size_t(i / inner) % slopes.size()];
      return x < 0 ? slope * x : x;
    };
  };
  const float inf = std::numeric_limits<float>::infinity();
  struct Case {
    const char *file;
    std::vector<std::int64_t> shape;
    std::function<float(float, std::int64_t)> expected;
  };
  const Case cases[] = {
      {"clip_constant_min.onnx", {2, 3, 4}, clip(-0.5f, inf)},
      {"clip_initializers.onnx", {2, 3, 4}, clip(0.0f, 6.0f)},
      {"clip_max_only.onnx", {2, 3, 4}, clip(-inf, 0.25f)},
      {"clip_opset6.onnx", {2, 3, 4}, clip(-1.0f, 0.5f)},
      {"prelu_slope1.onnx", {2, 3, 4}, prelu({0.25f}, 1)},
      {"prelu_channel_opset16.onnx",
       {2, 3, 4, 5},
       prelu({0.1f, 0.2f, 0.3f}, 20)},
      {"prelu_opset6.onnx", {2, 3, 4}, prelu({0.5f}, 1)},
      {"prelu_ir3.onnx", {2, 3, 4}, prelu({0.5f, -0.25f, 2.0f}, 4)},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.file);
    HostTensorData x = randomInput(c.shape, seed++);
    Expected<std::vector<HostTensorData>> outputs = runWithWeights(c.file, x);
    ASSERT_TRUE(outputs.ok()) << outputs.message();
    ASSERT_EQ(outputs->size(), 1u);
    ASSERT_EQ((*outputs)[0].type, x.type);
    std::vector<double> in = x.toDoubles(), out = (*outputs)[0].toDoubles();
    int changed = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      float want = c.expected(float(in[i]), std::int64_t(i));
      changed += want != float(in[i]);
      // Clip is exact; PRelu's product is rounded once to f32 either way.
      EXPECT_NEAR(out[i], want, 1e-6 * std::abs(want)) << "element " << i;
    }
    // The op did something on these inputs (a graph that passed x through
    // would fail here).
    EXPECT_GT(changed, 0);
  }
}

// Models the ONNX checker refuses are refused, saying what is wrong.
TEST(OnnxImporter, InvalidModels) {
  const std::pair<const char *, const char *> cases[] = {
      {"bad_opset_0.onnx", "opset 0 of the default ONNX domain is not a valid "
                           "version (1 to 28)"},
      {"bad_opset_99.onnx", "opset 99 of the default ONNX domain"},
      {"bad_opset_minus5.onnx", "opset -5 of the default ONNX domain"},
      {"bad_ir_1.onnx", "IR version 1 is not a valid ONNX IR version (3 to "
                        "14)"},
      {"bad_ir_999.onnx", "IR version 999 is not a valid ONNX IR version"},
      {"value_defined_twice.onnx",
       "node 'neg' (Neg, opset 17): value 'y' is defined twice"},
      {"node_writes_its_input.onnx",
       "node 'relu' (Relu, opset 17): output 't' is also an input of the "
       "node"},
      {"shape_without_outputs.onnx",
       "node 'shape' (Shape, opset 17): the node has no outputs"},
      {"relu_without_outputs.onnx",
       "node 'relu' (Relu, opset 17): the node has no outputs"},
      {"initializer_twice.onnx", "initializer 'w' is defined twice"},
      {"input_listed_twice.onnx", "graph input 'x' is listed twice"},
      {"slice_axis_twice.onnx",
       "node 'slice' (Slice, opset 17): axes repeat 1"},
  };
  for (const auto &[file, message] : cases) {
    Expected<ImportedModel> model = importModelFile(inputsDir() + file);
    ASSERT_FALSE(model.ok()) << file;
    EXPECT_NE(model.message().find(message), std::string::npos)
        << file << ": " << model.message();
  }
}

// Shape arithmetic that passes 2^63 is an error naming what overflowed, not
// a wrapped value: SAME padding for a stride of INT64_MAX and a dilation of
// 2^62 ran with a wrapped padding; the end of a split of sizes [1, INT64_MAX,
// ...] wrapped; a Reshape to [-1, 2^62 + 1, 4] inferred the -1 from a
// product wrapped to 4; empty inputs concatenated past 2^63 wrapped to
// INT64_MIN; num_outputs = INT64_MAX made that many parts (no end); a pad of
// INT64_MAX wrapped the size and one of INT64_MIN was negated; Flatten's
// outer product of an empty [2^32, 2^32, 0] saturated to INT64_MAX.
TEST(OnnxImporter, ShapeArithmeticOverflow) {
  const std::pair<const char *, const char *> cases[] = {
      {"conv_same_padding_overflow.onnx",
       "node 'conv' (Conv, opset 17): the padding auto_pad asks for passes "
       "2^63 (stride 9223372036854775807, window 3, dilation "
       "4611686018427387904)"},
      {"split_sizes_overflow.onnx",
       "node 'split' (Split, opset 17): the split sizes exceed dimension 0"},
      {"reshape_known_overflow.onnx",
       "node 'reshape' (Reshape, opset 17): cannot reshape [16] to [-1, "
       "4611686018427387905, 4]"},
      {"concat_dims_overflow.onnx",
       "node 'concat' (Concat, opset 17): op #0 (concat): the operands' dims "
       "along axis 1 add up past 2^63"},
      {"split_num_outputs_overflow.onnx",
       "node 'split' (Split, opset 18): num_outputs is 9223372036854775807, "
       "expected 2 (the node's outputs)"},
      {"pad_size_overflow.onnx",
       "node 'pad' (Pad, opset 17): pads 9223372036854775807, 2 of axis 1 (of "
       "size 4) give a size past 2^63"},
      {"pad_crop_overflow.onnx",
       "node 'pad' (Pad, opset 17): negative pads -9223372036854775808, 0 of "
       "axis 0 (of size 4) crop more than its elements"},
      {"flatten_outer_overflow.onnx",
       "node 'flatten' (Flatten, opset 17): the product of the dims before "
       "axis 2 of [4294967296, 4294967296, 0] passes 2^63"},
  };
  for (const auto &[file, message] : cases) {
    Expected<ImportedModel> model = importModelFile(inputsDir() + file);
    ASSERT_FALSE(model.ok()) << file;
    EXPECT_NE(model.message().find(message), std::string::npos)
        << file << ": " << model.message();
  }
}

// A Concat whose inputs differ in rank is an error (an empty-input filter once
// dropped the mismatched input and returned the first unchanged).
TEST(OnnxImporter, ConcatOfMismatchedRanksIsAnError) {
  Expected<ImportedModel> model =
      importModelFile(inputsDir() + "concat_rank_mismatch.onnx");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.message().find("input 1 of shape [3] cannot be concatenated "
                                 "with input 0 of shape [2, 3] along axis 0"),
            std::string::npos)
      << model.message();
}

// Slice steps of INT64_MIN and INT64_MAX take one element, as in NumPy
// (x[:, INT64_MAX:INT64_MIN:INT64_MIN] is the last column, x[:, 0::INT64_MAX]
// the first); no shape arithmetic overflows on the way.
TEST(OnnxImporter, SliceWithExtremeSteps) {
  unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  HostTensorData x = randomInput({2, 5}, seed);
  Expected<ImportedModel> model =
      importModelFile(inputsDir() + "slice_extreme_steps.onnx");
  ASSERT_TRUE(model.ok()) << model.message();
  std::vector<HostTensor> views;
  std::vector<HostTensorData> weights;
  weights.reserve(model->graph.inputs.size());
  for (std::size_t i = 0; i < model->graph.inputs.size(); ++i)
    views.push_back(model->weights[i]
                        ? weights.emplace_back(*model->weights[i]).view()
                        : x.view());
  Expected<std::vector<HostTensorData>> outputs =
      evaluateGraph(model->graph, views);
  ASSERT_TRUE(outputs.ok()) << outputs.message();
  ASSERT_EQ(outputs->size(), 2u);
  std::vector<double> in = x.toDoubles();
  for (int k = 0; k < 2; ++k) {
    const HostTensorData &y = (*outputs)[k];
    ASSERT_EQ(y.type, (TensorType{ElementType::F32, {2, 1}})) << "output " << k;
    int column = k == 0 ? 4 : 0;
    EXPECT_EQ(y.toDoubles(), (std::vector<double>{in[column], in[5 + column]}))
        << "output " << k;
  }
}

// The initializer `w` becomes a weight input after the model's input `x`,
// with its value returned for binding; Relu's zero is a splat.
TEST(OnnxImporter, WeightsAreInputsWithValues) {
  Expected<ImportedModel> model =
      importModelFile(inputsDir() + "relu_add.onnx");
  ASSERT_TRUE(model.ok()) << model.message();
  const Graph &graph = model->graph;
  ASSERT_EQ(graph.inputs.size(), 2u);
  EXPECT_EQ(graph.tensors[graph.inputs[0]].name, "x");
  EXPECT_EQ(graph.tensors[graph.inputs[1]].name, "w");
  EXPECT_EQ(model->modelInputs, (std::vector<std::size_t>{0}));
  ASSERT_EQ(model->weights.size(), 2u);
  EXPECT_FALSE(model->weights[0]);
  ASSERT_TRUE(model->weights[1]);
  EXPECT_EQ(model->weights[1]->toDoubles(),
            (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(model->opsetVersion, 17);
  ASSERT_EQ(graph.outputs.size(), 1u);
  EXPECT_EQ(graph.outputs[0].name, "y");
  bool splatZero = false;
  for (const Op &op : graph.ops)
    if (op.kind == OpKind::Constant)
      splatZero |= op.findAttr("value")->getDense().splat;
  EXPECT_TRUE(splatZero);
}

TEST(OnnxImporter, DynamicDims) {
  Expected<ImportedModel> unbound =
      importModelFile(inputsDir() + "dynamic.onnx");
  ASSERT_FALSE(unbound.ok());
  EXPECT_NE(unbound.message().find("input 'x' dimension 0 ('batch') is "
                                   "dynamic"),
            std::string::npos)
      << unbound.message();
  ImportOptions options;
  options.dims["batch"] = 5;
  Expected<ImportedModel> bound =
      importModelFile(inputsDir() + "dynamic.onnx", options);
  ASSERT_TRUE(bound.ok()) << bound.message();
  EXPECT_EQ(bound->graph.typeOf(bound->graph.inputs[0]).shape,
            (std::vector<std::int64_t>{5, 8}));
  ImportOptions byIndex;
  byIndex.dims["x:0"] = 3;
  Expected<ImportedModel> indexed =
      importModelFile(inputsDir() + "dynamic_unnamed.onnx", byIndex);
  ASSERT_TRUE(indexed.ok()) << indexed.message();
  EXPECT_EQ(indexed->graph.typeOf(indexed->graph.inputs[0]).shape,
            (std::vector<std::int64_t>{3, 8}));
}

// A shape given as a model input, bound at import time: no graph input.
TEST(OnnxImporter, ConstantInputs) {
  ImportOptions options;
  options.constantInputs.emplace(
      "shape", HostTensorData::fromInts(TensorType{ElementType::I64, {2}},
                                        std::vector<std::int64_t>{3, 2}));
  Expected<ImportedModel> model =
      importModelFile(inputsDir() + "runtime_shape.onnx", options);
  ASSERT_TRUE(model.ok()) << model.message();
  EXPECT_EQ(model->graph.inputs.size(), 1u);
  EXPECT_EQ(model->modelInputs, (std::vector<std::size_t>{0, kBoundAtImport}));
  EXPECT_EQ(model->graph.typeOf(model->graph.outputs[0].tensor).shape,
            (std::vector<std::int64_t>{3, 2}));

  ImportOptions wrongType;
  wrongType.constantInputs.emplace(
      "shape", HostTensorData::fromInts(TensorType{ElementType::I32, {2}},
                                        std::vector<std::int64_t>{3, 2}));
  Expected<ImportedModel> wrong =
      importModelFile(inputsDir() + "runtime_shape.onnx", wrongType);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("the value bound to input 'shape' is a "
                                 "tensor<2xi32>, but the input is a "
                                 "tensor<2xi64>"),
            std::string::npos)
      << wrong.message();
}

// Which model inputs an import needs as constants, as data: `shape` for a
// Reshape's shape; not `ids` (through a Cast) for a Gather's indices, which
// are a run-time tensor (issue 21), though binding them still works (a
// rising progression of constant indices is a slice); none for a model that
// imports or fails for another reason.
TEST(OnnxImporter, InputsNeededAsConstants) {
  Expected<std::vector<ConstantInputNeed>> shape =
      inputsNeededAsConstants(inputsDir() + "runtime_shape.onnx");
  ASSERT_TRUE(shape.ok()) << shape.message();
  ASSERT_EQ(shape->size(), 1u);
  EXPECT_EQ((*shape)[0].input, "shape");
  EXPECT_EQ((*shape)[0].use,
            "shape (input 1, 'shape') of node 'reshape' (Reshape, opset 17)");

  const std::string gather = inputsDir() + "gather_input_ids.onnx";
  Expected<std::vector<ConstantInputNeed>> ids =
      inputsNeededAsConstants(gather);
  ASSERT_TRUE(ids.ok()) << ids.message();
  EXPECT_TRUE(ids->empty());
  Expected<ImportedModel> runtimeIds = importModelFile(gather);
  ASSERT_TRUE(runtimeIds.ok()) << runtimeIds.message();
  EXPECT_EQ(runtimeIds->modelInputs, (std::vector<std::size_t>{0, 1}));

  ImportOptions bound;
  bound.constantInputs.emplace(
      "ids", HostTensorData::fromInts(TensorType{ElementType::I32, {2}},
                                      std::vector<std::int64_t>{1, 3}));
  Expected<std::vector<ConstantInputNeed>> none =
      inputsNeededAsConstants(gather, bound);
  ASSERT_TRUE(none.ok()) << none.message();
  EXPECT_TRUE(none->empty());
  Expected<ImportedModel> model = importModelFile(gather, bound);
  ASSERT_TRUE(model.ok()) << model.message();
  EXPECT_EQ(model->modelInputs, (std::vector<std::size_t>{kBoundAtImport, 0}));

  for (const char *file : {"relu_add.onnx", "unsupported_op.onnx"}) {
    Expected<std::vector<ConstantInputNeed>> needs =
        inputsNeededAsConstants(inputsDir() + file);
    ASSERT_TRUE(needs.ok()) << file << ": " << needs.message();
    EXPECT_TRUE(needs->empty()) << file;
  }
  EXPECT_FALSE(inputsNeededAsConstants(inputsDir() + "absent.onnx").ok());
}

// Unsigned and 16-bit integer inputs and initializers import with their own
// element types, and the ops on them compute as ONNX says: unsigned division,
// remainder, comparison, max and argmax; unsigned to float casts; i16 wraps;
// reductions over an empty set give the type's identities.
TEST(OnnxImporter, UnsignedAndInt16Ops) {
  Expected<ImportedModel> model =
      importModelFile(inputsDir() + "unsigned_ops.onnx");
  ASSERT_TRUE(model.ok()) << model.message();
  const Graph &graph = model->graph;
  ASSERT_EQ(model->modelInputs, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(graph.typeOf(graph.inputs[0]),
            (TensorType{ElementType::UI32, {4}}));
  std::vector<HostTensorData> inputs;
  auto u32 = [](std::vector<std::uint64_t> values) {
    HostTensorData data(TensorType{ElementType::UI32, {4}});
    for (std::size_t i = 0; i < values.size(); ++i)
      storeUnsigned(ElementType::UI32, data.bytes.data(), std::int64_t(i),
                    values[i]);
    return data;
  };
  inputs.push_back(u32({4000000000u, 3000000001u, 9, 2147483648u}));
  inputs.push_back(u32({3, 2, 4, 2147483647u}));
  for (std::size_t i = 2; i < graph.inputs.size(); ++i) {
    ASSERT_TRUE(model->weights[i]);
    inputs.push_back(*model->weights[i]);
  }
  std::vector<HostTensor> views;
  for (HostTensorData &input : inputs)
    views.push_back(input.view());
  Expected<std::vector<HostTensorData>> out = evaluateGraph(graph, views);
  ASSERT_TRUE(out.ok()) << out.message();
  ASSERT_EQ(out->size(), 10u);
  const std::vector<HostTensorData> &y = *out;
  EXPECT_EQ(y[0].type.elementType, ElementType::UI32);
  EXPECT_EQ(unsignedValues(y[0]),
            (std::vector<std::uint64_t>{1333333333, 1500000000, 2, 1}));
  EXPECT_EQ(unsignedValues(y[1]), (std::vector<std::uint64_t>{1, 1, 1, 1}));
  EXPECT_EQ(y[2].toInts(), (std::vector<std::int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(
      unsignedValues(y[3]),
      (std::vector<std::uint64_t>{4000000000u, 3000000001u, 9, 2147483648u}));
  EXPECT_EQ(y[4].toInts(), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(y[5].toDoubles(), (std::vector<double>{200, 100, 7}));
  EXPECT_EQ(y[6].type.elementType, ElementType::UI64);
  EXPECT_EQ(unsignedValues(y[6]),
            (std::vector<std::uint64_t>{(std::uint64_t(1) << 63) - 1,
                                        ((std::uint64_t(1) << 63) + 6) / 5}));
  EXPECT_EQ(y[7].type.elementType, ElementType::I16);
  EXPECT_EQ(y[7].toInts(), (std::vector<std::int64_t>{300, -7}));
  // ReduceMin and ReduceMax over an empty set of ui64: its largest value
  // (not INT64_MAX + 1) and 0.
  EXPECT_EQ(unsignedValues(y[8]),
            (std::vector<std::uint64_t>{~std::uint64_t(0), ~std::uint64_t(0)}));
  EXPECT_EQ(unsignedValues(y[9]), (std::vector<std::uint64_t>{0, 0}));
}

TEST(OnnxImporter, UnsupportedOpNamesNodeOpAndOpset) {
  Expected<ImportedModel> model =
      importModelFile(inputsDir() + "unsupported_op.onnx");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.message().find("node 'grid0' (GridSample, opset 17)"),
            std::string::npos)
      << model.message();
}

TEST(OnnxImporter, SupportedOps) {
  EXPECT_TRUE(isSupportedOp("MatMul"));
  EXPECT_TRUE(isSupportedOp("LayerNormalization"));
  EXPECT_TRUE(isSupportedOp("Conv"));
  EXPECT_TRUE(isSupportedOp("ConvTranspose"));
  EXPECT_FALSE(isSupportedOp("GridSample"));
  const std::vector<std::string> &ops = supportedOps();
  ASSERT_FALSE(ops.empty());
  // Sorted, each name once.
  EXPECT_EQ(std::adjacent_find(ops.begin(), ops.end(),
                               std::greater_equal<std::string>()),
            ops.end());
  for (const std::string &op : ops)
    EXPECT_TRUE(isSupportedOp(op)) << op;
  // Names are matched whole and by case.
  for (const char *op : {"", "abs", "ABS", "Abs ", "Reduce", "ReduceFoo",
                         "Identity2", "Constan"})
    EXPECT_FALSE(isSupportedOp(op)) << op;
}

/// A ModelProto (opset 17) of one node `op` named "n" of default domain, with
/// inputs x0 and x1 (f32 [2, 3]) and output y.
std::string oneNodeModel(const std::string &op) {
  auto valueInfo = [](const std::string &name, bool typed) {
    std::string info;
    bytesField(info, 1, name);
    if (!typed)
      return info;
    std::string shape, tensorType, typeProto;
    for (int d : {2, 3}) {
      std::string dim;
      field(dim, 1, 0);
      varint(dim, std::uint64_t(d));
      bytesField(shape, 1, dim);
    }
    field(tensorType, 1, 0);
    varint(tensorType, 1); // FLOAT
    bytesField(tensorType, 2, shape);
    bytesField(typeProto, 1, tensorType);
    bytesField(info, 2, typeProto);
    return info;
  };
  std::string node;
  bytesField(node, 1, "x0");
  bytesField(node, 1, "x1");
  bytesField(node, 2, "y");
  bytesField(node, 3, "n");
  bytesField(node, 4, op);
  std::string graph;
  bytesField(graph, 1, node);
  bytesField(graph, 2, "g");
  bytesField(graph, 11, valueInfo("x0", true));
  bytesField(graph, 11, valueInfo("x1", true));
  bytesField(graph, 12, valueInfo("y", false));
  std::string opset, model;
  bytesField(opset, 1, "");
  field(opset, 2, 0);
  varint(opset, 17);
  field(model, 1, 0);
  varint(model, 8);
  bytesField(model, 7, graph);
  bytesField(model, 8, opset);
  return model;
}

// The supported list and the importer's dispatch agree: a one-node model of
// an op the list names reaches its handler (it imports, or fails for a reason
// of its own), and one of an op it does not name is refused as unsupported.
// The ops tried: the list's, and every op type of the ONNX backend node tests.
TEST(OnnxImporter, SupportedOpsAreTheOpsImported) {
  std::set<std::string> ops(supportedOps().begin(), supportedOps().end());
  ops.insert({"GridSample", "abs", "ReduceFoo", "Reduce"});
  std::filesystem::path root = "/usr/share/libonnx-testdata/data/node";
  if (std::filesystem::is_directory(root))
    for (const auto &entry : std::filesystem::directory_iterator(root)) {
      Expected<std::vector<std::string>> types =
          modelOpTypes((entry.path() / "model.onnx").string());
      if (types.ok())
        ops.insert(types->begin(), types->end());
    }
  const std::string unsupported =
      "the op is not supported by Fuse's ONNX importer";
  int supported = 0;
  for (const std::string &op : ops) {
    Expected<ImportedModel> model = importModel(oneNodeModel(op), {}, op);
    std::string message = model.ok() ? "" : model.message();
    EXPECT_EQ(message.find("internal error"), std::string::npos) << message;
    if (isSupportedOp(op)) {
      ++supported;
      EXPECT_EQ(message.find(unsupported), std::string::npos) << message;
    } else {
      EXPECT_NE(message.find("node 'n' (" + op + ", opset 17): " + unsupported),
                std::string::npos)
          << op << ": " << message;
    }
  }
  EXPECT_EQ(supported, int(supportedOps().size()));
}

} // namespace

namespace fuse::onnximport {
namespace {

/// Binds the weights of `model` and `x` (its one model input) and runs it on
/// the reference interpreter.
Expected<std::vector<HostTensorData>>
runModel(ImportedModel &model, const Graph &graph, HostTensorData &x) {
  std::vector<HostTensor> views;
  // The weights are shared and read-only: the views are of copies.
  std::vector<HostTensorData> weights;
  weights.reserve(graph.inputs.size());
  for (std::size_t i = 0; i < graph.inputs.size(); ++i)
    views.push_back(i == model.modelInputs[0]
                        ? x.view()
                        : weights.emplace_back(*model.weights[i]).view());
  return evaluateGraph(graph, views);
}

// The shape arithmetic of an export over dynamic dims, imported once with
// symbolic dims and bound at several values: the same results as the
// static import of each value (and as the model's formula, y = x +
// position + sequence + table[0, position]).
TEST(OnnxImporter, SymbolicDimsThroughShapeArithmetic) {
  const std::string file = inputsDir() + "symbolic_shapes.onnx";
  ImportOptions symbolic;
  symbolic.symbolicDims = true;
  Expected<ImportedModel> model = importModelFile(file, symbolic);
  ASSERT_TRUE(model.ok()) << model.message();
  const Graph &graph = model->graph;
  ASSERT_TRUE(graph.isSymbolic());
  EXPECT_EQ(graph.dims.symbols,
            (std::vector<std::string>{"batch", "sequence"}));
  EXPECT_EQ(graph.typeString(graph.typeOf(graph.inputs[0])),
            "tensor<?{batch}x?{sequence}x8xf32>");
  EXPECT_EQ(graph.typeString(graph.typeOf(graph.outputs[0].tensor)),
            "tensor<?{batch}x?{sequence}x8xf32>");
  EXPECT_TRUE(validate(graph).ok()) << validate(graph).message();
  // One graph for every value: the same hash on a second import, another
  // than a static import's.
  Expected<ImportedModel> again = importModelFile(file, symbolic);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(hashGraph(again->graph), hashGraph(graph));

  for (auto [batch, sequence] :
       {std::pair<std::int64_t, std::int64_t>{1, 1}, {2, 5}, {1, 64}}) {
    SCOPED_TRACE("batch " + std::to_string(batch) + ", sequence " +
                 std::to_string(sequence));
    Expected<Graph> bound =
        bindDims(graph, {{"batch", batch}, {"sequence", sequence}});
    ASSERT_TRUE(bound.ok()) << bound.message();
    ImportOptions fixed;
    fixed.dims = {{"batch", batch}, {"sequence", sequence}};
    Expected<ImportedModel> reference = importModelFile(file, fixed);
    ASSERT_TRUE(reference.ok()) << reference.message();
    EXPECT_NE(hashGraph(reference->graph), hashGraph(graph));

    HostTensorData x = randomInput({batch, sequence, 8}, 7);
    Expected<std::vector<HostTensorData>> got = runModel(*model, *bound, x);
    Expected<std::vector<HostTensorData>> want =
        runModel(*reference, reference->graph, x);
    ASSERT_TRUE(got.ok()) << got.message();
    ASSERT_TRUE(want.ok()) << want.message();
    const std::vector<double> xs = x.toDoubles(), ys = got->front().toDoubles();
    EXPECT_EQ(ys, want->front().toDoubles());
    ASSERT_EQ(ys.size(), xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const double position = double((i / 8) % std::size_t(sequence));
      const float expected =
          float(float(float(xs[i] + position) + float(sequence)) +
                float(position * 0.125));
      EXPECT_EQ(float(ys[i]), expected) << i;
    }
  }
  // Past the table's 64 rows, the slice does not fit: said when bound.
  Expected<Graph> tooLong = bindDims(graph, {{"batch", 1}, {"sequence", 65}});
  ASSERT_FALSE(tooLong.ok());
  EXPECT_NE(tooLong.message().find("sequence=65"), std::string::npos)
      << tooLong.message();
}

// A broadcast of a declared dim against a different one unifies them
// (ImportOptions::symbolicDims): unify_chain.onnx (unify_dims.py) adds x [a]
// and y [b], which makes b a, then adds Concat(p [c], q [d]), which makes a
// c + d, and b with it. Every input of a or b is c + d long, and the bound
// graph computes x + y + concat(p, q).
TEST(OnnxImporter, BroadcastsUnifyDeclaredDims) {
  ImportOptions symbolic;
  symbolic.symbolicDims = true;
  Expected<ImportedModel> model =
      importModelFile(inputsDir() + "unify_chain.onnx", symbolic);
  ASSERT_TRUE(model.ok()) << model.message();
  const Graph &graph = model->graph;
  EXPECT_EQ(graph.dims.symbols, (std::vector<std::string>{"c", "d"}));
  ASSERT_EQ(graph.inputs.size(), 4u);
  for (std::size_t i = 0; i < 2; ++i)
    EXPECT_EQ(graph.typeString(graph.typeOf(graph.inputs[i])),
              "tensor<?{c+d}xf32>")
        << i;
  EXPECT_EQ(graph.typeString(graph.typeOf(graph.outputs[0].tensor)),
            "tensor<?{c+d}xf32>");
  ASSERT_EQ(model->unifiedDims.size(), 2u);
  EXPECT_EQ(model->unifiedDims[0].symbol, "b");
  EXPECT_EQ(model->unifiedDims[0].expr.toString(), "c+d");
  EXPECT_EQ(model->unifiedDims[1].symbol, "a");
  EXPECT_EQ(model->unifiedDims[1].expr.toString(), "c+d");
  EXPECT_NE(model->unifiedDims[1].where.find("'out' (Add"), std::string::npos)
      << model->unifiedDims[1].where;
  EXPECT_TRUE(validate(graph).ok()) << validate(graph).message();

  Expected<Graph> bound = bindDims(graph, {{"c", 2}, {"d", 3}});
  ASSERT_TRUE(bound.ok()) << bound.message();
  std::vector<HostTensorData> inputs = {
      randomInput({5}, 1), randomInput({5}, 2), randomInput({2}, 3),
      randomInput({3}, 4)};
  std::vector<HostTensor> views;
  for (HostTensorData &input : inputs)
    views.push_back(input.view());
  Expected<std::vector<HostTensorData>> got = evaluateGraph(*bound, views);
  ASSERT_TRUE(got.ok()) << got.message();
  std::vector<double> x = inputs[0].toDoubles(), y = inputs[1].toDoubles(),
                      joined = inputs[2].toDoubles(),
                      out = got->front().toDoubles();
  for (double v : inputs[3].toDoubles())
    joined.push_back(v);
  ASSERT_EQ(out.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i)
    EXPECT_EQ(float(out[i]), float(float(x[i] + y[i]) + float(joined[i]))) << i;
}

TEST(OnnxImporter, SymbolicDimsRefuseWhatTheyCannotExpress) {
  ImportOptions symbolic;
  symbolic.symbolicDims = true;
  Expected<ImportedModel> range =
      importModelFile(inputsDir() + "symbolic_range_step.onnx", symbolic);
  ASSERT_FALSE(range.ok());
  EXPECT_NE(range.message().find("range2"), std::string::npos)
      << range.message();
  EXPECT_NE(range.message().find("delta of 1 or -1"), std::string::npos)
      << range.message();
  // Without the option, dynamic dims are refused as before; with it, an op
  // that needs static dims names the node.
  Expected<ImportedModel> unbound =
      importModelFile(inputsDir() + "symbolic_shapes.onnx");
  ASSERT_FALSE(unbound.ok());
  EXPECT_NE(unbound.message().find("is dynamic"), std::string::npos);
  Expected<ImportedModel> dynamic =
      importModelFile(inputsDir() + "dynamic.onnx", symbolic);
  ASSERT_TRUE(dynamic.ok()) << dynamic.message();
  EXPECT_TRUE(dynamic->graph.isSymbolic());
}

} // namespace
} // namespace fuse::onnximport
