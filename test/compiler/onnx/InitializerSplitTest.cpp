//===- InitializerSplitTest.cpp - Weights apart from structure ----------===//
//
// splitInitializerData finds each initializer's raw_data in a model's wire
// format; the importer reads the weights from there and protobuf parses the
// rest. Where the bytes are not in the plain form the split reads, the model
// is parsed whole, with protobuf's meaning (a repeated field's last value, a
// repeated message merged).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/InitializerSplit.h"
#include "ProtoWriter.h"
#include "compiler/onnx/OnnxImporter.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace fuse;
using namespace fuse::onnximport;
using namespace fuse::test;

namespace {

std::string floats(std::vector<float> values) {
  std::string bytes(values.size() * 4, '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

/// An f32 TensorProto named `name` of shape [4] with each of `raws` as a
/// raw_data field (protobuf keeps the last).
std::string weight(const std::string &name, std::vector<std::string> raws) {
  std::string tensor;
  field(tensor, 1, 0);
  varint(tensor, 4);
  field(tensor, 2, 0);
  varint(tensor, 1); // FLOAT
  for (const std::string &raw : raws)
    bytesField(tensor, 9, raw);
  bytesField(tensor, 8, name);
  return tensor;
}

std::string valueInfo(const std::string &name) {
  std::string dim, shape, tensorType, typeProto, info;
  field(dim, 1, 0);
  varint(dim, 4);
  bytesField(shape, 1, dim);
  field(tensorType, 1, 0);
  varint(tensorType, 1);
  bytesField(tensorType, 2, shape);
  bytesField(typeProto, 1, tensorType);
  bytesField(info, 1, name);
  bytesField(info, 2, typeProto);
  return info;
}

/// y = x + w + v, with w and v initializers; `graphs` splits the graph's
/// fields into that many graph fields of the model (protobuf merges them).
std::string addModel(const std::string &w, const std::string &v,
                     int graphs = 1) {
  std::string first, second;
  bytesField(first, 1, "x");
  bytesField(first, 1, "w");
  bytesField(first, 2, "s");
  bytesField(first, 4, "Add");
  bytesField(second, 1, "s");
  bytesField(second, 1, "v");
  bytesField(second, 2, "y");
  bytesField(second, 4, "Add");
  std::string nodes, rest;
  bytesField(nodes, 1, first);
  bytesField(nodes, 1, second);
  bytesField(nodes, 2, "g");
  bytesField(rest, 5, w);
  bytesField(rest, 5, v);
  bytesField(rest, 11, valueInfo("x"));
  bytesField(rest, 12, valueInfo("y"));
  std::string opset, model;
  bytesField(opset, 1, "");
  field(opset, 2, 0);
  varint(opset, 17);
  field(model, 1, 0);
  varint(model, 8);
  if (graphs == 1) {
    bytesField(model, 7, nodes + rest);
  } else {
    bytesField(model, 7, nodes);
    bytesField(model, 7, rest);
  }
  bytesField(model, 8, opset);
  return model;
}

/// The model's weights w and v, as imported.
std::vector<std::vector<double>> importedWeights(const std::string &bytes) {
  Expected<ImportedModel> model = importModel(bytes, {}, "add");
  EXPECT_TRUE(model.ok()) << model.message();
  std::vector<std::vector<double>> weights;
  if (model.ok())
    for (const auto &value : model->weights)
      if (value)
        weights.push_back(value->toDoubles());
  return weights;
}

const std::vector<std::vector<double>> kWeights = {{1, 2, 3, 4}, {5, 6, 7, 8}};

TEST(InitializerSplit, FindsEachInitializersRawData) {
  std::string w = floats({1, 2, 3, 4}), v = floats({5, 6, 7, 8});
  std::string bytes = addModel(weight("w", {w}), weight("v", {v}));
  std::optional<SplitModel> split = splitInitializerData(bytes);
  ASSERT_TRUE(split);
  ASSERT_EQ(split->rawData.size(), 2u);
  EXPECT_EQ(split->rawData[0], std::optional<std::string_view>(w));
  EXPECT_EQ(split->rawData[1], std::optional<std::string_view>(v));
  // Views into the model's bytes, left out of the skeleton.
  EXPECT_EQ(split->rawData[0]->data(), bytes.data() + bytes.find(w));
  EXPECT_EQ(split->skeleton.size(), bytes.size() - 32);
  EXPECT_EQ(split->skeleton.find(w), std::string::npos);
  EXPECT_EQ(importedWeights(bytes), kWeights);
}

TEST(InitializerSplit, AnInitializerWithoutRawData) {
  std::string v = floats({5, 6, 7, 8});
  std::string typed;
  field(typed, 1, 0);
  varint(typed, 4);
  field(typed, 2, 0);
  varint(typed, 1);
  std::string packed = floats({1, 2, 3, 4});
  bytesField(typed, 4, packed); // float_data, packed
  bytesField(typed, 8, "w");
  std::string bytes = addModel(typed, weight("v", {v}));
  std::optional<SplitModel> split = splitInitializerData(bytes);
  ASSERT_TRUE(split);
  ASSERT_EQ(split->rawData.size(), 2u);
  EXPECT_FALSE(split->rawData[0]);
  EXPECT_EQ(split->rawData[1], std::optional<std::string_view>(v));
  EXPECT_EQ(importedWeights(bytes), kWeights);
}

// Bytes the split does not read are parsed whole, as protobuf means them.
TEST(InitializerSplit, OtherFormsAreParsedWhole) {
  std::string w = floats({1, 2, 3, 4}), v = floats({5, 6, 7, 8});
  // raw_data twice: the last one holds.
  std::string twice =
      addModel(weight("w", {floats({9, 9, 9, 9}), w}), weight("v", {v}));
  EXPECT_FALSE(splitInitializerData(twice));
  EXPECT_EQ(importedWeights(twice), kWeights);
  // The graph in two fields: merged.
  std::string merged = addModel(weight("w", {w}), weight("v", {v}), 2);
  EXPECT_FALSE(splitInitializerData(merged));
  EXPECT_EQ(importedWeights(merged), kWeights);
  // Not wire format at all.
  EXPECT_FALSE(splitInitializerData("\x07junk"));
  EXPECT_FALSE(importModel("\x07junk", {}, "junk").ok());
}

// Every prefix of a model is split or not, and imported or refused with a
// message, never read past its end (AddressSanitizer in CI).
TEST(InitializerSplit, TruncatedModels) {
  std::string bytes = addModel(weight("w", {floats({1, 2, 3, 4})}),
                               weight("v", {floats({5, 6, 7, 8})}));
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    std::string cut = bytes.substr(0, n);
    std::optional<SplitModel> split = splitInitializerData(cut);
    if (split)
      for (const auto &raw : split->rawData)
        if (raw)
          EXPECT_LE(raw->data() + raw->size(), cut.data() + cut.size());
    Expected<ImportedModel> model = importModel(cut, {}, "cut");
    if (!model.ok())
      EXPECT_FALSE(model.message().empty());
  }
}

// A model file is read from its mapping: the same weights, and a file cut
// short is refused with a message.
TEST(InitializerSplit, ModelFiles) {
  std::string bytes = addModel(weight("w", {floats({1, 2, 3, 4})}),
                               weight("v", {floats({5, 6, 7, 8})}));
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("fuse-split-" +
       std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
       std::to_string(std::hash<std::string>{}(bytes)));
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string &name, const std::string &contents) {
    std::ofstream(dir / name, std::ios::binary) << contents;
    return (dir / name).string();
  };
  Expected<ImportedModel> model = importModelFile(write("add.onnx", bytes));
  ASSERT_TRUE(model.ok()) << model.message();
  std::vector<std::vector<double>> weights;
  for (const auto &value : model->weights)
    if (value)
      weights.push_back(value->toDoubles());
  EXPECT_EQ(weights, kWeights);
  Expected<ImportedModel> cut =
      importModelFile(write("cut.onnx", bytes.substr(0, bytes.size() - 40)));
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.message().find("is not a valid ONNX model"), std::string::npos)
      << cut.message();
  Expected<ImportedModel> empty = importModelFile(write("empty.onnx", ""));
  EXPECT_FALSE(empty.ok());
  std::filesystem::remove_all(dir);
}

} // namespace
