//===- OnnxImporterTest.cpp - FuseOnnx API tests --------------------------===//
//
// Malformed and truncated input is an error, never a crash; TensorProto
// raw_data and typed fields read alike. Protobuf messages are written by
// hand (wire format) so the test needs no protobuf headers.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/OnnxImporter.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace fuse;
using namespace fuse::onnximport;

namespace {

void varint(std::string &out, std::uint64_t value) {
  while (value >= 0x80) {
    out += char(value | 0x80);
    value >>= 7;
  }
  out += char(value);
}

void field(std::string &out, int number, int wireType) {
  varint(out, std::uint64_t(number) << 3 | wireType);
}

void bytesField(std::string &out, int number, const std::string &bytes) {
  field(out, number, 2);
  varint(out, bytes.size());
  out += bytes;
}

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

TEST(OnnxTensorProto, Errors) {
  // Too few values for the shape.
  std::string shortRaw = tensorHeader({4}, 1, "x");
  bytesField(shortRaw, 9, std::string(8, '\0'));
  Expected<NamedTensor> a = parseTensorProto(shortRaw);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.message().find("has 8 bytes of raw_data, expected 16"),
            std::string::npos)
      << a.message();

  // An element type Fuse does not support.
  std::string u16 = tensorHeader({1}, /*UINT16*/ 4, "u");
  bytesField(u16, 9, std::string(2, '\0'));
  Expected<NamedTensor> c = parseTensorProto(u16);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.message().find("UINT16, which Fuse does not support"),
            std::string::npos)
      << c.message();

  // Not a protobuf.
  Expected<NamedTensor> d = parseTensorProto("\xff\xff\xff");
  ASSERT_FALSE(d.ok());

  Expected<NamedTensor> e = readTensorProtoFile("/nonexistent/x.pb");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.message().find("cannot read '/nonexistent/x.pb'"),
            std::string::npos);
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
    GTEST_SKIP() << "libonnx-testdata is not installed";
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
    GTEST_SKIP() << "libonnx-testdata is not installed";
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
  EXPECT_FALSE(model->weights[0].has_value());
  ASSERT_TRUE(model->weights[1].has_value());
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

TEST(OnnxImporter, UnsupportedOpNamesNodeOpAndOpset) {
  Expected<ImportedModel> model =
      importModelFile(inputsDir() + "unsupported_op.onnx");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.message().find("node 'conv0' (Conv, opset 17)"),
            std::string::npos)
      << model.message();
}

TEST(OnnxImporter, SupportedOps) {
  EXPECT_TRUE(isSupportedOp("MatMul"));
  EXPECT_TRUE(isSupportedOp("LayerNormalization"));
  EXPECT_FALSE(isSupportedOp("Conv"));
  EXPECT_TRUE(std::is_sorted(supportedOps().begin(), supportedOps().end()));
}

} // namespace
