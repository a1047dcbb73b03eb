//===- OnnxImporter.cpp - ONNX models -> Graph ----------------------------===//
//
// The one translation unit that sees protobuf. Errors inside are thrown as
// ImportError and turned into a Status at the API boundary; nothing here
// trusts the file (every index, count and size is checked before use).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/OnnxImporter.h"

#include "compiler/onnx/EinsumEquation.h"
#include "compiler/onnx/InitializerSplit.h"

#include "runtime/ir/CheckedInt.h"
#include "runtime/ir/RegularFile.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <numeric>
#include <set>
#include <span>
#include <stdexcept>
#include <tuple>
#include <type_traits>

namespace fuse::onnximport {
namespace {

struct ImportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// An operand that must be a constant is not: what inputsNeededAsConstants
/// reports, beside the message.
struct NeedsConstantError : ImportError {
  NeedsConstantError(const std::string &message,
                     std::vector<ConstantInputNeed> needs)
      : ImportError(message), needs(std::move(needs)) {}
  /// One per unbound model input the operand is computed from.
  std::vector<ConstantInputNeed> needs;
};

/// A declared dim symbol found equal to an expression of other dims (a
/// broadcast of two dims neither of which is 1): the import starts again
/// with the symbol replaced (Importer::run). Not an ImportError: nothing
/// between the broadcast and run() adds context to it or catches it.
struct Unification {
  UnifiedDim unified;
};

[[noreturn]] void fail(const std::string &message) {
  throw ImportError(message);
}

using Shape = std::vector<std::int64_t>;

std::string shapeText(const Shape &shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

/// The value of shape arithmetic, or an import error saying that `what`
/// passes 2^63: a dim or count computed from a model is never used wrapped
/// or saturated.
std::int64_t dimValue(CheckedInt value, const std::string &what) {
  std::optional<std::int64_t> result = value.get();
  if (!result)
    fail(what + " passes 2^63");
  return *result;
}

/// `shape` as a matrix at `axis` (Flatten, Softmax before opset 13): the dims
/// before it multiplied, then those from it. A tensor with a 0 dim holds no
/// elements whatever its other dims, so either product can pass 2^63
/// ([2^32, 2^32, 0] at axis 2).
Shape coercedTo2d(const Shape &shape, std::int64_t axis) {
  CheckedInt outer = 1, inner = 1;
  for (std::int64_t i = 0; i < std::int64_t(shape.size()); ++i)
    (i < axis ? outer : inner) *= shape[i];
  const std::string at =
      " axis " + std::to_string(axis) + " of " + shapeText(shape);
  return {dimValue(outer, "the product of the dims before" + at),
          dimValue(inner, "the product of the dims from" + at)};
}

std::string onnxTypeName(int type) {
  if (onnx::TensorProto_DataType_IsValid(type))
    return onnx::TensorProto_DataType_Name(
        static_cast<onnx::TensorProto_DataType>(type));
  // Newer than the protobuf definitions this was built with.
  static const char *const newer[] = {
      "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ",
      "UINT4",        "INT4",           "FLOAT4E2M1", "FLOAT8E8M0",
      "UINT2",        "INT2",           "FLOAT6E2M3", "FLOAT6E3M2"};
  if (type >= 17 && type < 17 + int(std::size(newer)))
    return newer[type - 17];
  return "type " + std::to_string(type);
}

/// onnx.proto's data types newer than the protobuf definitions Fuse builds
/// with (onnx 1.23 numbers them so).
enum NewerOnnxType : int {
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUInt4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUInt2 = 25,
  kInt2 = 26,
};

std::optional<ElementType> fromOnnxType(int type) {
  switch (type) {
  case kFloat8E4M3FN:
    return ElementType::F8E4M3FN;
  case kFloat8E4M3FNUZ:
    return ElementType::F8E4M3FNUZ;
  case kFloat8E5M2:
    return ElementType::F8E5M2;
  case kFloat8E5M2FNUZ:
    return ElementType::F8E5M2FNUZ;
  case kFloat8E8M0:
    return ElementType::F8E8M0FNU;
  case kFloat4E2M1:
    return ElementType::F4E2M1FN;
  case kUInt4:
    return ElementType::UI4;
  case kInt4:
    return ElementType::I4;
  case kUInt2:
    return ElementType::UI2;
  case kInt2:
    return ElementType::I2;
  case onnx::TensorProto::FLOAT:
    return ElementType::F32;
  case onnx::TensorProto::FLOAT16:
    return ElementType::F16;
  case onnx::TensorProto::BFLOAT16:
    return ElementType::BF16;
  case onnx::TensorProto::DOUBLE:
    return ElementType::F64;
  case onnx::TensorProto::BOOL:
    return ElementType::I1;
  case onnx::TensorProto::INT8:
    return ElementType::I8;
  case onnx::TensorProto::INT16:
    return ElementType::I16;
  case onnx::TensorProto::INT32:
    return ElementType::I32;
  case onnx::TensorProto::INT64:
    return ElementType::I64;
  case onnx::TensorProto::UINT8:
    return ElementType::UI8;
  case onnx::TensorProto::UINT16:
    return ElementType::UI16;
  case onnx::TensorProto::UINT32:
    return ElementType::UI32;
  case onnx::TensorProto::UINT64:
    return ElementType::UI64;
  default:
    return std::nullopt;
  }
}

ElementType requireType(int type, const std::string &what) {
  std::optional<ElementType> element = fromOnnxType(type);
  if (!element)
    fail(what + " has element type " + onnxTypeName(type) +
         ", which Fuse does not support (supported: FLOAT, FLOAT16, "
         "BFLOAT16, DOUBLE, BOOL, INT8, INT16, INT32, INT64, UINT8, UINT16, "
         "UINT32, UINT64, FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, "
         "FLOAT8E5M2FNUZ, FLOAT8E8M0, FLOAT4E2M1, INT4, UINT4, INT2, UINT2)");
  return *element;
}

/// Tensors of more elements are refused (a corrupt or hostile file must
/// not make the importer or its caller allocate without bound).
constexpr std::int64_t kMaxElements = std::int64_t(1) << 31;

/// A symbolic dim (a negative code, ImportOptions::symbolicDims, which the
/// builder has checked) is left out of the count: it is checked when bound.
std::int64_t checkedCount(const Shape &shape, const std::string &what,
                          bool symbolic = false) {
  Shape counted;
  for (std::int64_t d : shape) {
    if (d < 0 && !symbolic)
      fail(what + " has a negative dimension in " + shapeText(shape));
    if (d >= 0)
      counted.push_back(d);
  }
  std::optional<std::int64_t> count = checkedElementCount(counted).get();
  if (!count || *count > kMaxElements)
    fail(what + " is too large: " + shapeText(shape) + " (more than 2^31 " +
         "elements)");
  return *count;
}

/// The total padding auto_pad SAME_UPPER or SAME_LOWER gives a spatial dim
/// of `in`: enough for ceil(in / stride) outputs. Checked: a model's strides,
/// kernel and dilations may pass 2^63 together.
std::int64_t samePadding(std::int64_t in, std::int64_t stride,
                         std::int64_t window, std::int64_t dilation) {
  const CheckedInt out = (CheckedInt(in) + stride - 1) / stride;
  const CheckedInt span = CheckedInt(dilation) * (CheckedInt(window) - 1) + 1;
  std::optional<std::int64_t> total = ((out - 1) * stride + span - in).get();
  if (!total)
    fail("the padding auto_pad asks for passes 2^63 (stride " +
         std::to_string(stride) + ", window " + std::to_string(window) +
         ", dilation " + std::to_string(dilation) + ")");
  return std::max<std::int64_t>(0, *total);
}

/// Bits of the types ONNX packs below a byte (0 for the others).
int subByteBits(ElementType type) {
  switch (type) {
  case ElementType::I4:
  case ElementType::UI4:
  case ElementType::F4E2M1FN:
    return 4;
  case ElementType::I2:
  case ElementType::UI2:
    return 2;
  default:
    return 0;
  }
}

/// Unpacks ONNX's packed sub-byte elements into Fuse's byte per element: i4
/// and i2 sign-extended, the others zero-extended (padding bits past the
/// last element are ignored).
void unpackSubByte(ElementType type, const std::vector<std::uint8_t> &packed,
                   HostTensorData &data) {
  const int bits = subByteBits(type);
  const std::int64_t perByte = 8 / bits;
  const std::int64_t count = data.type.numElements();
  for (std::int64_t i = 0; i < count; ++i) {
    const std::uint8_t byte = packed[std::size_t(i / perByte)];
    const std::int64_t field =
        (byte >> (bits * (i % perByte))) & ((1 << bits) - 1);
    if (type == ElementType::F4E2M1FN)
      data.bytes[std::size_t(i)] = std::uint8_t(field);
    else
      storeInt(type, data.bytes.data(), i, field);
  }
}

/// `rawData`, where given, holds the bytes of the proto's raw_data, which
/// the proto has emptied (an initializer of a split model).
HostTensorData
tensorFromProto(const onnx::TensorProto &proto,
                const std::string &modelFolder = {},
                std::optional<std::string_view> rawData = std::nullopt);

/// The bytes of a tensor whose data is in an external file (onnx.proto's
/// external_data: location, offset, length). The file must be a regular
/// file inside the model's folder, named by a relative path without `..`,
/// and still inside it once links are resolved: a model never makes Fuse
/// read another file of the user's. The bytes read are exactly the
/// tensor's (its shape and type say how many); a length that differs, or a
/// file too short, is an error.
std::string readExternalData(const onnx::TensorProto &proto,
                             const std::string &what,
                             const std::string &modelFolder) {
  if (modelFolder.empty())
    fail(what + " keeps its data in an external file, which Fuse reads only "
                "next to a model file it imports by path");
  std::string location;
  std::optional<std::int64_t> offset, length;
  for (const onnx::StringStringEntryProto &entry : proto.external_data()) {
    auto number = [&]() {
      const std::string &text = entry.value();
      if (text.empty() || text.size() > 19 ||
          text.find_first_not_of("0123456789") != std::string::npos)
        fail(what + ": external data " + entry.key() + " '" + text +
             "' is not a number");
      // 19 digits pass INT64_MAX: a file position (off_t) cannot hold them.
      return dimValue(CheckedInt::fromUnsigned(std::stoull(text)),
                      what + ": external data " + entry.key() + " " + text);
    };
    if (entry.key() == "location")
      location = entry.value();
    else if (entry.key() == "offset")
      offset = number();
    else if (entry.key() == "length")
      length = number();
    else if (entry.key() != "checksum")
      fail(what + ": unknown external data key '" + entry.key() + "'");
  }
  namespace fs = std::filesystem;
  fs::path relative(location);
  if (location.empty() || relative.is_absolute() ||
      location.find('\0') != std::string::npos ||
      std::any_of(relative.begin(), relative.end(),
                  [](const fs::path &part) { return part == ".."; }))
    fail(what + ": its external data location '" + location +
         "' is not a path inside the model's folder");
  std::error_code error;
  fs::path folder = fs::canonical(fs::path(modelFolder), error);
  fs::path file = error ? fs::path() : fs::canonical(folder / relative, error);
  if (error)
    fail(what + ": cannot read its external data '" + location +
         "': " + error.message());
  auto [end, ignored] =
      std::mismatch(folder.begin(), folder.end(), file.begin(), file.end());
  if (end != folder.end())
    fail(what + ": its external data '" + location +
         "' leads outside the model's folder (to '" + file.string() + "')");
  // The bytes the tensor takes in raw_data.
  ElementType type = requireType(proto.data_type(), what);
  Shape shape(proto.dims().begin(), proto.dims().end());
  std::int64_t count = checkedCount(shape, what);
  int bits = subByteBits(type);
  const std::int64_t bytes =
      dimValue(bits ? (CheckedInt(count) + 8 / bits - 1) / (8 / bits)
                    : CheckedInt(count) * byteSize(type),
               what + "'s bytes");
  if (length && *length != bytes)
    fail(what + ": its external data is " + std::to_string(*length) +
         " bytes long, the tensor " + shapeText(shape) + " takes " +
         std::to_string(bytes));
  Expected<RegularFile> opened = RegularFile::open(file.string());
  if (!opened.ok())
    fail(what + ": " + opened.message());
  std::string data(std::size_t(bytes), '\0');
  // The last byte read, too, is a file position.
  if (!(CheckedInt(offset.value_or(0)) + bytes).ok())
    fail(what + ": external data offset " + std::to_string(*offset) +
         " plus its " + std::to_string(bytes) + " bytes passes 2^63");
  Status read = opened->readAt(
      std::uint64_t(offset.value_or(0)),
      std::span(reinterpret_cast<std::uint8_t *>(data.data()), data.size()));
  if (!read.ok())
    fail(what + ": its external data: " + read.message());
  return data;
}

/// The typed field that holds a tensor's values where raw_data does not
/// (onnx.proto), and how many it holds.
std::pair<std::int64_t, const char *>
typedValues(const onnx::TensorProto &proto) {
  switch (proto.data_type()) {
  case onnx::TensorProto::FLOAT:
    return {proto.float_data_size(), "float_data"};
  case onnx::TensorProto::DOUBLE:
    return {proto.double_data_size(), "double_data"};
  case onnx::TensorProto::INT64:
    return {proto.int64_data_size(), "int64_data"};
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    return {proto.uint64_data_size(), "uint64_data"};
  default:
    return {proto.int32_data_size(), "int32_data"};
  }
}

/// A tensor of INT4, UINT4 and FLOAT4E2M1, packed two to a byte, or INT2
/// and UINT2, four (onnx.proto: the first element in the least significant
/// bits), in raw_data and, a byte per entry, in int32_data.
HostTensorData packedTensorFromProto(const onnx::TensorProto &proto,
                                     ElementType type, const Shape &shape,
                                     std::int64_t count,
                                     const std::string &what,
                                     std::string_view raw) {
  const int packedBits = subByteBits(type);
  const std::int64_t perByte = 8 / packedBits;
  const std::int64_t packedBytes = (count + perByte - 1) / perByte;
  std::vector<std::uint8_t> packed;
  if (proto.has_raw_data()) {
    if (std::int64_t(raw.size()) != packedBytes)
      fail(what + " of shape " + shapeText(shape) + " and type " +
           onnxTypeName(proto.data_type()) + " has " +
           std::to_string(raw.size()) + " bytes of raw_data, expected " +
           std::to_string(packedBytes) + " (" + std::to_string(perByte) +
           " elements packed in a byte)");
    packed.assign(raw.begin(), raw.end());
  } else {
    if (proto.int32_data_size() != packedBytes)
      fail(what + " of shape " + shapeText(shape) + " and type " +
           onnxTypeName(proto.data_type()) + " holds " +
           std::to_string(proto.int32_data_size()) +
           " values in int32_data, expected " + std::to_string(packedBytes) +
           " (" + std::to_string(perByte) + " elements packed in each)");
    for (std::int32_t value : proto.int32_data()) {
      if (value < 0 || value > 0xFF)
        fail(what + " holds " + std::to_string(value) +
             " in int32_data, which is not a byte of packed " +
             onnxTypeName(proto.data_type()) + " elements");
      packed.push_back(std::uint8_t(value));
    }
  }
  HostTensorData data(TensorType{type, shape});
  unpackSubByte(type, packed, data);
  return data;
}

/// The values of the proto's typed field (float_data, int64_data, ...) into
/// `data`, each checked to fit the element type.
void storeTypedValues(const onnx::TensorProto &proto, std::int64_t count,
                      const std::string &what, HostTensorData &data) {
  const ElementType type = data.type.elementType;
  switch (proto.data_type()) {
  case onnx::TensorProto::FLOAT:
    for (std::int64_t i = 0; i < count; ++i)
      storeDouble(type, data.bytes.data(), i, proto.float_data(int(i)));
    break;
  case onnx::TensorProto::DOUBLE:
    for (std::int64_t i = 0; i < count; ++i)
      storeDouble(type, data.bytes.data(), i, proto.double_data(int(i)));
    break;
  case onnx::TensorProto::INT64:
    for (std::int64_t i = 0; i < count; ++i)
      storeInt(type, data.bytes.data(), i, proto.int64_data(int(i)));
    break;
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    // onnx.proto: UINT32 and UINT64 values live in uint64_data, one each.
    for (std::int64_t i = 0; i < count; ++i) {
      std::uint64_t value = proto.uint64_data(int(i));
      if (type == ElementType::UI32 && value > 0xffffffffu)
        fail(what + " holds " + std::to_string(value) +
             " in uint64_data, which does not fit UINT32");
      storeUnsigned(type, data.bytes.data(), i, value);
    }
    break;
  case kFloat8E4M3FN:
  case kFloat8E4M3FNUZ:
  case kFloat8E5M2:
  case kFloat8E5M2FNUZ:
  case kFloat8E8M0:
    // The bit patterns, one per int32.
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int32_t bits = proto.int32_data(int(i));
      if (bits < 0 || bits > 0xFF)
        fail(what + " holds " + std::to_string(bits) +
             " in int32_data, which is not the bits of a " +
             onnxTypeName(proto.data_type()));
      data.bytes[std::size_t(i)] = std::uint8_t(bits);
    }
    break;
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
    // The bit patterns, one per int32.
    for (std::int64_t i = 0; i < count; ++i) {
      std::uint16_t bits = std::uint16_t(proto.int32_data(int(i)));
      std::memcpy(data.bytes.data() + 2 * i, &bits, 2);
    }
    break;
  default:
    // INT32, and (onnx.proto) the narrower INT8, INT16, UINT8, UINT16 and
    // BOOL: one value per int32, not packed; the value must fit the type.
    for (std::int64_t i = 0; i < count; ++i) {
      std::int64_t value = proto.int32_data(int(i));
      unsigned bits = integerBitWidth(type);
      bool fits = bits >= 32 || type == ElementType::I1 ||
                  (isUnsignedInteger(type)
                       ? value >= 0 && value < (std::int64_t(1) << bits)
                       : value >= -(std::int64_t(1) << (bits - 1)) &&
                             value < (std::int64_t(1) << (bits - 1)));
      if (!fits)
        fail(what + " holds " + std::to_string(value) +
             " in int32_data, which does not fit " +
             onnxTypeName(proto.data_type()));
      storeInt(type, data.bytes.data(), i, value);
    }
    break;
  }
}

HostTensorData tensorFromProto(const onnx::TensorProto &proto,
                               const std::string &modelFolder,
                               std::optional<std::string_view> rawData) {
  std::string what =
      "tensor" + (proto.name().empty() ? "" : " '" + proto.name() + "'");
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    onnx::TensorProto inline_ = proto;
    inline_.set_raw_data(readExternalData(proto, what, modelFolder));
    inline_.clear_external_data();
    inline_.set_data_location(onnx::TensorProto::DEFAULT);
    return tensorFromProto(inline_);
  }
  if (proto.has_segment())
    fail(what + " is segmented, which Fuse does not support");
  ElementType type = requireType(proto.data_type(), what);
  Shape shape(proto.dims().begin(), proto.dims().end());
  std::int64_t count = checkedCount(shape, what);
  std::int64_t elementBytes = byteSize(type);
  auto expectCount = [&](std::int64_t got, const char *field) {
    if (got != count)
      fail(what + " of shape " + shapeText(shape) + " holds " +
           std::to_string(got) + " values in " + field + ", expected " +
           std::to_string(count));
  };
  const std::string_view raw = rawData ? *rawData : proto.raw_data();
  if (subByteBits(type))
    return packedTensorFromProto(proto, type, shape, count, what, raw);
  // What the proto holds is checked against its shape before the tensor is
  // allocated: dims of 2^31 - 1 with 16 bytes of raw_data zero-filled 16 GiB
  // first (issue 19).
  if (proto.has_raw_data()) {
    if (std::int64_t(raw.size()) != count * elementBytes)
      fail(what + " of shape " + shapeText(shape) + " and type " +
           onnxTypeName(proto.data_type()) + " has " +
           std::to_string(raw.size()) + " bytes of raw_data, expected " +
           std::to_string(count * elementBytes));
  } else {
    std::apply(expectCount, typedValues(proto));
  }
  if (proto.has_raw_data()) {
    HostTensorData data(
        TensorType{type, shape},
        std::span(reinterpret_cast<const std::uint8_t *>(raw.data()),
                  raw.size()));
    if (type == ElementType::I1)
      for (auto &byte : data.bytes)
        byte = byte != 0;
    return data;
  }
  HostTensorData data(TensorType{type, shape});
  storeTypedValues(proto, count, what, data);
  return data;
}

/// A number as a message shows it: 1.7, 3e+38, nan, inf.
std::string numberText(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

/// The values of a constant read as integers (a shape, axes, indices); a
/// float constant is truncated, and one that no int64 holds (NaN, infinite,
/// past 2^63) is refused: the conversion would be undefined behaviour.
std::vector<std::int64_t> toInts(const HostTensorData &data) {
  if (isFloat(data.type.elementType)) {
    std::vector<std::int64_t> out;
    for (double value : data.toDoubles()) {
      std::optional<std::int64_t> whole = CheckedInt::fromDouble(value).get();
      if (!whole)
        fail("a " + std::string(elementTypeName(data.type.elementType)) +
             " constant read as integers holds " + numberText(value) +
             ", which no int64 holds");
      out.push_back(*whole);
    }
    return out;
  }
  return data.toInts();
}

std::shared_ptr<const HostTensorData> shared(HostTensorData data) {
  return std::make_shared<const HostTensorData>(std::move(data));
}

/// The initializers' values of a model imported more than once (a
/// ParsedModel), read from the model the first time only.
struct InitializerCache {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const HostTensorData>, std::less<>>
      values;
};

/// Shape arithmetic over symbolic dims (ImportOptions::symbolicDims): a
/// small integer tensor of static shape whose elements are dim expressions,
/// one at least symbolic (the value of Shape on a symbolic tensor, and what
/// Gather, Concat, Add ... make of it). It becomes a tensor only where an
/// op computes with it (dim_value ops), and is read as dims by Reshape,
/// Expand, ConstantOfShape, Range and Slice.
struct SymbolicInts {
  ElementType type = ElementType::I64;
  Shape shape;
  /// Row-major, one per element.
  std::vector<DimExpr> elements;
};

/// One ONNX value during import.
struct Value {
  TensorType type;
  /// Symbolic shape arithmetic (then `constant` is null and `id` is set only
  /// once materialized).
  std::shared_ptr<const SymbolicInts> ints;
  /// The tensor in the current builder, once materialized.
  TensorId id = kInvalidTensor;
  /// The value, when known at import time; shared, never changed (an
  /// initializer's data is read from the model once per ParsedModel).
  std::shared_ptr<const HostTensorData> constant;
  /// When it is not: the model inputs it is computed from (those bound as
  /// constants excepted), which would make it one if their values were
  /// bound.
  std::set<std::string> modelInputs;
};

/// Nodes whose inputs are all constants are folded when their inputs hold at
/// most this many elements together.
constexpr std::int64_t kMaxFoldElements = 1 << 16;
/// Elements a fold may hold in all its tensors (inputs, intermediates and
/// results).
constexpr std::int64_t kMaxFoldEvalElements = 1 << 22;

bool allEqual(const HostTensorData &data) {
  std::int64_t n = data.type.numElements(),
               width = byteSize(data.type.elementType);
  for (std::int64_t i = 1; i < n; ++i)
    if (std::memcmp(data.bytes.data(), data.bytes.data() + i * width, width))
      return false;
  return n > 0;
}

// Resize's attributes, output and reads per axis (see "Resize" below).
struct ResizeMode;
struct ResizeTarget;
struct ResizeAxis;
struct CubicAxis;

class Importer {
public:
  Importer(const onnx::ModelProto &model, const ImportOptions &options,
           std::string modelFolder, InitializerCache *initializers = nullptr)
      : model(model), options(options), modelFolder(std::move(modelFolder)),
        initializerCache(initializers) {}

  /// Imports the model; where a broadcast unifies a declared dim with an
  /// expression of others (unifyDims), imports it again with the dim
  /// replaced, the initializers read once.
  ImportedModel run();
  /// `model` itself, which the import may consume: each initializer's raw
  /// bytes are freed once read into its value, so that the next value
  /// reuses their memory instead of touching new pages (a model's weights
  /// are otherwise held twice at once).
  void consumeInitializers(onnx::ModelProto *same) { consumable = same; }
  /// The raw_data of the graph's initializers, one per initializer, where
  /// the model was split (splitInitializerData) and the graph's own are
  /// empty.
  void readRawDataFrom(
      std::span<const std::optional<std::string_view>> initializerData) {
    rawData = initializerData;
  }

private:
  // --- The model's parts, in the order run() imports them -----------------
  /// Dims bound by the shapes of given inputs (by dim_param, or INPUT:INDEX
  /// for an unnamed one): the size, and the input that gave it.
  using GivenDims = std::map<std::string, std::pair<std::int64_t, std::string>>;
  /// The default domain's opset and the IR version, each in the range the
  /// ONNX checker accepts.
  void checkVersions();
  /// Each initializer as a constant value; answers their names.
  std::set<std::string> importInitializers(const onnx::GraphProto &graph);
  /// The value of initializer `proto`, from initializerCache where given.
  std::shared_ptr<const HostTensorData>
  initializer(const onnx::TensorProto &proto,
              std::optional<std::string_view> raw);
  GivenDims dimsOfGivenInputs(const onnx::GraphProto &graph);
  /// An input's shape, its dynamic dims bound by --dim (recorded in
  /// `usedDims`) or by a given input's shape.
  Shape inputShape(const std::string &name,
                   const onnx::TensorShapeProto &declared,
                   const GivenDims &fromInputs,
                   std::set<std::string> &usedDims);
  /// The graph inputs that are not initializers: graph inputs, or constants
  /// where options.constantInputs binds them.
  void importInputs(const onnx::GraphProto &graph,
                    const std::set<std::string> &initializerNames,
                    ImportedModel &result);
  /// An output's declared element type, and its shape where fully static,
  /// must be the computed ones.
  void checkDeclaredOutput(const onnx::ValueInfoProto &output, TensorId id);
  void importOutputs(const onnx::GraphProto &graph);
  /// The inputs, nodes and outputs into the main graph, after the
  /// initializers.
  ImportedModel importGraph(const std::set<std::string> &initializerNames);

public:
  /// Lowers the current node into *b: one tensor per output. A node whose
  /// inputs are all constants is lowered into a scratch graph and folded.
  using Lowering = std::vector<TensorId> (Importer::*)();
  /// Gives the current node's outputs at import, from its attributes and its
  /// inputs' types alone, without folding: constants (or tensors, for a large
  /// ConstantOfShape). False when the node is to be lowered after all.
  using Evaluation =
      bool (Importer::*)(std::vector<std::optional<Value>> &constants,
                         std::vector<TensorId> &results);
  /// How the importer handles an op type of the default domain.
  struct OpEntry {
    std::string_view name;
    Lowering lower = nullptr;
    /// Tried before `lower`, where there is one.
    Evaluation evaluate = nullptr;
  };
  /// Every op type the importer supports, sorted by name: the dispatch table
  /// and the supported list (supportedOps) in one.
  static std::span<const OpEntry> opTable();
  /// The entry of `op`; null when the importer does not support it.
  static const OpEntry *findOp(std::string_view op);

private:
  const onnx::ModelProto &model;
  const ImportOptions &options;
  /// Where external data may be read from; empty: nowhere.
  std::string modelFolder;
  /// Where initializers are read once across imports (null: none).
  InitializerCache *initializerCache = nullptr;
  /// The model, where its initializers' raw bytes may be freed once read.
  onnx::ModelProto *consumable = nullptr;
  /// The initializers' raw_data where the model was split (else empty).
  std::span<const std::optional<std::string_view>> rawData;
  std::int64_t opset = 0;

  GraphBuilder mainBuilder;
  std::map<std::string, Value> mainValues;
  // The current builder and value table: the main ones, or a folding
  // node's own.
  GraphBuilder *b = &mainBuilder;
  std::map<std::string, Value> *values = &mainValues;
  bool folding = false;

  std::vector<std::shared_ptr<const HostTensorData>> weights;
  /// The declared dims replaced by expressions of the others (unifyDims),
  /// each expression free of every symbol replaced.
  std::vector<UnifiedDim> unified;

  // The node being lowered.
  const onnx::NodeProto *node = nullptr;
  std::set<std::string> usedAttrs;
  /// The inputs of the node its lowering or evaluation read: every input
  /// given must be (an input the op does not have at the model's opset,
  /// such as ReduceMean's axes before opset 18, is an error, not ignored).
  std::set<int> usedInputs;
  /// The element (its bytes) of splat constants made by this importer, by
  /// tensor.
  std::map<TensorId, std::vector<std::uint8_t>> splats;
  /// The first value of the tensors that count up by one from it along
  /// their one dim that is not 1 (a Range over a symbolic dim, reshaped):
  /// a gather at them is a slice (position ids into a position embedding).
  std::map<TensorId, std::int64_t> counting;
  /// Where `x` counts up (see `counting`) and every dim of `shape` but one
  /// is 1, the same for the tensor `x` is reshaped to.
  void keepCounting(TensorId x, const Shape &shape, TensorId reshaped) {
    auto it = counting.find(x);
    if (it != counting.end() &&
        std::count_if(shape.begin(), shape.end(),
                      [](std::int64_t dim) { return dim != 1; }) <= 1)
      counting[reshaped] = it->second;
  }
  /// Integer tensors of a symbolic import whose value at position p is
  /// offset + sum over d of coefficients[d] * p[d] (iota, dim_value, and
  /// the broadcasts, unit reshapes, casts, sums and scalings of them): the
  /// index arithmetic of an exported `mask[batch_idx, kv_idx]`. A gather at
  /// indices that enumerate its axis in order is a reshape.
  struct AffineIndex {
    std::vector<DimExpr> coefficients;
    DimExpr offset;

    /// Whether every coefficient is 0: the value is the offset everywhere.
    bool isConstant() const {
      return std::all_of(coefficients.begin(), coefficients.end(),
                         [](const DimExpr &e) { return e == DimExpr(); });
    }
  };
  std::map<TensorId, AffineIndex> affine;
  /// The affine form of `x` (an integer tensor of a symbolic import), if
  /// known.
  const AffineIndex *affineOf(TensorId x) {
    auto it = affine.find(x);
    return it == affine.end() ? nullptr : &it->second;
  }
  /// `x`'s affine form carried to `y`, which holds x's values with unit
  /// dims inserted or removed (a reshape) or, where `broadcast`, x's dims
  /// aligned to y's last ones and stretched from 1.
  void carryAffine(TensorId x, TensorId y, bool broadcast);
  /// Records y = x (op) z for Add, Sub and Mul (by a tensor constant over
  /// its positions) of two affine tensors of one shape.
  void combineAffine(OpKind kind, TensorId x, TensorId z, TensorId y);
  /// Whether `indices` (affine) enumerate 0 .. count - 1 over their
  /// positions in row-major order.
  bool enumeratesInOrder(TensorId indices, std::int64_t count);

  // --- Graph helpers -------------------------------------------------------
  // Types and shapes are returned by value: the graph's tensor storage grows
  // (and moves) with every op added, and an argument list such as
  // `expandTo(in(1), shapeOf(x))` may evaluate shapeOf before `in` adds a
  // constant. Nothing here holds a reference into the graph across an add.
  TensorType typeOf(TensorId id) {
    if (!b->status().ok())
      throwBuilderError();
    return b->graph().typeOf(id);
  }
  Shape shapeOf(TensorId id) { return typeOf(id).shape; }
  ElementType elemOf(TensorId id) { return typeOf(id).elementType; }
  [[noreturn]] void throwBuilderError() { fail(b->status().message()); }
  TensorId check(TensorId id) {
    if (!b->status().ok())
      throwBuilderError();
    return id;
  }

  TensorId materialize(const std::string &name, Value &value);
  TensorId splat(TensorType type, double v) {
    return splatBytes(DenseValue::makeSplat(std::move(type), v));
  }
  /// A splat constant of `dense`'s one element, exactly (a 64-bit integer
  /// would not survive a double).
  /// Of a symbolic shape, a scalar splat broadcast to it: the fuse dialect
  /// has no constant of symbolic shape, and the graph prints as it is.
  TensorId splatBytes(DenseValue dense) {
    std::vector<std::uint8_t> element = dense.bytes;
    TensorId id;
    if (dense.type().isStatic()) {
      id = check(b->constant(std::move(dense)));
    } else {
      Shape shape = std::move(dense.shape);
      dense.shape = {};
      TensorId scalar = check(b->constant(std::move(dense)));
      splats[scalar] = element;
      id = check(b->broadcast(scalar, std::move(shape), {}));
    }
    splats[id] = std::move(element);
    return id;
  }
  TensorId splatLike(TensorId x, double v) { return splat(typeOf(x), v); }
  /// Where `x` is a splat constant, a splat of its element in `shape`: what
  /// any gather from it gives (a gather reads its data from memory, which a
  /// constant cloned into the kernel is not).
  std::optional<TensorId> splatAs(TensorId x, const Shape &shape) {
    auto it = splats.find(x);
    if (it == splats.end())
      return std::nullopt;
    return splatBytes(DenseValue{elemOf(x), shape, it->second, true});
  }
  TensorId expandTo(TensorId x, const Shape &shape);
  Shape broadcastShape(const Shape &a, const Shape &c);
  /// Of two dims a broadcast meets, different and neither 1: throws the
  /// Unification that makes them one where there is one (a declared symbol
  /// against another expression of the main graph: ImportOptions::
  /// symbolicDims); returns where there is none.
  void unifyDims(std::int64_t da, std::int64_t dc);
  /// "[batch, past+sequence, 4]": shapeText, with a symbolic dim of the
  /// main graph by its expression.
  std::string dimsText(const Shape &shape) {
    std::string out = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
      out += (i ? ", " : "") + (shape[i] < 0 && !folding &&
                                        mainBuilder.dims().isValidDim(shape[i])
                                    ? mainBuilder.dims().dimString(shape[i])
                                    : std::to_string(shape[i]));
    return out + "]";
  }
  TensorId binary(OpKind kind, TensorId x, TensorId y);
  TensorId compare(ComparePredicate p, TensorId x, TensorId y);
  TensorId unary(OpKind kind, TensorId x) { return check(b->unary(kind, x)); }
  TensorId reshape(TensorId x, const Shape &shape) {
    if (shapeOf(x) == shape)
      return x;
    // In a symbolic import, a splat stays one (a gather from it folds:
    // splatAs), as the static import folds it.
    if (options.symbolicDims)
      if (std::optional<TensorId> same = splatAs(x, shape))
        return *same;
    TensorId reshaped = check(b->reshape(x, shape));
    keepCounting(x, shape, reshaped);
    carryAffine(x, reshaped, /*broadcast=*/false);
    return reshaped;
  }
  TensorId reduce(ReduceKind kind, TensorId x, std::vector<std::int64_t> dims,
                  bool keep);
  std::int64_t normAxis(std::int64_t axis, std::int64_t rank) {
    if (axis < -rank || axis >= rank)
      fail("axis " + std::to_string(axis) + " is out of range for rank " +
           std::to_string(rank));
    return axis < 0 ? axis + rank : axis;
  }
  TensorId sliceAxis(TensorId x, std::int64_t axis, std::int64_t offset,
                     std::int64_t size, std::int64_t stride = 1);
  TensorId reverseAxis(TensorId x, std::int64_t axis);

  // --- Node helpers --------------------------------------------------------
  int numInputs() { return node->input_size(); }
  bool hasInput(int i) {
    return i < node->input_size() && !node->input(i).empty();
  }
  Value &inputValue(int i);
  TensorId in(int i) {
    if (!hasInput(i))
      fail("input " + std::to_string(i) + " is required");
    return materialize(node->input(i), inputValue(i));
  }
  const TensorType &inType(int i) { return inputValue(i).type; }
  const HostTensorData &constIn(int i, const char *what);
  std::vector<std::int64_t> intsIn(int i, const char *what) {
    return toInts(constIn(i, what));
  }

  const onnx::AttributeProto *attr(const std::string &name);
  const onnx::AttributeProto *attrOf(const std::string &name,
                                     onnx::AttributeProto::AttributeType type,
                                     bool (onnx::AttributeProto::*has)() const,
                                     const char *what);
  std::int64_t attrInt(const std::string &name, std::int64_t def);
  double attrFloat(const std::string &name, double def);
  std::string attrString(const std::string &name, const std::string &def);
  std::optional<std::vector<std::int64_t>> attrInts(const std::string &name);

  std::string nodeLabel() const;
  void importNode(const onnx::NodeProto &n);
  std::string otherUnsupportedOps(const std::string &first);
  /// Whether the current node is folded: its inputs are all constants, and
  /// not too large.
  bool foldable();
  /// Lowers the current node with `lower` into a scratch graph and evaluates
  /// it: one constant per output. False (nothing folded) when the evaluation
  /// would hold more than kMaxFoldEvalElements elements in all: the node is
  /// then lowered into the graph.
  bool fold(Lowering lower, std::vector<std::optional<Value>> &constants);

  // --- Op handlers (opTable) -----------------------------------------------
  // One per op or family of ops; a family's handler reads the op type from
  // the node, or takes the op's kind as a template argument.
  bool evaluateConstant(std::vector<std::optional<Value>> &constants,
                        std::vector<TensorId> &results);
  bool evaluateShapeOrSize(std::vector<std::optional<Value>> &constants,
                           std::vector<TensorId> &results);
  bool evaluateConstantOfShape(std::vector<std::optional<Value>> &constants,
                               std::vector<TensorId> &results);
  bool evaluateIdentity(std::vector<std::optional<Value>> &constants,
                        std::vector<TensorId> &results);
  bool evaluateRange(std::vector<std::optional<Value>> &constants,
                     std::vector<TensorId> &results);

  // Symbolic dims (OnnxImporter.cpp, "Symbolic dims").
  /// Whether an input of the node is a symbolic shape value or a tensor
  /// with a symbolic dim.
  bool touchesSymbolicDims();
  /// The node over symbolic dims: its outputs, true; false when the usual
  /// lowering handles it (elementwise ops on materialized values); an error
  /// for an op that cannot take them.
  bool evaluateSymbolic(std::vector<std::optional<Value>> &constants,
                        std::vector<TensorId> &results);
  bool symbolicIntsOp(std::vector<std::optional<Value>> &constants);
  bool symbolicIntsElementwise(std::vector<std::optional<Value>> &constants);
  bool symbolicIntsSelect(std::vector<std::optional<Value>> &constants);
  bool symbolicTensorOp(std::vector<TensorId> &results);
  TensorId materializeInts(const SymbolicInts &ints);
  std::string intsText(const SymbolicInts &ints);
  /// Input i as dim expressions: a symbolic shape value, or a small integer
  /// constant; nullopt otherwise.
  std::optional<SymbolicInts> exprsIn(int i);
  /// The value of `ints`: a constant when every element is.
  Value intsValue(SymbolicInts ints);
  DimExpr exprOf(std::int64_t dim) { return mainBuilder.dims().expr(dim); }
  std::int64_t codeOf(const DimExpr &expr, const std::string &what);
  Shape codesOf(const std::vector<DimExpr> &exprs, const std::string &what);
  DimExpr checkedExpr(Expected<DimExpr> expr, const std::string &what);
  TensorId symbolicReshape(TensorId x, const SymbolicInts &target);
  TensorId symbolicRange();
  TensorId symbolicSlice();
  TensorId symbolicGatherElements();

  template <OpKind kind> std::vector<TensorId> lowerUnary() {
    return {unary(kind, in(0))};
  }
  template <OpKind kind> std::vector<TensorId> lowerBinary() {
    TensorId x = in(0);
    return {binary(kind, x, legacyBroadcast(x, in(1)))};
  }
  template <ComparePredicate predicate> std::vector<TensorId> lowerCompare() {
    TensorId x = in(0);
    return {compare(predicate, x, legacyBroadcast(x, in(1)))};
  }
  std::vector<TensorId> lowerIdentity();
  std::vector<TensorId> lowerDropout();
  std::vector<TensorId> lowerPow();
  std::vector<TensorId> lowerMod();
  std::vector<TensorId> lowerVariadic();
  std::vector<TensorId> lowerRelu();
  std::vector<TensorId> lowerLeakyRelu();
  std::vector<TensorId> lowerElu();
  std::vector<TensorId> lowerHardSigmoid();
  std::vector<TensorId> lowerSoftplus();
  std::vector<TensorId> lowerSoftsign();
  std::vector<TensorId> lowerThresholdedRelu();
  std::vector<TensorId> lowerShrink();
  std::vector<TensorId> lowerGelu();
  std::vector<TensorId> lowerIsInf();
  std::vector<TensorId> lowerClip();
  std::vector<TensorId> lowerWhere();
  std::vector<TensorId> lowerCast();
  std::vector<TensorId> lowerMatMul();
  std::vector<TensorId> lowerGemm();
  std::vector<TensorId> lowerSoftmax();
  std::vector<TensorId> lowerLayerNormalization();
  std::vector<TensorId> lowerBatchNormalization();
  std::vector<TensorId> lowerInstanceNormalization();
  std::vector<TensorId> lowerReduce();
  std::vector<TensorId> lowerArgMax();
  std::vector<TensorId> lowerPool();
  std::vector<TensorId> lowerGlobalPool();
  std::vector<TensorId> lowerReshape();
  std::vector<TensorId> lowerFlatten();
  std::vector<TensorId> lowerTranspose();
  std::vector<TensorId> lowerSqueeze();
  std::vector<TensorId> lowerExpand();
  std::vector<TensorId> lowerConcat();
  std::vector<TensorId> lowerSplit();
  std::vector<TensorId> lowerSlice();
  /// The operands of the gather ops, checked alike: the data (input 0) and
  /// the indices' type (input 1: int32 or int64); for an op with an axis
  /// (Gather, GatherElements), the data's rank (>= 1) and the axis in it.
  struct GatherOperands {
    TensorId data;
    Shape shape;
    std::int64_t rank;
    std::int64_t axis = 0;
    TensorType indexType;
  };
  GatherOperands gatherOperands(bool hasAxis);
  /// GatherElements' and ScatterElements' indices laid out on the flattened
  /// data: its element count, the axis' size and stride, and each index
  /// position's flat offset, its axis coordinate aside.
  struct ElementOffsets {
    std::int64_t total;
    std::int64_t dim;
    std::int64_t step;
    std::vector<std::int64_t> offsets;
  };
  void checkElementIndices(const GatherOperands &g);
  ElementOffsets elementOffsets(const GatherOperands &g);
  void addConstantIndices(const GatherOperands &g, ElementOffsets &at);
  void addConstantTuples(const Shape &indexed,
                         const std::vector<std::int64_t> &strides,
                         std::int64_t firstDim, const Shape &dataShape,
                         std::vector<std::int64_t> &positions);
  TensorId intsConstant(const std::string &suffix, Shape shape,
                        std::span<const std::int64_t> ints,
                        ElementType elementType = ElementType::I64);
  std::vector<TensorId> lowerGather();
  std::vector<TensorId> lowerGatherElements();
  std::vector<TensorId> lowerTile();
  std::vector<TensorId> lowerGatherND();
  std::vector<TensorId> lowerScatterND();
  std::vector<TensorId> lowerScatterElements();
  std::string scatterReduction();
  /// Run-time indices (i64) against their dims' sizes (`dims`, of the
  /// indices' shape): a zero of their shape, each wrapped when negative,
  /// and whether each lies in [-dim, dim).
  struct WrappedIndices {
    TensorId zero, wrapped, inRange;
  };
  WrappedIndices wrapIndices(TensorId index, TensorId dims);
  TensorId wrappedPositions(TensorId index, const Shape &dims,
                            const std::vector<std::int64_t> &scale,
                            std::int64_t axisOfTuple, std::int64_t past);
  std::vector<TensorId> lowerTrilu();
  std::vector<TensorId> lowerCumSum();
  // Einsum: operands with one label per dim (EinsumEquation.h).
  struct Labeled {
    TensorId value;
    std::vector<EinsumLabel> labels;
  };
  std::vector<TensorId> lowerEinsum();
  Labeled einsumDiagonals(Labeled x);
  Labeled einsumSum(Labeled x, const std::set<EinsumLabel> &keep);
  Labeled einsumPermute(Labeled x, const std::vector<EinsumLabel> &order);
  Labeled einsumContract(Labeled a, Labeled c,
                         const std::set<EinsumLabel> &keep);
  // Convolutions and padding (OnnxImporter.cpp, "Convolution and Pad").
  std::vector<TensorId> lowerConv();
  std::vector<TensorId> lowerConvTranspose();
  std::vector<TensorId> lowerDepthToSpace();
  std::vector<TensorId> lowerSpaceToDepth();
  std::vector<TensorId> lowerEyeLike();
  std::vector<TensorId> lowerRecurrent();
  void checkRecurrentActivations(bool lstm);
  std::vector<TensorId> lowerTopK();
  struct RecurrentStep;
  TensorId recurrentCell(const RecurrentStep &step, TensorId &h, TensorId &c);
  /// `x` with `stride - 1` zeros after each element along `axis` but the
  /// last: ConvTranspose's input as the convolution it is.
  TensorId spreadAxis(TensorId x, std::int64_t axis, std::int64_t stride);
  TensorId convTransposeWeight(TensorId w, std::int64_t group);
  std::vector<TensorId> lowerPad();
  std::vector<std::int64_t> convPads(const Shape &input, const Shape &kernel,
                                     const Shape &strides,
                                     const Shape &dilations);
  TensorId padAxis(TensorId x, std::int64_t axis, std::int64_t begin,
                   std::int64_t end, const std::string &mode,
                   const DenseValue &fill);
  // Resize (OnnxImporter.cpp, "Resize").
  std::vector<TensorId> lowerResize();
  ResizeMode resizeMode(ElementType type);
  ResizeTarget resizeTarget(const Shape &shape, const std::string &policy);
  TensorId resizeWith(TensorId x, const ResizeMode &mode,
                      const ResizeTarget &target);
  std::vector<TensorId> lowerUpsample();
  TensorId resizeCubicAlong(TensorId x, std::int64_t axis,
                            const CubicAxis &taps, ElementType computeType,
                            const std::string &name);
  TensorId resizeAlong(TensorId x, std::int64_t axis, const ResizeAxis &reads,
                       ElementType computeType, const std::string &name);
  TensorId takeAlong(TensorId x, std::int64_t axis,
                     const std::vector<std::int64_t> &indices,
                     const std::string &name);
  TensorId axisWeights(TensorId like, std::int64_t axis,
                       const std::vector<double> &weights,
                       const std::string &name);

  TensorId softmax(TensorId x, std::int64_t axis, bool log);
  TensorId matmul(TensorId a, TensorId c);
  TensorId legacyBroadcast(TensorId x, TensorId y);
  std::vector<std::int64_t> reduceAxes(bool fromInput, std::int64_t rank,
                                       bool &noop);
};

/// Constants whose elements are all equal become splat `constant` ops;
/// others become weight inputs (host code generation takes dense data only
/// as inputs, and large constants never belong in the graph), except in a
/// scratch graph being folded.
TensorId Importer::materialize(const std::string &name, Value &value) {
  if (value.id != kInvalidTensor)
    return value.id;
  if (value.ints) {
    value.id = materializeInts(*value.ints);
    return value.id;
  }
  if (!value.constant)
    fail("internal error: '" + name + "' has no value");
  const HostTensorData &data = *value.constant;
  std::int64_t count = data.type.numElements();
  if (count > 0 && allEqual(data)) {
    const std::size_t width = std::size_t(byteSize(data.type.elementType));
    value.id = splatBytes(
        DenseValue{data.type.elementType, data.type.shape,
                   std::vector<std::uint8_t>(data.bytes.begin(),
                                             data.bytes.begin() + width),
                   true});
    return value.id;
  }
  if (folding) {
    DenseValue dense;
    dense.elementType = data.type.elementType;
    dense.shape = data.type.shape;
    dense.bytes = data.bytes;
    value.id = check(b->constant(std::move(dense)));
    return value.id;
  }
  value.id = check(b->input(data.type, name));
  weights.resize(b->graph().inputs.size());
  weights.back() = value.constant;
  return value.id;
}

Shape Importer::broadcastShape(const Shape &a, const Shape &c) {
  std::size_t rank = std::max(a.size(), c.size());
  Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    std::int64_t dc = i < rank - c.size() ? 1 : c[i - (rank - c.size())];
    if (da != dc && da != 1 && dc != 1) {
      unifyDims(da, dc);
      fail("shapes " + dimsText(a) + " and " + dimsText(c) +
           " do not broadcast");
    }
    out[i] = da == 1 ? dc : da;
  }
  return out;
}

void Importer::unifyDims(std::int64_t da, std::int64_t dc) {
  // Only in the main graph (a folded node's dims are static).
  if (!options.symbolicDims || folding || da >= 0 || dc >= 0)
    return;
  const DimTable &dims = mainBuilder.dims();
  const DimExpr ea = dims.expr(da), ec = dims.expr(dc);
  const std::optional<std::string> sa = ea.symbolName(), sc = ec.symbolName();
  auto declaredAt = [&](const std::string &symbol) {
    return std::find(dims.symbols.begin(), dims.symbols.end(), symbol) -
           dims.symbols.begin();
  };
  auto holds = [](const DimExpr &e, const std::string &symbol) {
    std::vector<std::string> symbols = e.symbols();
    return std::binary_search(symbols.begin(), symbols.end(), symbol);
  };
  UnifiedDim unification;
  if (sa && sc) // The one declared later is replaced by the other.
    unification = declaredAt(*sa) > declaredAt(*sc) ? UnifiedDim{*sa, ec, {}}
                                                    : UnifiedDim{*sc, ea, {}};
  else if (sa && !holds(ec, *sa))
    unification = UnifiedDim{*sa, ec, {}};
  else if (sc && !holds(ea, *sc))
    unification = UnifiedDim{*sc, ea, {}};
  else
    return;
  if (node)
    unification.where = nodeLabel();
  throw Unification{std::move(unification)};
}

/// `e` with `symbol` replaced by `value`; an error where a coefficient
/// passes 2^63.
Expected<DimExpr> substituted(const DimExpr &e, const std::string &symbol,
                              const DimExpr &value) {
  DimExpr sum;
  for (const DimExpr::Term &term : e.terms()) {
    DimExpr product = DimExpr::constant(term.coefficient);
    for (const std::string &name : term.symbols) {
      Expected<DimExpr> next =
          DimExpr::mul(product, name == symbol ? value : DimExpr::symbol(name));
      if (!next.ok())
        return next.status();
      product = next.take();
    }
    Expected<DimExpr> next = DimExpr::add(sum, product);
    if (!next.ok())
      return next.status();
    sum = next.take();
  }
  return sum;
}

TensorId Importer::expandTo(TensorId x, const Shape &shape) {
  const TensorType &type = typeOf(x);
  if (type.shape == shape)
    return x;
  if (auto it = splats.find(x); it != splats.end())
    return splatBytes(DenseValue{type.elementType, shape, it->second, true});
  Shape check = broadcastShape(type.shape, shape);
  if (check != shape)
    fail("cannot broadcast " + shapeText(type.shape) + " to " +
         shapeText(shape));
  TensorId y = this->check(b->broadcastTo(x, shape));
  carryAffine(x, y, /*broadcast=*/true);
  return y;
}

void Importer::carryAffine(TensorId x, TensorId y, bool broadcast) {
  const AffineIndex *from = affineOf(x);
  if (!from)
    return;
  const Shape xs = shapeOf(x), ys = shapeOf(y);
  AffineIndex to{std::vector<DimExpr>(ys.size(), DimExpr::constant(0)),
                 from->offset};
  if (broadcast) {
    if (xs.size() > ys.size())
      return;
    std::size_t lead = ys.size() - xs.size();
    for (std::size_t d = 0; d < xs.size(); ++d)
      if (xs[d] == ys[lead + d])
        to.coefficients[lead + d] = from->coefficients[d];
      else if (xs[d] != 1)
        return;
  } else {
    // The dims that are not 1, in order, must be the same.
    std::size_t j = 0;
    for (std::size_t d = 0; d < xs.size(); ++d) {
      if (xs[d] == 1)
        continue;
      while (j < ys.size() && ys[j] == 1)
        ++j;
      if (j == ys.size() || ys[j] != xs[d])
        return;
      to.coefficients[j++] = from->coefficients[d];
    }
    while (j < ys.size() && ys[j] == 1)
      ++j;
    if (j != ys.size())
      return;
  }
  affine[y] = std::move(to);
}

void Importer::combineAffine(OpKind kind, TensorId x, TensorId z, TensorId y) {
  const AffineIndex *a = affineOf(x), *c = affineOf(z);
  if (!a || !c || a->coefficients.size() != c->coefficients.size())
    return;
  AffineIndex out;
  auto combine = [&](const DimExpr &l, const DimExpr &r) {
    Expected<DimExpr> e = kind == OpKind::Add   ? DimExpr::add(l, r)
                          : kind == OpKind::Sub ? DimExpr::sub(l, r)
                                                : DimExpr::mul(l, r);
    return e.ok() ? std::optional<DimExpr>(e.take()) : std::nullopt;
  };
  if (kind == OpKind::Add || kind == OpKind::Sub) {
    for (std::size_t d = 0; d < a->coefficients.size(); ++d) {
      std::optional<DimExpr> e =
          combine(a->coefficients[d], c->coefficients[d]);
      if (!e)
        return;
      out.coefficients.push_back(std::move(*e));
    }
    std::optional<DimExpr> offset = combine(a->offset, c->offset);
    if (!offset)
      return;
    out.offset = std::move(*offset);
  } else if (kind == OpKind::Mul && (a->isConstant() || c->isConstant())) {
    const AffineIndex &form = a->isConstant() ? *c : *a;
    const DimExpr &factor = a->isConstant() ? a->offset : c->offset;
    for (const DimExpr &coefficient : form.coefficients) {
      std::optional<DimExpr> e = combine(coefficient, factor);
      if (!e)
        return;
      out.coefficients.push_back(std::move(*e));
    }
    std::optional<DimExpr> offset = combine(form.offset, factor);
    if (!offset)
      return;
    out.offset = std::move(*offset);
  } else {
    return;
  }
  affine[y] = std::move(out);
}

bool Importer::enumeratesInOrder(TensorId indices, std::int64_t count) {
  const AffineIndex *form = affineOf(indices);
  if (!form || !(form->offset == DimExpr()))
    return false;
  const Shape shape = shapeOf(indices);
  DimExpr stride = DimExpr::constant(1);
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 1)
      continue;
    if (!(form->coefficients[d] == stride))
      return false;
    Expected<DimExpr> next = DimExpr::mul(stride, exprOf(shape[d]));
    if (!next.ok())
      return false;
    stride = next.take();
  }
  return stride == exprOf(count);
}

TensorId Importer::binary(OpKind kind, TensorId x, TensorId y) {
  Shape shape = broadcastShape(shapeOf(x), shapeOf(y));
  x = expandTo(x, shape);
  y = expandTo(y, shape);
  TensorId z = check(b->binary(kind, x, y));
  combineAffine(kind, x, y, z);
  return z;
}

TensorId Importer::compare(ComparePredicate p, TensorId x, TensorId y) {
  Shape shape = broadcastShape(shapeOf(x), shapeOf(y));
  x = expandTo(x, shape);
  y = expandTo(y, shape);
  // An index that is never below a bound compared with it (an exported
  // mask's q_idx >= 0) is true everywhere: a splat, so that no kernel
  // reads the index (an iota over a symbolic dim).
  const AffineIndex *form = affineOf(x);
  std::optional<std::int64_t> bound;
  if (auto it = splats.find(y); it != splats.end() && isInteger(elemOf(y)))
    bound = loadInt(elemOf(y), it->second.data(), 0);
  else if (const AffineIndex *other = affineOf(y); other && other->isConstant())
    bound = other->offset.constantValue();
  if (form && bound &&
      (p == ComparePredicate::Ge || p == ComparePredicate::Gt) &&
      std::all_of(form->coefficients.begin(), form->coefficients.end(),
                  [](const DimExpr &e) { return e.isNonNegative(); }) &&
      form->offset.isNonNegative()) {
    std::int64_t lowest = form->offset.constantValue().value_or(0);
    if (p == ComparePredicate::Ge ? lowest >= *bound : lowest > *bound)
      return splat(TensorType{ElementType::I1, shape}, 1);
  }
  return check(b->compare(p, x, y));
}

TensorId Importer::reduce(ReduceKind kind, TensorId x,
                          std::vector<std::int64_t> dims, bool keep) {
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  if (dims.empty())
    return x;
  return check(b->reduce(kind, x, dims, keep));
}

TensorId Importer::sliceAxis(TensorId x, std::int64_t axis, std::int64_t offset,
                             std::int64_t size, std::int64_t stride) {
  const Shape &shape = shapeOf(x);
  Shape offsets(shape.size(), 0), sizes = shape, strides(shape.size(), 1);
  offsets[axis] = offset;
  sizes[axis] = size;
  strides[axis] = stride;
  return check(b->slice(x, offsets, sizes, strides));
}

TensorId Importer::reverseAxis(TensorId x, std::int64_t axis) {
  std::int64_t n = shapeOf(x)[axis];
  if (n <= 1)
    return x;
  if (n > 1024)
    fail("a reversal of " + std::to_string(n) +
         " elements (a negative step) is not supported beyond 1024");
  std::vector<TensorId> parts;
  for (std::int64_t i = n; i-- > 0;)
    parts.push_back(sliceAxis(x, axis, i, 1));
  return check(b->concat(parts, axis));
}

Value &Importer::inputValue(int i) {
  usedInputs.insert(i);
  if (!hasInput(i))
    fail("input " + std::to_string(i) + " is required");
  auto it = values->find(node->input(i));
  if (it == values->end())
    fail("input " + std::to_string(i) + " ('" + node->input(i) +
         "') is defined by no earlier node, graph input or initializer");
  return it->second;
}

const HostTensorData &Importer::constIn(int i, const char *what) {
  Value &value = inputValue(i);
  if (value.constant)
    return *value.constant;
  if (value.ints)
    fail(std::string(what) + " (input " + std::to_string(i) + ", '" +
         node->input(i) + "') is computed from symbolic dims (" +
         intsText(*value.ints) + ") and must be known at import here: " +
         node->op_type() + " does not take symbolic dims there");
  std::string operand = std::string(what) + " (input " + std::to_string(i) +
                        ", '" + node->input(i) + "')";
  std::vector<ConstantInputNeed> needs;
  for (const std::string &input : value.modelInputs)
    needs.push_back({input, operand + " of " + nodeLabel()});
  throw NeedsConstantError(
      operand + " must be a constant (an initializer or a value computed from "
                "constants)",
      std::move(needs));
}

const onnx::AttributeProto *Importer::attr(const std::string &name) {
  for (const onnx::AttributeProto &a : node->attribute())
    if (a.name() == name) {
      usedAttrs.insert(name);
      return &a;
    }
  return nullptr;
}

/// The attribute `name`, or null when the node has none; fails unless it is
/// of `type` or `has` its value of that type (`what`: the type in words).
const onnx::AttributeProto *
Importer::attrOf(const std::string &name,
                 onnx::AttributeProto::AttributeType type,
                 bool (onnx::AttributeProto::*has)() const, const char *what) {
  const onnx::AttributeProto *a = attr(name);
  if (a && a->type() != type && !(a->*has)())
    fail("attribute '" + name + "' is not " + what);
  return a;
}

std::int64_t Importer::attrInt(const std::string &name, std::int64_t def) {
  const onnx::AttributeProto *a =
      attrOf(name, onnx::AttributeProto::INT, &onnx::AttributeProto::has_i,
             "an integer");
  return a ? a->i() : def;
}

double Importer::attrFloat(const std::string &name, double def) {
  const onnx::AttributeProto *a =
      attrOf(name, onnx::AttributeProto::FLOAT, &onnx::AttributeProto::has_f,
             "a float");
  return a ? a->f() : def;
}

std::string Importer::attrString(const std::string &name,
                                 const std::string &def) {
  const onnx::AttributeProto *a =
      attrOf(name, onnx::AttributeProto::STRING, &onnx::AttributeProto::has_s,
             "a string");
  return a ? a->s() : def;
}

std::optional<std::vector<std::int64_t>>
Importer::attrInts(const std::string &name) {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return std::nullopt;
  return std::vector<std::int64_t>(a->ints().begin(), a->ints().end());
}

std::string Importer::nodeLabel() const {
  std::string label = "node '" + node->name() + "'";
  if (node->name().empty())
    label =
        "node" + (node->output_size() ? " with output '" + node->output(0) + "'"
                                      : std::string());
  std::string domain = node->domain().empty() || node->domain() == "ai.onnx"
                           ? ""
                           : node->domain() + ".";
  return label + " (" + domain + node->op_type() + ", opset " +
         std::to_string(opset) + ")";
}

TensorId Importer::softmax(TensorId x, std::int64_t axis, bool log) {
  std::int64_t rank = typeOf(x).rank();
  if (rank == 0)
    fail("the input must have rank >= 1");
  axis = normAxis(axis, rank);
  // Rows of no element: the result is as empty as x (and a max over them
  // has no value).
  if (typeOf(x).shape[std::size_t(axis)] == 0)
    return x;
  Shape shape = shapeOf(x);
  TensorId m = reduce(ReduceKind::Max, x, {axis}, true);
  TensorId d = check(b->sub(x, expandTo(m, shape)));
  TensorId e = unary(OpKind::Exp, d);
  TensorId s = reduce(ReduceKind::Sum, e, {axis}, true);
  if (log)
    return check(b->sub(d, expandTo(unary(OpKind::Log, s), shape)));
  return check(b->div(e, expandTo(s, shape)));
}

TensorId Importer::matmul(TensorId a, TensorId c) {
  Shape sa = shapeOf(a), sc = shapeOf(c);
  if (sa.empty() || sc.empty())
    fail("MatMul operands must have rank >= 1");
  bool vecA = sa.size() == 1, vecC = sc.size() == 1;
  if (vecA)
    a = reshape(a, {1, sa[0]});
  if (vecC)
    c = reshape(c, {sc[0], 1});
  sa = shapeOf(a);
  sc = shapeOf(c);
  if (sa[sa.size() - 1] != sc[sc.size() - 2])
    fail("MatMul operands " + shapeText(sa) + " and " + shapeText(sc) +
         " do not agree on K");
  Shape ba(sa.begin(), sa.end() - 2), bc(sc.begin(), sc.end() - 2);
  if (ba != bc && !ba.empty() && !bc.empty()) {
    Shape batch = broadcastShape(ba, bc);
    Shape ta = batch, tc = batch;
    ta.insert(ta.end(), sa.end() - 2, sa.end());
    tc.insert(tc.end(), sc.end() - 2, sc.end());
    a = expandTo(a, ta);
    c = expandTo(c, tc);
  }
  TensorId y = check(b->matmul(a, c));
  Shape sy = shapeOf(y);
  if (vecA || vecC) {
    Shape out(sy.begin(), sy.end() - 2);
    if (!vecA)
      out.push_back(sy[sy.size() - 2]);
    if (!vecC)
      out.push_back(sy.back());
    y = reshape(y, out);
  }
  return y;
}

/// Before opset 7, binary ops broadcast only with `broadcast=1`, the second
/// operand's dims aligned with the first's from `axis` (trailing when
/// absent, which NumPy rules cover).
TensorId Importer::legacyBroadcast(TensorId x, TensorId y) {
  bool enabled = attrInt("broadcast", 0) != 0;
  const onnx::AttributeProto *axisAttr = attr("axis");
  if (!enabled || !axisAttr)
    return y;
  const Shape &sx = shapeOf(x), sy = shapeOf(y);
  std::int64_t rank = std::int64_t(sx.size());
  std::int64_t axis = axisAttr->i() < 0 ? axisAttr->i() + rank : axisAttr->i();
  if (axis < 0 || axis + std::int64_t(sy.size()) > rank)
    fail("legacy broadcast axis " + std::to_string(axisAttr->i()) +
         " does not fit " + shapeText(sy) + " into " + shapeText(sx));
  Shape aligned(rank - axis, 1);
  for (std::size_t i = 0; i < sy.size(); ++i)
    aligned[i] = sy[i];
  return reshape(y, aligned);
}

std::vector<std::int64_t> Importer::reduceAxes(bool fromInput,
                                               std::int64_t rank, bool &noop) {
  std::vector<std::int64_t> axes;
  bool given = false;
  if (fromInput) {
    if (hasInput(1)) {
      axes = intsIn(1, "axes");
      given = true;
    }
  } else if (auto a = attrInts("axes")) {
    axes = *a;
    given = true;
  }
  bool noopEmpty = attrInt("noop_with_empty_axes", 0) != 0;
  noop = false;
  if (!given || axes.empty()) {
    if (noopEmpty && fromInput) {
      noop = true;
      return {};
    }
    axes.resize(rank);
    std::iota(axes.begin(), axes.end(), 0);
    return axes;
  }
  for (std::int64_t &axis : axes)
    axis = normAxis(axis, rank);
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

/// The Reduce* family.
std::vector<TensorId> Importer::lowerReduce() {
  const std::string &op = node->op_type();
  TensorId x = in(0);
  std::int64_t rank = typeOf(x).rank();
  bool fromInput = op == "ReduceSum" ? opset >= 13 : opset >= 18;
  bool noop = false;
  std::vector<std::int64_t> axes = reduceAxes(fromInput, rank, noop);
  bool keep = attrInt("keepdims", 1) != 0;
  auto sq = [&](TensorId t) { return check(b->mul(t, t)); };
  if (noop) {
    // ONNX: the input unchanged (after the elementwise part for the
    // composite reductions, as the reference implementation does).
    if (op == "ReduceL1")
      return {unary(OpKind::Abs, x)};
    if (op == "ReduceSumSquare" || op == "ReduceL2")
      return {op == "ReduceL2" ? unary(OpKind::Abs, x) : sq(x)};
    if (op == "ReduceLogSumExp")
      return {x};
    if (op == "ReduceLogSum")
      return {unary(OpKind::Log, x)};
    return {x};
  }
  // Over an empty set: the reduction's identity (ONNX: -inf for max and
  // log-sum(-exp), +inf for min, 0 for sums, 1 for prod, NaN for mean).
  const Shape shape = shapeOf(x);
  bool empty = false;
  for (std::int64_t axis : axes)
    empty |= shape[axis] == 0;
  if (empty) {
    Shape out;
    for (std::int64_t i = 0; i < rank; ++i) {
      bool reduced = std::binary_search(axes.begin(), axes.end(), i);
      if (!reduced || keep)
        out.push_back(reduced ? 1 : shape[i]);
    }
    double inf = std::numeric_limits<double>::infinity();
    ElementType type = elemOf(x);
    double value = 0;
    // Integers: the type's lowest and highest values (saturated from
    // -2^63 and 2^63, or 2^64 for the ui types); booleans: false and true.
    double lowest = type == ElementType::I1 ? 0 : std::ldexp(-1.0, 63);
    double highest = type == ElementType::I1   ? 1
                     : isUnsignedInteger(type) ? std::ldexp(1.0, 64)
                                               : std::ldexp(1.0, 63);
    if (op == "ReduceMax" || op == "ReduceLogSum" || op == "ReduceLogSumExp")
      value = isFloat(type) ? -inf : lowest;
    else if (op == "ReduceMin")
      value = isFloat(type) ? inf : highest;
    else if (op == "ReduceProd")
      value = 1;
    else if (op == "ReduceMean")
      value = std::numeric_limits<double>::quiet_NaN();
    return {splat(TensorType{type, out}, value)};
  }
  // Max and min of booleans: any and all, computed on i8.
  if (elemOf(x) == ElementType::I1 &&
      (op == "ReduceMax" || op == "ReduceMin")) {
    TensorId wide = check(b->cast(x, ElementType::I8));
    TensorId r = reduce(op == "ReduceMax" ? ReduceKind::Max : ReduceKind::Min,
                        wide, axes, keep);
    return {check(b->cast(r, ElementType::I1))};
  }
  if (op == "ReduceSum")
    return {reduce(ReduceKind::Sum, x, axes, keep)};
  if (op == "ReduceMean")
    return {reduce(ReduceKind::Mean, x, axes, keep)};
  if (op == "ReduceMax")
    return {reduce(ReduceKind::Max, x, axes, keep)};
  if (op == "ReduceMin")
    return {reduce(ReduceKind::Min, x, axes, keep)};
  if (op == "ReduceProd")
    return {reduce(ReduceKind::Prod, x, axes, keep)};
  if (op == "ReduceL1")
    return {reduce(ReduceKind::Sum, unary(OpKind::Abs, x), axes, keep)};
  if (op == "ReduceL2")
    return {unary(OpKind::Sqrt, reduce(ReduceKind::Sum, sq(x), axes, keep))};
  if (op == "ReduceSumSquare")
    return {reduce(ReduceKind::Sum, sq(x), axes, keep)};
  if (op == "ReduceLogSum")
    return {unary(OpKind::Log, reduce(ReduceKind::Sum, x, axes, keep))};
  // ReduceLogSumExp, stabilized by the max.
  TensorId m = reduce(ReduceKind::Max, x, axes, true);
  TensorId e = unary(OpKind::Exp, check(b->sub(x, expandTo(m, shapeOf(x)))));
  TensorId s = unary(OpKind::Log, reduce(ReduceKind::Sum, e, axes, true));
  TensorId y = check(b->add(s, m));
  if (!keep) {
    Shape out;
    for (std::int64_t i = 0; i < rank; ++i)
      if (!std::binary_search(axes.begin(), axes.end(), i))
        out.push_back(shapeOf(x)[i]);
    y = reshape(y, out);
  }
  return {y};
}

// --- Op handlers ----------------------------------------------------------

bool Importer::evaluateConstant(std::vector<std::optional<Value>> &constants,
                                std::vector<TensorId> & /*results*/) {
  const onnx::AttributeProto *a = nullptr;
  for (const char *name :
       {"value", "value_float", "value_floats", "value_int", "value_ints"})
    if ((a = attr(name))) {
      Value v;
      std::string which = name;
      // value_float(s), value_int(s): a scalar, or a vector of the list.
      const bool isList = which.back() == 's';
      auto fromValues = [&](ElementType type, auto scalar, const auto &list) {
        std::vector<decltype(scalar)> xs;
        Shape shape;
        if (isList) {
          xs.assign(list.begin(), list.end());
          shape.push_back(std::int64_t(xs.size()));
        } else {
          xs.push_back(scalar);
        }
        if constexpr (std::is_same_v<decltype(scalar), double>)
          return HostTensorData::fromDoubles(TensorType{type, shape}, xs);
        else
          return HostTensorData::fromInts(TensorType{type, shape}, xs);
      };
      if (which == "value")
        v.constant = shared(tensorFromProto(a->t(), modelFolder));
      else if (which.starts_with("value_float"))
        v.constant =
            shared(fromValues(ElementType::F32, double(a->f()), a->floats()));
      else
        v.constant = shared(
            fromValues(ElementType::I64, std::int64_t(a->i()), a->ints()));
      v.type = v.constant->type;
      constants[0] = std::move(v);
      break;
    }
  if (!a)
    fail("a Constant without a supported value attribute (value, "
         "value_float(s), value_int(s))");
  return true;
}

/// Shape and Size.
bool Importer::evaluateShapeOrSize(std::vector<std::optional<Value>> &constants,
                                   std::vector<TensorId> & /*results*/) {
  const std::string &op = node->op_type();
  const TensorType &type = inType(0);
  std::vector<std::int64_t> xs;
  Shape shape;
  if (op == "Shape") {
    std::int64_t rank = type.rank();
    std::int64_t start = attrInt("start", 0), end = attrInt("end", rank);
    if (start < 0)
      start += rank;
    if (end < 0)
      end += rank;
    start = std::clamp<std::int64_t>(start, 0, rank);
    end = std::clamp<std::int64_t>(end, 0, rank);
    for (std::int64_t i = start; i < end; ++i)
      xs.push_back(type.shape[i]);
    shape.push_back(std::int64_t(xs.size()));
  } else {
    xs.push_back(type.numElements());
  }
  Value v;
  v.constant =
      shared(HostTensorData::fromInts(TensorType{ElementType::I64, shape}, xs));
  v.type = v.constant->type;
  constants[0] = std::move(v);
  return true;
}

bool Importer::evaluateConstantOfShape(
    std::vector<std::optional<Value>> &constants,
    std::vector<TensorId> &results) {
  std::vector<std::int64_t> shape = intsIn(0, "shape");
  checkedCount(shape, "the result");
  // The fill element's bytes, copied as they are (a double would round
  // a 64-bit integer above 2^53): f32 0 by default.
  HostTensorData fill(TensorType{ElementType::F32, {}});
  if (const onnx::AttributeProto *a = attr("value")) {
    HostTensorData value = tensorFromProto(a->t(), modelFolder);
    if (value.type.numElements() != 1)
      fail("'value' must hold one element");
    fill.type.elementType = value.type.elementType;
    fill.bytes = std::move(value.bytes);
  }
  TensorType type{fill.type.elementType, shape};
  if (type.numElements() > kMaxFoldElements) {
    // Large: a splat in the graph.
    results.push_back(
        splatBytes(DenseValue{type.elementType, type.shape, fill.bytes, true}));
  } else {
    HostTensorData filled(type);
    for (std::int64_t i = 0; i < type.numElements(); ++i)
      std::memcpy(filled.bytes.data() + i * fill.bytes.size(),
                  fill.bytes.data(), fill.bytes.size());
    Value v;
    v.constant = shared(std::move(filled));
    v.type = type;
    constants[0] = std::move(v);
  }
  return true;
}

/// Range: start, limit and delta known at import (exporters compute them
/// from Shape, which bound dims make constants), so the result is a
/// constant: max(ceil((limit - start) / delta), 0) elements, element i
/// start + i * delta (integers exactly).
bool Importer::evaluateRange(std::vector<std::optional<Value>> &constants,
                             std::vector<TensorId> & /*results*/) {
  const HostTensorData &start = constIn(0, "start");
  const HostTensorData &limit = constIn(1, "limit");
  const HostTensorData &delta = constIn(2, "delta");
  for (const HostTensorData *operand : {&start, &limit, &delta}) {
    if (operand->type.numElements() != 1)
      fail("start, limit and delta must be scalars, not " +
           shapeText(operand->type.shape));
    if (operand->type.elementType != start.type.elementType)
      fail("start, limit and delta must have one element type");
  }
  ElementType type = start.type.elementType;
  Value v;
  if (isFloat(type)) {
    double first = start.toDoubles()[0], step = delta.toDoubles()[0];
    if (step == 0 || !std::isfinite(step) || !std::isfinite(first) ||
        !std::isfinite(limit.toDoubles()[0]))
      fail("delta must be finite and non-zero, and start and limit finite");
    // Past 2^63 (limit - start may be infinite) saturates, and is refused.
    const double steps = std::ceil((limit.toDoubles()[0] - first) / step);
    const std::int64_t count =
        steps > 0 ? CheckedInt::fromDouble(steps).saturated() : 0;
    if (count > kMaxElements)
      fail("the range has more than " + std::to_string(kMaxElements) +
           " elements");
    std::vector<double> values(static_cast<std::size_t>(count));
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = first + double(i) * step;
    TensorType result{type, {std::int64_t(values.size())}};
    v.constant = shared(HostTensorData::fromDoubles(result, values));
    v.type = result;
  } else {
    std::int64_t first = start.toInts()[0], end = limit.toInts()[0],
                 step = delta.toInts()[0];
    if (step == 0)
      fail("delta must be non-zero");
    // In 128 bits: limit - start of two int64 values may pass 2^63.
    __int128 span = __int128(end) - first;
    __int128 count =
        span / step + (span % step != 0 && (span > 0) == (step > 0));
    if (count < 0)
      count = 0;
    if (count > kMaxElements)
      fail("the range has more than " + std::to_string(kMaxElements) +
           " elements");
    std::vector<std::int64_t> values(static_cast<std::size_t>(count));
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = std::int64_t(first + __int128(i) * step);
    TensorType result{type, {std::int64_t(values.size())}};
    v.constant = shared(HostTensorData::fromInts(result, values));
    v.type = result;
  }
  constants[0] = std::move(v);
  return true;
}

/// The input's value, constant or not, passed through; without an input,
/// lowered (and refused there).
bool Importer::evaluateIdentity(std::vector<std::optional<Value>> &constants,
                                std::vector<TensorId> & /*results*/) {
  if (!hasInput(0))
    return false;
  constants[0] = inputValue(0);
  return true;
}

std::vector<TensorId> Importer::lowerIdentity() { return {in(0)}; }

/// In inference mode only: the input unchanged.
std::vector<TensorId> Importer::lowerDropout() {
  attrFloat("ratio", 0.5);
  attrInt("is_test", 0);
  attrInt("seed", 0);
  // The ratio (an input from opset 12) does not matter outside training.
  if (opset >= 12 && hasInput(1))
    (void)inputValue(1);
  if (hasInput(2)) {
    std::vector<std::int64_t> mode = constIn(2, "training_mode").toInts();
    if (mode.size() != 1)
      fail("'training_mode' must hold one element");
    if (mode[0] != 0)
      fail("Dropout in training mode is not supported");
  }
  if (node->output_size() > 1 && !node->output(1).empty())
    fail("Dropout's mask output is not supported");
  return {in(0)};
}

std::vector<TensorId> Importer::lowerPow() {
  TensorId x = in(0), e = legacyBroadcast(x, in(1));
  if (elemOf(e) != elemOf(x))
    e = check(b->cast(e, elemOf(x)));
  return {binary(OpKind::Pow, x, e)};
}

std::vector<TensorId> Importer::lowerMod() {
  bool fmod = attrInt("fmod", 0) != 0;
  TensorId x = in(0), y = in(1);
  Shape shape = broadcastShape(shapeOf(x), shapeOf(y));
  TensorId ye = expandTo(y, shape);
  TensorId xe = expandTo(x, shape);
  return {check(b->rem(xe, ye, fmod))};
}

/// Max, Min, Sum and Mean: an elementwise fold over the inputs.
std::vector<TensorId> Importer::lowerVariadic() {
  const std::string &op = node->op_type();
  OpKind kind = op == "Max"   ? OpKind::Max
                : op == "Min" ? OpKind::Min
                              : OpKind::Add;
  TensorId acc = in(0);
  for (int i = 1; i < numInputs(); ++i)
    acc = binary(kind, acc, in(i));
  if (op == "Mean" && numInputs() > 1)
    acc = check(b->div(acc, splatLike(acc, numInputs())));
  return {acc};
}

std::vector<TensorId> Importer::lowerRelu() {
  TensorId x = in(0);
  return {check(b->max(x, splatLike(x, 0)))};
}

/// LeakyRelu and PRelu.
std::vector<TensorId> Importer::lowerLeakyRelu() {
  const std::string &op = node->op_type();
  TensorId x = in(0);
  TensorId slope = op == "PRelu" ? expandTo(in(1), shapeOf(x))
                                 : splatLike(x, attrFloat("alpha", 0.01));
  TensorId neg = check(b->compare(ComparePredicate::Lt, x, splatLike(x, 0)));
  return {check(b->select(neg, check(b->mul(x, slope)), x))};
}

/// Elu, Selu and Celu.
std::vector<TensorId> Importer::lowerElu() {
  const std::string &op = node->op_type();
  TensorId x = in(0);
  double alpha =
      attrFloat("alpha", op == "Selu" ? 1.67326319217681884765625 : 1.0);
  if (op == "Celu") {
    // max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
    TensorId e = unary(OpKind::Exp, check(b->div(x, splatLike(x, alpha))));
    TensorId scale = splatLike(x, alpha);
    TensorId t = check(b->mul(check(b->sub(e, splatLike(x, 1))), scale));
    TensorId negative = check(b->min(t, splatLike(x, 0)));
    TensorId positive = check(b->max(x, splatLike(x, 0)));
    return {check(b->add(positive, negative))};
  }
  TensorId scale = splatLike(x, alpha);
  TensorId one = splatLike(x, 1);
  TensorId e = check(b->mul(check(b->sub(unary(OpKind::Exp, x), one)), scale));
  if (op == "Elu") {
    TensorId neg = check(b->compare(ComparePredicate::Lt, x, splatLike(x, 0)));
    return {check(b->select(neg, e, x))};
  }
  double gamma = attrFloat("gamma", 1.05070102214813232421875);
  TensorId le = check(b->compare(ComparePredicate::Le, x, splatLike(x, 0)));
  TensorId gammaScale = splatLike(x, gamma);
  return {check(b->mul(check(b->select(le, e, x)), gammaScale))};
}

/// HardSigmoid and HardSwish.
std::vector<TensorId> Importer::lowerHardSigmoid() {
  const std::string &op = node->op_type();
  TensorId x = in(0);
  double alpha = op == "HardSwish" ? 1.0 / 6 : attrFloat("alpha", 0.2);
  double beta = op == "HardSwish" ? 0.5 : attrFloat("beta", 0.5);
  TensorId shift = splatLike(x, beta);
  TensorId t = check(b->add(check(b->mul(x, splatLike(x, alpha))), shift));
  TensorId low = splatLike(x, 0);
  t = check(b->max(check(b->min(t, splatLike(x, 1))), low));
  return {op == "HardSwish" ? check(b->mul(x, t)) : t};
}

/// Softplus and Mish.
std::vector<TensorId> Importer::lowerSoftplus() {
  const std::string &op = node->op_type();
  TensorId x = in(0);
  TensorId one = splatLike(x, 1);
  TensorId sp = unary(OpKind::Log, check(b->add(unary(OpKind::Exp, x), one)));
  if (op == "Softplus")
    return {sp};
  return {check(b->mul(x, unary(OpKind::Tanh, sp)))};
}

std::vector<TensorId> Importer::lowerSoftsign() {
  TensorId x = in(0);
  TensorId one = splatLike(x, 1);
  return {check(b->div(x, check(b->add(unary(OpKind::Abs, x), one))))};
}

std::vector<TensorId> Importer::lowerThresholdedRelu() {
  TensorId x = in(0);
  double alpha = attrFloat("alpha", 1.0);
  TensorId gt = check(b->compare(ComparePredicate::Gt, x, splatLike(x, alpha)));
  return {check(b->select(gt, x, splatLike(x, 0)))};
}

std::vector<TensorId> Importer::lowerShrink() {
  TensorId x = in(0);
  double lambd = attrFloat("lambd", 0.5), bias = attrFloat("bias", 0.0);
  TensorId lo =
      check(b->compare(ComparePredicate::Lt, x, splatLike(x, -lambd)));
  TensorId hi = check(b->compare(ComparePredicate::Gt, x, splatLike(x, lambd)));
  TensorId zero = splatLike(x, 0);
  TensorId up = check(b->add(x, splatLike(x, bias)));
  TensorId down = check(b->sub(x, splatLike(x, bias)));
  return {check(b->select(lo, up, check(b->select(hi, down, zero))))};
}

std::vector<TensorId> Importer::lowerGelu() {
  TensorId x = in(0);
  std::string approximate = attrString("approximate", "none");
  TensorId half = splatLike(x, 0.5), one = splatLike(x, 1);
  TensorId inner;
  if (approximate == "tanh") {
    TensorId x3 = check(b->mul(check(b->mul(x, x)), x));
    TensorId t = check(b->add(x, check(b->mul(x3, splatLike(x, 0.044715)))));
    t = check(b->mul(t, splatLike(x, std::sqrt(2.0 / std::numbers::pi))));
    inner = unary(OpKind::Tanh, t);
  } else if (approximate == "none") {
    inner = unary(OpKind::Erf,
                  check(b->mul(x, splatLike(x, (1.0 / std::numbers::sqrt2)))));
  } else {
    fail("approximate='" + approximate + "' is not supported");
  }
  return {check(b->mul(check(b->mul(x, check(b->add(inner, one)))), half))};
}

std::vector<TensorId> Importer::lowerIsInf() {
  TensorId x = in(0);
  bool neg = attrInt("detect_negative", 1) != 0,
       pos = attrInt("detect_positive", 1) != 0;
  double inf = std::numeric_limits<double>::infinity();
  TensorId r = kInvalidTensor;
  if (pos)
    r = check(b->compare(ComparePredicate::Eq, x, splatLike(x, inf)));
  if (neg) {
    TensorId n = check(b->compare(ComparePredicate::Eq, x, splatLike(x, -inf)));
    r = r == kInvalidTensor ? n : check(b->binary(OpKind::Or, r, n));
  }
  if (r == kInvalidTensor)
    r = splat(TensorType{ElementType::I1, shapeOf(x)}, 0);
  return {r};
}

std::vector<TensorId> Importer::lowerClip() {
  TensorId x = in(0);
  std::optional<TensorId> lo, hi;
  if (opset < 11) {
    double mn = attrFloat("min", -std::numeric_limits<double>::infinity());
    double mx = attrFloat("max", std::numeric_limits<double>::infinity());
    if (std::isfinite(mn))
      lo = splatLike(x, mn);
    if (std::isfinite(mx))
      hi = splatLike(x, mx);
  } else {
    if (hasInput(1))
      lo = expandTo(in(1), shapeOf(x));
    if (hasInput(2))
      hi = expandTo(in(2), shapeOf(x));
  }
  if (lo)
    x = check(b->max(x, *lo));
  if (hi)
    x = check(b->min(x, *hi));
  return {x};
}

std::vector<TensorId> Importer::lowerWhere() {
  TensorId c = in(0), x = in(1), y = in(2);
  Shape shape =
      broadcastShape(broadcastShape(shapeOf(c), shapeOf(x)), shapeOf(y));
  // One statement each: as arguments of one call, the broadcasts' order
  // (and so the graph's op order and its hash) would be the compiler's.
  TensorId ye = expandTo(y, shape);
  TensorId xe = expandTo(x, shape);
  TensorId ce = expandTo(c, shape);
  return {check(b->select(ce, xe, ye))};
}

/// Cast and CastLike.
std::vector<TensorId> Importer::lowerCast() {
  const std::string &op = node->op_type();
  TensorId x = in(0);
  ElementType to;
  if (op == "Cast") {
    const onnx::AttributeProto *a = attr("to");
    if (!a)
      fail("attribute 'to' is required");
    int type = int(a->i());
    // Cast-1 names the type in a string.
    if (a->type() == onnx::AttributeProto::STRING) {
      onnx::TensorProto_DataType parsed;
      if (!onnx::TensorProto_DataType_Parse(a->s(), &parsed))
        fail("attribute 'to' names no ONNX type: '" + a->s() + "'");
      type = int(parsed);
    }
    to = requireType(type, "the target of Cast");
  } else {
    to = inType(1).elementType;
  }
  // Cast-19 `saturate` (default 1) and Cast-24 `round_mode` (default
  // "up") apply to the f8 targets (round_mode to FLOAT8E8M0 only); ONNX
  // ignores them for the others.
  CastOptions options;
  const bool saturate = attrInt("saturate", 1) != 0;
  options.saturate =
      saturate && isLowPrecisionFloat(to) && to != ElementType::F4E2M1FN;
  const std::string roundMode = attrString("round_mode", "up");
  std::optional<E8M0RoundMode> mode = parseRoundMode(roundMode);
  if (!mode)
    fail("attribute 'round_mode' is '" + roundMode +
         "', expected up, down or nearest");
  if (to == ElementType::F8E8M0FNU)
    options.roundMode = *mode;
  if (elemOf(x) == to)
    return {x};
  // In a symbolic import a splat stays one (through a double: exact for
  // every value but 64-bit integers past 2^53, which are left to the cast),
  // so that no kernel is made of it (a broadcast of symbolic shape).
  if (auto it = splats.find(x); it != splats.end() &&
                                this->options.symbolicDims &&
                                !isLowPrecisionFloat(to)) {
    HostTensorData element(TensorType{elemOf(x), {}});
    element.bytes = it->second;
    double value = element.toDoubles()[0];
    if (std::fabs(value) < 9007199254740992.0)
      return {splat(TensorType{to, shapeOf(x)}, value)};
  }
  TensorId y = check(b->cast(x, to, /*isUnsigned=*/false, options));
  // Index arithmetic keeps its form in a 32- or 64-bit integer (positions
  // and dims are far below 2^31).
  if (isInteger(to) && integerBitWidth(to) >= 32 && !isUnsignedInteger(to))
    carryAffine(x, y, /*broadcast=*/false);
  return {y};
}

std::vector<TensorId> Importer::lowerMatMul() {
  TensorId c = in(1);
  return {matmul(in(0), c)};
}

std::vector<TensorId> Importer::lowerGemm() {
  TensorId a = in(0), c = in(1);
  bool ta = attrInt("transA", 0) != 0, tb = attrInt("transB", 0) != 0;
  double alpha = attrFloat("alpha", 1.0), beta = attrFloat("beta", 1.0);
  attrInt("broadcast", 0);
  if (typeOf(a).rank() != 2 || typeOf(c).rank() != 2)
    fail("A and B must have rank 2");
  TensorId y = check(b->matmul(a, c, ta, tb));
  if (alpha != 1.0)
    y = check(b->mul(y, splatLike(y, alpha)));
  if (hasInput(2) && beta != 0.0) {
    TensorId bias = expandTo(in(2), shapeOf(y));
    if (beta != 1.0)
      bias = check(b->mul(bias, splatLike(bias, beta)));
    y = check(b->add(y, bias));
  }
  return {y};
}

/// Softmax and LogSoftmax.
std::vector<TensorId> Importer::lowerSoftmax() {
  const std::string &op = node->op_type();
  TensorId x = in(0);
  bool log = op == "LogSoftmax";
  std::int64_t rank = typeOf(x).rank();
  if (opset >= 13)
    return {softmax(x, attrInt("axis", -1), log)};
  // Before opset 13: the input is coerced to 2-D at `axis`.
  std::int64_t axis = attrInt("axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    fail("axis out of range");
  Shape shape = shapeOf(x);
  TensorId flat = reshape(x, coercedTo2d(shape, axis));
  return {reshape(softmax(flat, 1, log), shape)};
}

std::vector<TensorId> Importer::lowerLayerNormalization() {
  TensorId x = in(0);
  std::int64_t rank = typeOf(x).rank();
  std::int64_t axis = normAxis(attrInt("axis", -1), rank);
  double eps = attrFloat("epsilon", 1e-5);
  // As ONNX's function: the statistics and the normalization in the
  // stash type (f32 by default), then scale and bias in the input's type;
  // Mean and InvStdDev are of the stash type.
  ElementType stash = requireType(int(attrInt("stash_type", 1)), "stash_type");
  ElementType type = elemOf(x);
  if (!isFloat(stash))
    fail("stash_type must be a float type");
  if (isFloat(type) && stash != type)
    x = check(b->cast(x, stash));
  Shape shape = shapeOf(x);
  std::vector<std::int64_t> axes;
  for (std::int64_t i = axis; i < rank; ++i)
    axes.push_back(i);
  TensorId mean = reduce(ReduceKind::Mean, x, axes, true);
  TensorId d = check(b->sub(x, expandTo(mean, shape)));
  TensorId var = reduce(ReduceKind::Mean, check(b->mul(d, d)), axes, true);
  TensorId rstd = unary(OpKind::Rsqrt, check(b->add(var, splatLike(var, eps))));
  TensorId y = check(b->mul(d, expandTo(rstd, shape)));
  if (elemOf(y) != type)
    y = check(b->cast(y, type));
  y = check(b->mul(y, expandTo(in(1), shape)));
  if (hasInput(2))
    y = check(b->add(y, expandTo(in(2), shape)));
  return {y, mean, rstd};
}

std::vector<TensorId> Importer::lowerBatchNormalization() {
  TensorId x = in(0);
  bool training = attrInt("training_mode", 0) != 0;
  attrInt("is_test", 1);
  attrInt("spatial", 1);
  double momentum = attrFloat("momentum", 0.9);
  double eps = attrFloat("epsilon", 1e-5);
  if (!training)
    for (int i = 1; i < node->output_size(); ++i)
      if (!node->output(i).empty())
        fail("the training outputs (output " + std::to_string(i) +
             ") are not supported outside training_mode");
  Shape shape = shapeOf(x);
  if (shape.size() < 2)
    fail("the input must have rank >= 2");
  auto channel = [&](TensorId p) {
    if (typeOf(p).rank() != 1)
      fail("scale, B, mean and var must have rank 1");
    return check(b->broadcast(p, shape, {1}));
  };
  TensorId scale = in(1), bias = in(2), mean = in(3), var = in(4);
  if (training) {
    // Normalized with the batch's statistics (biased variance); the
    // running statistics are updated with `momentum`.
    std::vector<std::int64_t> axes;
    for (std::int64_t i = 0; i < std::int64_t(shape.size()); ++i)
      if (i != 1)
        axes.push_back(i);
    TensorId batchMean = reduce(ReduceKind::Mean, x, axes, false);
    TensorId d = check(b->sub(x, channel(batchMean)));
    TensorId batchVar =
        reduce(ReduceKind::Mean, check(b->mul(d, d)), axes, false);
    TensorId factor = check(b->mul(
        scale, unary(OpKind::Rsqrt,
                     check(b->add(batchVar, splatLike(batchVar, eps))))));
    TensorId shift = channel(bias);
    TensorId y = check(b->add(check(b->mul(d, channel(factor))), shift));
    auto update = [&](TensorId running, TensorId batch) {
      TensorId fromBatch = check(b->mul(batch, splatLike(batch, 1 - momentum)));
      TensorId kept = check(b->mul(running, splatLike(running, momentum)));
      return check(b->add(kept, fromBatch));
    };
    return {y, update(mean, batchMean), update(var, batchVar)};
  }
  TensorId factor = check(b->mul(
      scale, unary(OpKind::Rsqrt, check(b->add(var, splatLike(var, eps))))));
  TensorId y = check(b->sub(x, channel(mean)));
  y = check(b->mul(y, channel(factor)));
  return {check(b->add(y, channel(bias)))};
}

/// InstanceNormalization and MeanVarianceNormalization.
std::vector<TensorId> Importer::lowerInstanceNormalization() {
  const std::string &op = node->op_type();
  TensorId x = in(0);
  Shape shape = shapeOf(x);
  std::int64_t rank = std::int64_t(shape.size());
  std::vector<std::int64_t> axes;
  if (op == "InstanceNormalization") {
    for (std::int64_t i = 2; i < rank; ++i)
      axes.push_back(i);
  } else {
    axes = attrInts("axes").value_or(std::vector<std::int64_t>{0, 2, 3});
    for (std::int64_t &a : axes)
      a = normAxis(a, rank);
  }
  TensorId mean = reduce(ReduceKind::Mean, x, axes, true);
  TensorId d = check(b->sub(x, expandTo(mean, shape)));
  if (op == "MeanVarianceNormalization") {
    // As ONNX's function: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9).
    TensorId ex2 = reduce(ReduceKind::Mean, check(b->mul(x, x)), axes, true);
    TensorId var = check(b->sub(ex2, check(b->mul(mean, mean))));
    TensorId tiny = splatLike(var, 1e-9);
    TensorId sd = check(b->add(unary(OpKind::Sqrt, var), tiny));
    return {check(b->div(d, expandTo(sd, shape)))};
  }
  double eps = attrFloat("epsilon", 1e-5);
  TensorId var = reduce(ReduceKind::Mean, check(b->mul(d, d)), axes, true);
  TensorId rstd = unary(OpKind::Rsqrt, check(b->add(var, splatLike(var, eps))));
  TensorId y = check(b->mul(d, expandTo(rstd, shape)));
  y = check(b->mul(y, check(b->broadcast(in(1), shape, {1}))));
  return {check(b->add(y, check(b->broadcast(in(2), shape, {1}))))};
}

/// ArgMax and ArgMin.
std::vector<TensorId> Importer::lowerArgMax() {
  const std::string &op = node->op_type();
  TensorId x = in(0);
  std::int64_t axis = normAxis(attrInt("axis", 0), typeOf(x).rank());
  bool keep = attrInt("keepdims", 1) != 0;
  bool last = attrInt("select_last_index", 0) != 0;
  return {op == "ArgMax" ? check(b->argmax(x, axis, keep, last))
                         : check(b->argmin(x, axis, keep, last))};
}

/// TopK with K known at import and at most 256, in K rounds along the axis:
/// the best value among the positions not yet taken (a max or min
/// reduction, the taken ones masked with the type's lowest or highest
/// value), then the first untaken position holding it (equal values in
/// index order, as ONNX orders them; a NaN ranks first). Values and indices
/// come out in order, which `sorted` 0 allows too.
std::vector<TensorId> Importer::lowerTopK() {
  TensorId x = in(0);
  const Shape shape = shapeOf(x);
  if (shape.empty() || !typeOf(x).isStatic())
    fail("the input is " + dimsText(shape) +
         "; TopK takes a static tensor of rank >= 1");
  const std::int64_t axis =
      normAxis(attrInt("axis", -1), std::int64_t(shape.size()));
  const bool largest = attrInt("largest", 1) != 0;
  attrInt("sorted", 1);
  std::vector<std::int64_t> ks = intsIn(1, "K");
  if (ks.size() != 1)
    fail("K (input 1) must hold one value");
  const std::int64_t k = ks[0], n = shape[std::size_t(axis)];
  if (k < 0 || k > n)
    fail("K = " + std::to_string(k) + " is outside [0, " + std::to_string(n) +
         "] (the axis's size)");
  constexpr std::int64_t kMaxTopK = 256;
  if (k > kMaxTopK)
    fail("K = " + std::to_string(k) +
         ": TopK takes K rounds of ArgMax, for K " + "at most " +
         std::to_string(kMaxTopK));
  const ElementType type = elemOf(x);
  Shape out = shape;
  out[std::size_t(axis)] = k;
  if (k == 0)
    return {splat({type, out}, 0), splat({ElementType::I64, out}, 0)};
  // The value that never wins a later round.
  const double masked =
      isFloat(type) ? (largest ? -std::numeric_limits<double>::infinity()
                               : std::numeric_limits<double>::infinity())
                    : 0;
  TensorId floor = kInvalidTensor;
  if (isFloat(type)) {
    floor = splatLike(x, masked);
  } else {
    // The integer type's lowest (highest, for the smallest) value.
    const unsigned bits = integerBitWidth(type);
    if (bits == 0 || bits > 64 || byteSize(type) * 8 != std::int64_t(bits))
      fail("TopK of " + std::string(elementTypeName(type)) +
           " is not supported (floats and 8- to 64-bit integers)");
    std::vector<std::uint8_t> bytes(std::size_t(byteSize(type)));
    DenseValue extreme{type, {}, bytes, true};
    if (isUnsignedInteger(type))
      storeUnsigned(type, extreme.bytes.data(), 0,
                    largest ? 0 : ~std::uint64_t(0) >> (64 - bits));
    else
      storeInt(type, extreme.bytes.data(), 0,
               largest ? -(std::int64_t(1) << (bits - 2)) * 2
                       : std::int64_t(~std::uint64_t(0) >> (65 - bits)));
    floor = expandTo(splatBytes(std::move(extreme)), shape);
  }
  TensorId positions = check(b->iota({ElementType::I64, shape}, axis));
  // Per round: the best value among the positions not yet taken, then the
  // first untaken position holding it (a NaN is the best: a reduction
  // propagates it, and it matches itself here).
  TensorId taken = kInvalidTensor;
  std::vector<TensorId> values, indices;
  for (std::int64_t round = 0; round < k; ++round) {
    TensorId left = round == 0 ? x : check(b->select(taken, floor, x));
    TensorId best =
        reduce(largest ? ReduceKind::Max : ReduceKind::Min, left, {axis}, true);
    TensorId spread = expandTo(best, shape);
    TensorId holds = compare(ComparePredicate::Eq, x, spread);
    if (isFloat(type))
      holds = binary(OpKind::Or, holds,
                     binary(OpKind::And, unary(OpKind::IsNaN, x),
                            unary(OpKind::IsNaN, spread)));
    if (round != 0)
      holds = binary(OpKind::And, holds, unary(OpKind::Not, taken));
    TensorId at = check(
        b->argmax(check(b->cast(holds, ElementType::I8)), axis, true, false));
    if (elemOf(at) != ElementType::I64)
      at = check(b->cast(at, ElementType::I64));
    values.push_back(best);
    indices.push_back(at);
    TensorId now =
        compare(ComparePredicate::Eq, positions, expandTo(at, shape));
    taken = round == 0 ? now : binary(OpKind::Or, taken, now);
  }
  return {values.size() == 1 ? values[0] : check(b->concat(values, axis)),
          indices.size() == 1 ? indices[0] : check(b->concat(indices, axis))};
}

/// MaxPool and AveragePool: one pool over the spatial dims (all but N and
/// C), auto_pad resolved into explicit pads.
std::vector<TensorId> Importer::lowerPool() {
  const bool isMax = node->op_type() == "MaxPool";
  if (isMax && node->output_size() > 1 && !node->output(1).empty())
    fail("the Indices output is not supported");
  TensorId x = in(0);
  const Shape shape = shapeOf(x);
  const std::int64_t rank = std::int64_t(shape.size());
  std::optional<std::vector<std::int64_t>> kernel = attrInts("kernel_shape");
  if (!kernel)
    fail("attribute 'kernel_shape' is required");
  const std::int64_t n = std::int64_t(kernel->size());
  if (rank < 3 || n != rank - 2)
    fail("kernel_shape has " + std::to_string(n) +
         " dims, expected the input's spatial rank " +
         std::to_string(std::max<std::int64_t>(rank - 2, 0)) + " (input " +
         typeOf(x).toString() + ")");
  GraphBuilder::PoolWindow w;
  w.window = *kernel;
  w.strides = attrInts("strides").value_or(std::vector<std::int64_t>(n, 1));
  w.dilations = attrInts("dilations").value_or(std::vector<std::int64_t>(n, 1));
  w.pads = attrInts("pads").value_or(std::vector<std::int64_t>(2 * n, 0));
  if (std::int64_t(w.strides.size()) != n ||
      std::int64_t(w.dilations.size()) != n ||
      std::int64_t(w.pads.size()) != 2 * n)
    fail("strides, dilations and pads must have " + std::to_string(n) + ", " +
         std::to_string(n) + " and " + std::to_string(2 * n) + " entries");
  for (std::int64_t d = 0; d < n; ++d)
    if (w.window[d] < 1 || w.strides[d] < 1 || w.dilations[d] < 1)
      fail("kernel_shape, strides and dilations must be >= 1");
  w.ceilMode = attrInt("ceil_mode", 0) != 0;
  w.countIncludePad = !isMax && attrInt("count_include_pad", 0) != 0;
  // The layout of the Indices output, which is refused above: Y is the same
  // either way.
  if (isMax)
    attrInt("storage_order", 0);
  const std::string autoPad = attrString("auto_pad", "NOTSET");
  if (autoPad == "VALID") {
    std::fill(w.pads.begin(), w.pads.end(), 0);
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    // The output is ceil(in / stride); the padding it needs is split evenly,
    // the odd one at the end (SAME_UPPER) or the beginning (SAME_LOWER).
    for (std::int64_t d = 0; d < n; ++d) {
      const std::int64_t total =
          samePadding(shape[2 + d], w.strides[d], w.window[d], w.dilations[d]);
      const std::int64_t small = total / 2, large = total - small;
      w.pads[d] = autoPad == "SAME_UPPER" ? small : large;
      w.pads[n + d] = autoPad == "SAME_UPPER" ? large : small;
    }
    w.ceilMode = false;
  } else if (autoPad != "NOTSET") {
    fail("auto_pad '" + autoPad +
         "' is not one of NOTSET, VALID, SAME_UPPER, SAME_LOWER");
  }
  // A pad as wide as the dilated window puts a whole window in the padding:
  // no element to take the max or mean of (onnxruntime refuses pads that
  // reach the kernel's size).
  for (std::int64_t d = 0; d < 2 * n; ++d) {
    const std::int64_t span =
        dimValue((CheckedInt(w.window[d % n]) - 1) * w.dilations[d % n] + 1,
                 "the dilated window of spatial dim " + std::to_string(d % n));
    if (w.pads[d] < 0 || w.pads[d] >= span)
      fail("attribute 'pads' = " + shapeText(w.pads) + " holds " +
           std::to_string(w.pads[d]) + " for spatial dim " +
           std::to_string(d % n) + ", expected 0 to " +
           std::to_string(span - 1) +
           " (less than the window's extent, so that no window lies wholly "
           "in the padding)");
  }
  return {check(
      b->pool(isMax ? ReduceKind::Max : ReduceKind::Mean, x, std::move(w)))};
}

/// GlobalAveragePool and GlobalMaxPool: a reduction over the spatial dims
/// that keeps them (size 1).
std::vector<TensorId> Importer::lowerGlobalPool() {
  TensorId x = in(0);
  const std::int64_t rank = typeOf(x).rank();
  if (rank < 3)
    fail("the input must have rank >= 3 (N, C and spatial dims), got " +
         typeOf(x).toString());
  std::vector<std::int64_t> dims;
  for (std::int64_t d = 2; d < rank; ++d)
    dims.push_back(d);
  return {reduce(node->op_type() == "GlobalMaxPool" ? ReduceKind::Max
                                                    : ReduceKind::Mean,
                 x, dims, true)};
}

std::vector<TensorId> Importer::lowerReshape() {
  TensorId x = in(0);
  std::vector<std::int64_t> target;
  if (opset < 5) {
    target = attrInts("shape").value_or(std::vector<std::int64_t>{});
  } else {
    target = intsIn(1, "shape");
  }
  bool allowZero = attrInt("allowzero", 0) != 0;
  const Shape &shape = shapeOf(x);
  CheckedInt known = 1;
  std::int64_t inferred = -1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (target[i] == 0 && !allowZero) {
      if (i >= shape.size())
        fail("shape entry " + std::to_string(i) +
             " is 0 (copy) but the input has rank " +
             std::to_string(shape.size()));
      target[i] = shape[i];
    }
    if (target[i] == -1) {
      if (inferred >= 0)
        fail("the shape has more than one -1");
      inferred = std::int64_t(i);
    } else if (target[i] < 0) {
      fail("the shape has a negative entry " + std::to_string(target[i]));
    } else {
      known *= target[i];
    }
  }
  std::int64_t count = typeOf(x).numElements();
  if (inferred >= 0) {
    // The known entries' product may overflow: 4 x (2^62 + 1) wrapped to 4,
    // and the -1 was inferred from it.
    std::optional<std::int64_t> product = known.get();
    if (!product || *product == 0 || count % *product)
      fail("cannot reshape " + shapeText(shape) + " to " + shapeText(target));
    target[inferred] = count / *product;
  } else if (std::optional<std::int64_t> product = known.get();
             !product || *product != count) {
    // Said here, not by the verifier of the graph's reshape ('result type
    // tensor<6xf32> has 6 elements, expected 0').
    fail("cannot reshape " + shapeText(shape) + " to " + shapeText(target) +
         ": they hold different numbers of elements");
  }
  return {reshape(x, target)};
}

std::vector<TensorId> Importer::lowerFlatten() {
  TensorId x = in(0);
  const Shape shape = shapeOf(x);
  std::int64_t rank = std::int64_t(shape.size());
  std::int64_t axis = attrInt("axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    fail("axis out of range");
  return {reshape(x, coercedTo2d(shape, axis))};
}

std::vector<TensorId> Importer::lowerTranspose() {
  TensorId x = in(0);
  std::int64_t rank = typeOf(x).rank();
  std::vector<std::int64_t> perm(rank);
  std::iota(perm.rbegin(), perm.rend(), 0);
  if (auto p = attrInts("perm"))
    perm = *p;
  bool identity = true;
  for (std::size_t i = 0; i < perm.size(); ++i)
    identity &= perm[i] == std::int64_t(i);
  if (identity && std::int64_t(perm.size()) == rank)
    return {x};
  return {check(b->transpose(x, perm))};
}

/// Squeeze and Unsqueeze.
std::vector<TensorId> Importer::lowerSqueeze() {
  const std::string &op = node->op_type();
  TensorId x = in(0);
  Shape shape = shapeOf(x);
  std::optional<std::vector<std::int64_t>> axes;
  if (opset >= 13) {
    if (hasInput(1))
      axes = intsIn(1, "axes");
  } else {
    axes = attrInts("axes");
  }
  if (op == "Squeeze") {
    std::int64_t rank = std::int64_t(shape.size());
    std::set<std::int64_t> drop;
    if (axes)
      for (std::int64_t a : *axes) {
        a = normAxis(a, rank);
        if (shape[a] != 1)
          fail("cannot squeeze dimension " + std::to_string(a) + " of " +
               shapeText(shape) + ": it is not 1");
        drop.insert(a);
      }
    Shape out;
    for (std::int64_t i = 0; i < rank; ++i)
      if (axes ? !drop.count(i) : shape[i] != 1)
        out.push_back(shape[i]);
    return {reshape(x, out)};
  }
  if (!axes)
    fail("axes are required");
  std::int64_t rank = std::int64_t(shape.size() + axes->size());
  std::set<std::int64_t> add;
  for (std::int64_t a : *axes)
    if (!add.insert(normAxis(a, rank)).second)
      fail("axes repeat " + std::to_string(a));
  Shape out;
  std::size_t next = 0;
  for (std::int64_t i = 0; i < rank; ++i)
    out.push_back(add.count(i) ? 1 : shape[next++]);
  return {reshape(x, out)};
}

std::vector<TensorId> Importer::lowerExpand() {
  TensorId x = in(0);
  std::vector<std::int64_t> target = intsIn(1, "shape");
  // Unlike Reshape's, Expand's shape has no -1: every entry is a size.
  for (std::size_t i = 0; i < target.size(); ++i)
    if (target[i] < 0)
      fail("the shape input " + shapeText(target) + " holds " +
           std::to_string(target[i]) + " at index " + std::to_string(i) +
           ": Expand's sizes are at least 0 (no -1 as in Reshape)");
  return {expandTo(x, broadcastShape(shapeOf(x), target))};
}

/// Tile (opset 6+): the input repeated `repeats[d]` times along each dim d
/// (known at import): broadcast to [r0, d0, r1, d1, ...] with the input's
/// dims at the odd positions, then reshaped to [r0 d0, r1 d1, ...], so that
/// element i of a dim reads i mod d. An index map: a grouped-query
/// attention whose K and V heads are repeated by Tile reads them in place.
std::vector<TensorId> Importer::lowerTile() {
  if (opset < 6)
    fail("opset " + std::to_string(opset) +
         " (tiles and axis as inputs) is not supported; opset 6 and later "
         "take repeats");
  TensorId x = in(0);
  const Shape shape = shapeOf(x);
  std::vector<std::int64_t> repeats = intsIn(1, "repeats");
  if (repeats.size() != shape.size())
    fail("repeats has " + std::to_string(repeats.size()) +
         " values; the input " + shapeText(shape) + " has rank " +
         std::to_string(shape.size()));
  Shape spread, tiled, dims;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (repeats[d] < 0)
      fail("repeats " + shapeText(repeats) + " holds " +
           std::to_string(repeats[d]) + " at index " + std::to_string(d) +
           ": a repeat count is at least 0");
    spread.push_back(repeats[d]);
    spread.push_back(shape[d]);
    dims.push_back(std::int64_t(2 * d + 1));
  }
  checkedCount(spread, "the tiled result");
  for (std::size_t d = 0; d < shape.size(); ++d)
    tiled.push_back(
        dimValue(CheckedInt(repeats[d]) * shape[d], "a tiled dimension"));
  if (tiled == shape)
    return {x};
  return {reshape(check(b->broadcast(x, spread, dims)), tiled)};
}

std::vector<TensorId> Importer::lowerConcat() {
  const Shape first = inType(0).shape;
  std::int64_t rank = std::int64_t(first.size());
  std::int64_t axis = normAxis(attrInt("axis", opset < 4 ? 1 : 0), rank);
  std::vector<TensorId> xs;
  for (int i = 0; i < numInputs(); ++i) {
    if (!hasInput(i))
      continue;
    // Every input, empty or not, agrees with the first in rank and in the
    // dims off the axis; only then may an empty one be left out.
    const Shape shape = inType(i).shape;
    bool agrees = shape.size() == first.size();
    for (std::int64_t d = 0; agrees && d < rank; ++d)
      agrees = d == axis || shape[d] == first[d];
    if (!agrees)
      fail("input " + std::to_string(i) + " of shape " + shapeText(shape) +
           " cannot be concatenated with input 0 of shape " + shapeText(first) +
           " along axis " + std::to_string(axis));
    if (shape[axis] != 0 || numInputs() == 1)
      xs.push_back(in(i));
  }
  if (xs.empty())
    xs.push_back(in(0));
  if (xs.size() == 1)
    return {xs[0]};
  return {check(b->concat(xs, axis))};
}

std::vector<TensorId> Importer::lowerSplit() {
  TensorId x = in(0);
  Shape shape = shapeOf(x);
  std::int64_t axis = normAxis(attrInt("axis", 0), std::int64_t(shape.size()));
  std::vector<std::int64_t> sizes;
  int outputs = node->output_size();
  if (opset >= 13 && hasInput(1)) {
    sizes = intsIn(1, "split");
  } else if (auto s = attrInts("split")) {
    sizes = *s;
  } else {
    std::int64_t n = attrInt("num_outputs", outputs);
    // Before the parts are made: num_outputs = INT64_MAX made that many.
    if (n != outputs)
      fail("num_outputs is " + std::to_string(n) + ", expected " +
           std::to_string(outputs) + " (the node's outputs)");
    std::int64_t each = dimValue((CheckedInt(shape[axis]) + n - 1) / n,
                                 "the split's part size");
    CheckedInt left = shape[axis];
    for (std::int64_t i = 0; i < n; ++i) {
      sizes.push_back(std::min(each, dimValue(left, "the split's rest")));
      left -= sizes.back();
    }
  }
  if (std::int64_t(sizes.size()) != outputs)
    fail("split gives " + std::to_string(sizes.size()) + " parts for " +
         std::to_string(outputs) + " outputs");
  std::vector<TensorId> parts;
  std::int64_t offset = 0;
  for (std::int64_t size : sizes) {
    // Checked: a size of INT64_MAX after the first part wrapped the end.
    std::optional<std::int64_t> end = (CheckedInt(offset) + size).get();
    if (size < 0 || !end || *end > shape[axis])
      fail("the split sizes exceed dimension " + std::to_string(axis));
    parts.push_back(sliceAxis(x, axis, offset, size));
    offset = *end;
  }
  if (offset != shape[axis])
    fail("the split sizes do not add up to dimension " + std::to_string(axis));
  return parts;
}

std::vector<TensorId> Importer::lowerSlice() {
  TensorId x = in(0);
  Shape shape = shapeOf(x);
  std::int64_t rank = std::int64_t(shape.size());
  std::vector<std::int64_t> starts, ends, axes, steps;
  if (opset < 10) {
    starts = attrInts("starts").value_or(std::vector<std::int64_t>{});
    ends = attrInts("ends").value_or(std::vector<std::int64_t>{});
    axes = attrInts("axes").value_or(std::vector<std::int64_t>{});
  } else {
    starts = intsIn(1, "starts");
    ends = intsIn(2, "ends");
    if (hasInput(3))
      axes = intsIn(3, "axes");
    if (hasInput(4))
      steps = intsIn(4, "steps");
  }
  if (ends.size() != starts.size())
    fail("starts and ends differ in length");
  if (axes.empty())
    for (std::size_t i = 0; i < starts.size(); ++i)
      axes.push_back(std::int64_t(i));
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    fail("starts, ends, axes and steps differ in length");
  Shape offsets(rank, 0), sizes = shape, strides(rank, 1);
  std::vector<std::int64_t> reversed;
  std::set<std::int64_t> sliced;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    std::int64_t axis = normAxis(axes[i], rank), dim = shape[axis];
    // ONNX leaves a repeated axis undefined (onnxruntime refuses it); the
    // second slice of an axis would replace the first here.
    if (!sliced.insert(axis).second)
      fail("axes repeat " + std::to_string(axes[i]));
    std::int64_t step = steps[i], start = starts[i], end = ends[i];
    if (step == 0)
      fail("a step is 0");
    // Counted with CheckedInt for every step, INT64_MIN and INT64_MAX
    // included: after clamping, the distances are below `dim`, and a
    // negative step divides without being negated (-INT64_MIN overflows).
    const std::string what = "slice of axis " + std::to_string(axis) +
                             " (start " + std::to_string(starts[i]) + ", end " +
                             std::to_string(ends[i]) + ", step " +
                             std::to_string(step) + ")";
    if (start < 0)
      start = dimValue(CheckedInt(start) + dim, what);
    if (end < 0)
      end = dimValue(CheckedInt(end) + dim, what);
    std::int64_t size;
    if (dim == 0) {
      // Nothing to take, whichever way (clamping to [0, dim - 1] has no
      // range).
      size = 0;
    } else if (step > 0) {
      start = std::clamp<std::int64_t>(start, 0, dim);
      end = std::clamp<std::int64_t>(end, 0, dim);
      size = end > start
                 ? dimValue((CheckedInt(end) - start - 1) / step + 1, what)
                 : 0;
      offsets[axis] = start;
    } else {
      const std::int64_t last = dimValue(CheckedInt(dim) - 1, what);
      start = std::clamp<std::int64_t>(start, 0, last);
      end = std::clamp<std::int64_t>(end, -1, last);
      // (start - end - 1) / step truncates toward 0: minus the count of
      // whole steps.
      size =
          start > end
              ? dimValue(CheckedInt(1) - (CheckedInt(start) - end - 1) / step,
                         what)
              : 0;
      offsets[axis] =
          size ? dimValue(CheckedInt(start) + (CheckedInt(size) - 1) * step,
                          what)
               : 0;
      if (size > 1)
        reversed.push_back(axis);
    }
    sizes[axis] = size;
    // A stride matters only where more than one element is taken, and then
    // the step's magnitude is below the dim.
    strides[axis] =
        size > 1
            ? dimValue(step > 0 ? CheckedInt(step) : -CheckedInt(step), what)
            : 1;
  }
  TensorId y = check(b->slice(x, offsets, sizes, strides));
  for (std::int64_t axis : reversed)
    y = reverseAxis(y, axis);
  return {y};
}

/// Gather: constant indices that form a rising progression are one strided
/// slice (which fuses anywhere, and reads nothing but its data); every other
/// Gather is a `gather` op with the indices as a run-time tensor (a model
/// input, a computed value or a constant), so that new token ids reuse the
/// compiled model.
Importer::GatherOperands Importer::gatherOperands(bool hasAxis) {
  GatherOperands g;
  g.data = in(0);
  g.shape = shapeOf(g.data);
  g.rank = std::int64_t(g.shape.size());
  if (hasAxis) {
    if (g.rank == 0)
      fail("the data (input 0) is a scalar; " + node->op_type() +
           " needs rank >= 1");
    g.axis = normAxis(attrInt("axis", 0), g.rank);
  }
  g.indexType = inType(1);
  if (g.indexType.elementType != ElementType::I32 &&
      g.indexType.elementType != ElementType::I64)
    fail("the indices (input 1) are " +
         std::string(elementTypeName(g.indexType.elementType)) +
         ", expected int32 or int64");
  return g;
}

/// A constant of `shape` holding `ints` (as `elementType`), named after the
/// node and `suffix`.
TensorId Importer::intsConstant(const std::string &suffix, Shape shape,
                                std::span<const std::int64_t> ints,
                                ElementType elementType) {
  Value value;
  value.type = TensorType{elementType, std::move(shape)};
  value.constant = shared(HostTensorData::fromInts(value.type, ints));
  return materialize(node->name() + "/" + suffix, value);
}

/// GatherElements' and ScatterElements' indices: the data's rank, and no
/// larger than the data in a dim other than the axis.
void Importer::checkElementIndices(const GatherOperands &g) {
  const Shape &shape = g.shape;
  const Shape &ishape = g.indexType.shape;
  if (std::int64_t(ishape.size()) != g.rank)
    fail("the indices (input 1) " + shapeText(ishape) + " and the data " +
         shapeText(shape) + " differ in rank");
  for (std::int64_t d = 0; d < g.rank; ++d)
    if (d != g.axis && ishape[std::size_t(d)] > shape[std::size_t(d)])
      fail("the indices " + shapeText(ishape) + " are larger than the data " +
           shapeText(shape) + " in dimension " + std::to_string(d) +
           " (not the axis)");
}

Importer::ElementOffsets Importer::elementOffsets(const GatherOperands &g) {
  const Shape &shape = g.shape;
  const Shape &ishape = g.indexType.shape;
  const std::int64_t rank = g.rank, axis = g.axis;
  ElementOffsets at;
  at.total = checkedCount(shape, "the data");
  std::int64_t count = checkedCount(ishape, "the indices");
  std::vector<std::int64_t> strides(std::size_t(rank), 1);
  for (std::int64_t d = rank - 2; d >= 0; --d)
    strides[std::size_t(d)] = dimValue(
        CheckedInt(strides[std::size_t(d + 1)]) * shape[std::size_t(d + 1)],
        "the stride of dim " + std::to_string(d) + " of " + shapeText(shape));
  at.offsets.assign(std::size_t(count), 0);
  for (std::int64_t i = 0; i < count; ++i) {
    std::int64_t rest = i;
    for (std::int64_t d = rank - 1; d >= 0; --d) {
      std::int64_t coordinate = rest % ishape[std::size_t(d)];
      rest /= ishape[std::size_t(d)];
      if (d != axis)
        at.offsets[std::size_t(i)] += coordinate * strides[std::size_t(d)];
    }
  }
  at.dim = shape[std::size_t(axis)];
  at.step = strides[std::size_t(axis)];
  return at;
}

/// The constant indices (input 1) checked against the axis and added,
/// wrapped and scaled by its stride, to `at.offsets`: the flat offsets
/// themselves.
void Importer::addConstantIndices(const GatherOperands &g, ElementOffsets &at) {
  std::vector<std::int64_t> indices = toInts(*inputValue(1).constant);
  const std::int64_t dim = at.dim;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    std::int64_t index = indices[i];
    if (index < -dim || index >= dim)
      fail("index " + std::to_string(index) + " (element " + std::to_string(i) +
           " of the indices) is out of range for " + "dimension " +
           std::to_string(g.axis) + " of " + shapeText(g.shape));
    at.offsets[i] += (index < 0 ? index + dim : index) * at.step;
  }
}

/// The constant index tuples (input 1; the values of `indexed`, the data's
/// dims from `firstDim`) checked and added to `positions`, one per tuple:
/// the sum of each wrapped value times its stride.
void Importer::addConstantTuples(const Shape &indexed,
                                 const std::vector<std::int64_t> &strides,
                                 std::int64_t firstDim, const Shape &dataShape,
                                 std::vector<std::int64_t> &positions) {
  std::vector<std::int64_t> indices = toInts(*inputValue(1).constant);
  const std::int64_t k = std::int64_t(indexed.size());
  for (std::int64_t t = 0; t < std::int64_t(positions.size()); ++t)
    for (std::int64_t j = 0; j < k; ++j) {
      std::int64_t index = indices[std::size_t(t * k + j)];
      std::int64_t dim = indexed[std::size_t(j)];
      if (index < -dim || index >= dim)
        fail("index " + std::to_string(index) + " (element " +
             std::to_string(t * k + j) + " of the indices) is out of " +
             "range for dimension " + std::to_string(firstDim + j) + " of " +
             shapeText(dataShape));
      positions[std::size_t(t)] +=
          (index < 0 ? index + dim : index) * strides[std::size_t(j)];
    }
}

std::vector<TensorId> Importer::lowerGather() {
  const GatherOperands g = gatherOperands(/*hasAxis=*/true);
  const TensorId x = g.data;
  const Shape &shape = g.shape;
  const std::int64_t axis = g.axis;
  const TensorType &indexType = g.indexType;
  Shape out(shape.begin(), shape.begin() + axis);
  out.insert(out.end(), indexType.shape.begin(), indexType.shape.end());
  out.insert(out.end(), shape.begin() + axis + 1, shape.end());
  if (const std::shared_ptr<const HostTensorData> &constant =
          inputValue(1).constant) {
    std::vector<std::int64_t> indices = toInts(*constant);
    for (std::int64_t &index : indices) {
      const std::optional<std::int64_t> wrapped =
          (index < 0 ? CheckedInt(index) + shape[axis] : CheckedInt(index))
              .get();
      if (!wrapped || *wrapped < 0 || *wrapped >= shape[axis])
        fail("index " + std::to_string(index) + " is out of range for " +
             "dimension " + std::to_string(axis) + " of " + shapeText(shape));
      index = *wrapped;
    }
    std::int64_t step = indices.size() > 1 ? indices[1] - indices[0] : 1;
    bool progression = !indices.empty() && step > 0;
    for (std::size_t i = 1; i < indices.size() && progression; ++i)
      progression = indices[i] - indices[i - 1] == step;
    if (progression)
      return {reshape(
          sliceAxis(x, axis, indices[0], std::int64_t(indices.size()), step),
          out)};
  }
  if (std::optional<TensorId> same = splatAs(x, out))
    return {*same};
  TensorId indices = in(1);
  // Indices that count up by one from a start >= 0 (a Range over a
  // symbolic dim): a slice of `count` entries of the axis, checked inside
  // it when the dims are bound, as the gather checks its indices.
  if (auto it = counting.find(indices);
      it != counting.end() && it->second >= 0 && shape[axis] >= 0) {
    std::int64_t count = 1;
    for (std::int64_t dim : indexType.shape)
      if (dim != 1)
        count = dim;
    return {reshape(sliceAxis(x, axis, it->second, count), out)};
  }
  // Indices that enumerate the axis in order (a mask read at
  // batch_idx * sequence + kv_idx from its flattened rows): the data
  // reshaped.
  if (enumeratesInOrder(indices, shape[axis]))
    return {reshape(x, out)};
  return {check(b->gather(x, indices, axis))};
}

/// GatherElements: out[p] = data[p with p[axis] replaced by indices[p]].
/// A `gather` along axis 0 of the flattened data, at each output position's
/// flat offset: the offsets of the other dims are a constant (computed here),
/// the axis's comes from the index. Constant indices are checked and become
/// the flat offsets themselves; run-time ones are wrapped (negative from the
/// end, as ONNX says) by ops, and one outside [-dim, dim) becomes an offset
/// past the data, which the gather's own checks refuse (the compiled
/// kernels' error record, the reference runtime), never another element of
/// the data.
/// Most positions along a GatherElements axis for which run-time indices are
/// checked by a gather of the axis' positions (a constant of that many
/// i64), so that an error names the index and the axis; past it they are
/// wrapped by ops and an index out of range reads past the flattened data,
/// which the gather reports as a flat offset.
constexpr std::int64_t kCheckedAxisPositions = std::int64_t(1) << 16;

std::vector<TensorId> Importer::lowerGatherElements() {
  const GatherOperands g = gatherOperands(/*hasAxis=*/true);
  const TensorId x = g.data;
  const TensorType &indexType = g.indexType;
  const Shape &out = indexType.shape;
  checkElementIndices(g);
  ElementOffsets at = elementOffsets(g);
  const std::int64_t total = at.total, dim = at.dim, step = at.step;
  std::optional<TensorId> same = splatAs(x, out);
  TensorId flat = same ? kInvalidTensor : reshape(x, {total});
  if (inputValue(1).constant) {
    addConstantIndices(g, at);
    if (same)
      return {*same};
    return {
        check(b->gather(flat, intsConstant("offsets", out, at.offsets), 0))};
  }
  if (same)
    return {*same};
  TensorId index = in(1);
  if (indexType.elementType != ElementType::I64)
    index = check(b->cast(index, ElementType::I64));
  auto i64 = [&](std::int64_t v) {
    DenseValue dense{ElementType::I64, out, std::vector<std::uint8_t>(8), true};
    storeInt(ElementType::I64, dense.bytes.data(), 0, v);
    return splatBytes(std::move(dense));
  };
  TensorId offsets = intsConstant("offsets", out, at.offsets);
  if (dim <= kCheckedAxisPositions) {
    // Each index read through a gather of the axis' positions 0 .. dim - 1:
    // that gather's check reports an index outside [-dim, dim) as the model
    // gave it, with the axis' size (not a flat offset into the data), and
    // yields the index wrapped.
    std::vector<std::int64_t> positions(static_cast<std::size_t>(dim));
    std::iota(positions.begin(), positions.end(), std::int64_t(0));
    TensorId wrapped = check(
        b->gather(intsConstant("axis positions", {dim}, positions), index, 0));
    return {check(b->gather(
        flat,
        binary(OpKind::Add, binary(OpKind::Mul, wrapped, i64(step)), offsets),
        0))};
  }
  TensorId lifted = binary(OpKind::Add, index, i64(dim));
  TensorId wrapped = check(
      b->select(compare(ComparePredicate::Lt, index, i64(0)), lifted, index));
  TensorId position =
      binary(OpKind::Add, binary(OpKind::Mul, wrapped, i64(step)), offsets);
  TensorId belowEnd = compare(ComparePredicate::Lt, index, i64(dim));
  TensorId inRange = binary(
      OpKind::And, compare(ComparePredicate::Ge, index, i64(-dim)), belowEnd);
  return {check(
      b->gather(flat, check(b->select(inRange, position, i64(total))), 0))};
}

/// GatherND: each index tuple (the indices' last dim, k values) selects a
/// slice of the data (its dims after batch_dims + k). A `gather` along axis
/// 0 of the data viewed as [positions, slice]: a tuple's row is its batch's
/// first row plus the sum of its wrapped values times the row strides.
/// Constant indices are checked here and become the rows; run-time ones are
/// wrapped, scaled and summed by ops, and a tuple with a value out of range
/// becomes a row past the data (refused by the gather's checks, as
/// GatherElements does).
std::vector<TensorId> Importer::lowerGatherND() {
  const GatherOperands g = gatherOperands(/*hasAxis=*/false);
  const TensorId x = g.data;
  const Shape &shape = g.shape;
  const std::int64_t rank = g.rank;
  const TensorType &indexType = g.indexType;
  const Shape &ishape = indexType.shape;
  std::int64_t q = std::int64_t(ishape.size());
  std::int64_t batchDims = attrInt("batch_dims", 0);
  if (q < 1 || rank < 1)
    fail("the data and the indices need rank >= 1");
  if (batchDims < 0 || batchDims >= std::min(q, rank))
    fail("batch_dims " + std::to_string(batchDims) +
         " must be below the ranks of the data and the indices");
  std::int64_t k = ishape.back();
  if (k < 1 || k > rank - batchDims)
    fail("the index tuples have " + std::to_string(k) + " values; the data " +
         shapeText(shape) + " with batch_dims " + std::to_string(batchDims) +
         " takes 1 to " + std::to_string(rank - batchDims));
  for (std::int64_t d = 0; d < batchDims; ++d)
    if (ishape[std::size_t(d)] != shape[std::size_t(d)])
      fail("batch dimension " + std::to_string(d) + " differs: data " +
           shapeText(shape) + ", indices " + shapeText(ishape));
  Shape out(ishape.begin(), ishape.end() - 1);
  out.insert(out.end(), shape.begin() + batchDims + k, shape.end());
  checkedCount(out, "the result");
  Shape sliceShape(shape.begin() + batchDims + k, shape.end());
  std::int64_t slice = checkedCount(sliceShape, "a slice");
  std::int64_t batches = checkedCount(
      Shape(shape.begin(), shape.begin() + batchDims), "the batch dims");
  Shape indexed(shape.begin() + batchDims, shape.begin() + batchDims + k);
  std::int64_t block = checkedCount(indexed, "the indexed dims");
  std::vector<std::int64_t> strides(static_cast<std::size_t>(k), 1);
  for (std::int64_t j = k - 2; j >= 0; --j)
    strides[std::size_t(j)] =
        strides[std::size_t(j + 1)] * indexed[std::size_t(j + 1)];
  Shape tupleShape(ishape.begin(), ishape.end() - 1);
  std::int64_t tuples = checkedCount(tupleShape, "the index tuples");
  std::int64_t perBatch = batches ? tuples / batches : 0;
  // Each tuple's batch's first row.
  std::vector<std::int64_t> base(static_cast<std::size_t>(tuples));
  for (std::int64_t t = 0; t < tuples; ++t)
    base[std::size_t(t)] = perBatch ? t / perBatch * block : 0;
  std::int64_t total = batches * block;
  std::optional<TensorId> same = splatAs(x, out);
  TensorId rows = same ? kInvalidTensor : reshape(x, {total, slice});
  TensorId row;
  if (inputValue(1).constant) {
    std::vector<std::int64_t> positions = base;
    addConstantTuples(indexed, strides, batchDims, shape, positions);
    if (same)
      return {*same};
    row = intsConstant("rows", tupleShape, positions);
  } else if (same) {
    return {*same};
  } else {
    TensorId index = in(1);
    if (indexType.elementType != ElementType::I64)
      index = check(b->cast(index, ElementType::I64));
    TensorId dims = expandTo(intsConstant("dims", {k}, indexed), ishape);
    TensorId scale = expandTo(intsConstant("strides", {k}, strides), ishape);
    auto [zero, wrapped, inRange] = wrapIndices(index, dims);
    TensorId outside = reduce(
        ReduceKind::Max, check(b->select(inRange, zero, splatLike(index, 1))),
        {q - 1}, false);
    row = reduce(ReduceKind::Sum, binary(OpKind::Mul, wrapped, scale), {q - 1},
                 false);
    if (batches > 1)
      row = binary(OpKind::Add, row, intsConstant("rows", tupleShape, base));
    DenseValue past{ElementType::I64, tupleShape, std::vector<std::uint8_t>(8),
                    true};
    storeInt(ElementType::I64, past.bytes.data(), 0, total);
    TensorId pastRow = splatBytes(std::move(past));
    row = check(
        b->select(compare(ComparePredicate::Gt, outside, splatLike(outside, 0)),
                  pastRow, row));
  }
  return {reshape(check(b->gather(rows, row, 0)), out)};
}

/// A scatter's `reduction` attribute: none, add, mul (opset 16), max, min
/// (opset 18).
std::string Importer::scatterReduction() {
  std::string reduction = attrString("reduction", "none");
  if (reduction != "none" && reduction != "add" && reduction != "mul" &&
      reduction != "max" && reduction != "min")
    fail("reduction '" + reduction +
         "' is not one of none, add, mul, max, min");
  return reduction;
}

Importer::WrappedIndices Importer::wrapIndices(TensorId index, TensorId dims) {
  TensorId zero = splatLike(index, 0);
  TensorId lifted = binary(OpKind::Add, index, dims);
  TensorId wrapped = check(
      b->select(compare(ComparePredicate::Lt, index, zero), lifted, index));
  TensorId belowEnd = compare(ComparePredicate::Lt, index, dims);
  TensorId inRange = binary(
      OpKind::And,
      compare(ComparePredicate::Ge, index, unary(OpKind::Neg, dims)), belowEnd);
  return {zero, wrapped, inRange};
}

/// Run-time indices (`index`, i64, of `dims`' shape: each index's dim
/// size) as positions: each wrapped when negative and multiplied by its
/// `scale` (per entry of the last dim when `axisOfTuple` is that dim, a
/// tuple summed over it; -1: every entry its own position). A tuple or an
/// index outside its dim becomes `past` (a row past the data, which the
/// scatter's check refuses), never another row.
TensorId Importer::wrappedPositions(TensorId index, const Shape &dims,
                                    const std::vector<std::int64_t> &scale,
                                    std::int64_t axisOfTuple,
                                    std::int64_t past) {
  const Shape shape = shapeOf(index);
  std::vector<std::int64_t> dimValues, scaleValues;
  std::int64_t count = checkedCount(shape, "the indices");
  for (std::int64_t i = 0; i < count; ++i) {
    std::int64_t entry =
        axisOfTuple < 0 ? i : i % shape[std::size_t(axisOfTuple)];
    dimValues.push_back(dims[std::size_t(entry)]);
    scaleValues.push_back(scale[std::size_t(entry)]);
  }
  TensorId dimsOf = intsConstant("dims", shape, dimValues);
  auto [zero, wrapped, inRange] = wrapIndices(index, dimsOf);
  TensorId scaled =
      binary(OpKind::Mul, wrapped, intsConstant("strides", shape, scaleValues));
  TensorId outside = check(b->select(inRange, zero, splatLike(index, 1)));
  if (axisOfTuple >= 0) {
    scaled = reduce(ReduceKind::Sum, scaled, {axisOfTuple}, false);
    outside = reduce(ReduceKind::Max, outside, {axisOfTuple}, false);
  }
  Shape positions = shapeOf(scaled);
  DenseValue pastValue{ElementType::I64, positions,
                       std::vector<std::uint8_t>(8), true};
  storeInt(ElementType::I64, pastValue.bytes.data(), 0, past);
  TensorId pastRow = splatBytes(std::move(pastValue));
  return check(
      b->select(compare(ComparePredicate::Gt, outside, splatLike(outside, 0)),
                pastRow, scaled));
}

/// ScatterND: each index tuple (the indices' last dim, k values) selects a
/// slice of the data (its dims after the first k): a `scatter` into the
/// data viewed as [rows, slice], at each tuple's row (the sum of its
/// wrapped values times the row strides), of the updates viewed as
/// [tuples..., slice]. Constant tuples are checked here; run-time ones are
/// wrapped by ops, and one out of range becomes a row past the data, which
/// the scatter's check refuses (the kernels' error record, the reference
/// runtime). Duplicate tuples: the last in index order wins (reduction
/// none; ONNX leaves it undefined).
std::vector<TensorId> Importer::lowerScatterND() {
  TensorId data = in(0);
  const Shape shape = shapeOf(data);
  const TensorType &indexType = inType(1);
  const Shape &ishape = indexType.shape;
  if (indexType.elementType != ElementType::I64 &&
      indexType.elementType != ElementType::I32)
    fail("the indices (input 1) are " +
         std::string(elementTypeName(indexType.elementType)) +
         ", expected int32 or int64");
  if (shape.empty() || ishape.empty())
    fail("the data and the indices need rank >= 1");
  std::int64_t k = ishape.back();
  if (k < 1 || k > std::int64_t(shape.size()))
    fail("the index tuples have " + std::to_string(k) + " values; the data " +
         shapeText(shape) + " takes 1 to " + std::to_string(shape.size()));
  Shape tupleShape(ishape.begin(), ishape.end() - 1);
  Shape expected = tupleShape;
  expected.insert(expected.end(), shape.begin() + k, shape.end());
  if (shapeOf(in(2)) != expected)
    fail("the updates (input 2) are " + shapeText(shapeOf(in(2))) +
         ", expected " + shapeText(expected) +
         " (the indices' dims but the last, then the data's after the first " +
         std::to_string(k) + ")");
  std::string reduction = scatterReduction();
  Shape indexed(shape.begin(), shape.begin() + k);
  std::int64_t rows = checkedCount(indexed, "the indexed dims");
  std::int64_t slice =
      checkedCount(Shape(shape.begin() + k, shape.end()), "a slice");
  std::vector<std::int64_t> strides(std::size_t(k), 1);
  for (std::int64_t j = k - 2; j >= 0; --j)
    strides[std::size_t(j)] =
        strides[std::size_t(j + 1)] * indexed[std::size_t(j + 1)];
  TensorId row;
  if (inputValue(1).constant) {
    std::int64_t tuples = checkedCount(tupleShape, "the index tuples");
    std::vector<std::int64_t> positions(std::size_t(tuples), 0);
    addConstantTuples(indexed, strides, /*firstDim=*/0, shape, positions);
    row = intsConstant("rows", tupleShape, positions);
  } else {
    TensorId index = in(1);
    if (indexType.elementType != ElementType::I64)
      index = check(b->cast(index, ElementType::I64));
    row = wrappedPositions(index, indexed, strides,
                           std::int64_t(ishape.size()) - 1, rows);
  }
  Shape updatesShape = tupleShape;
  updatesShape.push_back(slice);
  TensorId updates = reshape(in(2), updatesShape);
  TensorId scattered =
      check(b->scatter(reshape(data, {rows, slice}), row, updates, reduction));
  return {reshape(scattered, shape)};
}

/// ScatterElements (and Scatter, its name before opset 11): out[p with
/// p[axis] replaced by indices[p]] = updates[p]:
/// a `scatter` into the flattened data at each update's flat offset (the
/// other dims' offsets a constant, the axis' from the wrapped index).
/// Constant indices are checked here; a run-time one out of range becomes an
/// offset past the data, which the scatter's check refuses.
std::vector<TensorId> Importer::lowerScatterElements() {
  const GatherOperands g = gatherOperands(/*hasAxis=*/true);
  const Shape &ishape = g.indexType.shape;
  checkElementIndices(g);
  if (shapeOf(in(2)) != ishape)
    fail("the updates (input 2) are " + shapeText(shapeOf(in(2))) +
         ", expected the indices' shape " + shapeText(ishape));
  std::string reduction = scatterReduction();
  ElementOffsets at = elementOffsets(g);
  const std::int64_t total = at.total, dim = at.dim, step = at.step;
  const std::int64_t count = std::int64_t(at.offsets.size());
  TensorId position;
  if (inputValue(1).constant) {
    addConstantIndices(g, at);
    position = intsConstant("offsets", ishape, at.offsets);
  } else {
    TensorId index = in(1);
    if (g.indexType.elementType != ElementType::I64)
      index = check(b->cast(index, ElementType::I64));
    TensorId offsets = intsConstant("offsets", ishape, at.offsets);
    position = binary(
        OpKind::Add,
        wrappedPositions(index, Shape(std::size_t(count), dim),
                         std::vector<std::int64_t>(std::size_t(count), step),
                         -1, total),
        offsets);
  }
  // An index past the axis gives total + its offset: still past the data.
  TensorId updates = in(2);
  TensorId scattered =
      check(b->scatter(reshape(g.data, {total}), position, updates, reduction));
  return {reshape(scattered, g.shape)};
}

/// Trilu: the input where the triangle keeps it (upper: column - row >= k;
/// lower: column - row <= k), zero elsewhere: a select with a constant mask
/// over the last two dims, broadcast over the others. k must be known at
/// import.
std::vector<TensorId> Importer::lowerTrilu() {
  TensorId x = in(0);
  Shape shape = shapeOf(x);
  if (shape.size() < 2)
    fail("the input has rank " + std::to_string(shape.size()) +
         "; Trilu needs rank >= 2");
  std::int64_t k = 0;
  if (hasInput(1)) {
    std::vector<std::int64_t> ks = intsIn(1, "k");
    if (ks.size() != 1)
      fail("k (input 1) must hold one value");
    k = ks[0];
  }
  bool upper = attrInt("upper", 1) != 0;
  std::int64_t rows = shape[shape.size() - 2], cols = shape.back();
  std::vector<std::int64_t> keep(
      std::size_t(checkedCount({rows, cols}, "the triangle")));
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      // In 128 bits: k may be any int64.
      __int128 offset = __int128(j) - i;
      keep[std::size_t(i * cols + j)] = upper ? offset >= k : offset <= k;
    }
  TensorId keepMask = intsConstant("mask", {rows, cols}, keep, ElementType::I1);
  TensorId zero = splatLike(x, 0);
  return {check(b->select(expandTo(keepMask, shape), x, zero))};
}

/// Einsum: the equation parsed (EinsumEquation.h); each operand's diagonals
/// taken (a label twice in one term: the two dims moved last, merged and
/// read with a stride of n + 1); labels that no other operand and not the
/// result has summed; the operands contracted left to right, two at a time
/// (einsumContract), keeping the labels the result or a later operand
/// needs; what is left summed and transposed to the result's order.
std::vector<TensorId> Importer::lowerEinsum() {
  if (!attr("equation"))
    fail("the attribute 'equation' is required");
  std::string equation = attrString("equation", "");
  if (numInputs() < 1)
    fail("Einsum needs at least one input");
  std::vector<std::int64_t> ranks;
  for (int i = 0; i < numInputs(); ++i) {
    ranks.push_back(inType(i).rank());
    if (inType(i).elementType != inType(0).elementType)
      fail("the inputs differ in element type: input 0 is " +
           std::string(elementTypeName(inType(0).elementType)) + ", input " +
           std::to_string(i) + " " +
           std::string(elementTypeName(inType(i).elementType)));
  }
  Expected<EinsumEquation> parsed = parseEinsumEquation(equation, ranks);
  if (!parsed.ok())
    fail(parsed.message());
  std::vector<Labeled> operands;
  for (int i = 0; i < numInputs(); ++i)
    operands.push_back(einsumDiagonals({in(i), parsed->operands[i]}));
  // Every label has one size; 1 broadcasts (an ellipsis dim).
  std::map<EinsumLabel, std::pair<std::int64_t, int>> sizes;
  for (int i = 0; i < numInputs(); ++i) {
    Shape shape = shapeOf(operands[i].value);
    for (std::size_t d = 0; d < shape.size(); ++d) {
      auto [it, added] =
          sizes.try_emplace(operands[i].labels[d], std::pair{shape[d], i});
      if (added || it->second.first == shape[d] || shape[d] == 1)
        continue;
      if (it->second.first != 1)
        fail("'" + einsumLabelName(operands[i].labels[d]) + "' is " +
             std::to_string(it->second.first) + " in input " +
             std::to_string(it->second.second) + " and " +
             std::to_string(shape[d]) + " in input " + std::to_string(i));
      it->second = {shape[d], i};
    }
  }
  const std::set<EinsumLabel> result(parsed->result.begin(),
                                     parsed->result.end());
  auto needed = [&](std::size_t from, std::size_t except) {
    std::set<EinsumLabel> keep = result;
    for (std::size_t j = from; j < operands.size(); ++j)
      if (j != except)
        keep.insert(operands[j].labels.begin(), operands[j].labels.end());
    return keep;
  };
  for (std::size_t i = 0; i < operands.size(); ++i)
    operands[i] = einsumSum(operands[i], needed(0, i));
  Labeled y = operands[0];
  for (std::size_t i = 1; i < operands.size(); ++i)
    y = einsumContract(y, operands[i], needed(i + 1, operands.size()));
  y = einsumPermute(einsumSum(y, result), parsed->result);
  // A result dim that is 1 in every operand that has it, broadcast where
  // another operand made it larger, is already its size; the shape is
  // the labels' sizes.
  Shape out;
  for (EinsumLabel label : parsed->result)
    out.push_back(sizes.at(label).first);
  return {expandTo(y.value, out)};
}

Importer::Labeled Importer::einsumDiagonals(Labeled x) {
  while (true) {
    std::size_t p = 0, q = 0;
    for (std::size_t i = 0; i < x.labels.size() && !q; ++i)
      for (std::size_t j = i + 1; j < x.labels.size() && !q; ++j)
        if (x.labels[i] == x.labels[j])
          p = i, q = j;
    if (!q)
      return x;
    Shape shape = shapeOf(x.value);
    if (shape[p] != shape[q])
      fail("'" + einsumLabelName(x.labels[p]) + "' names dims of " +
           std::to_string(shape[p]) + " and " + std::to_string(shape[q]) +
           " in one term (a diagonal needs equal sizes)");
    std::vector<EinsumLabel> order;
    for (std::size_t i = 0; i < x.labels.size(); ++i)
      if (i != p && i != q)
        order.push_back(x.labels[i]);
    EinsumLabel label = x.labels[p];
    std::vector<std::int64_t> perm;
    for (std::size_t i = 0; i < x.labels.size(); ++i)
      if (i != p && i != q)
        perm.push_back(std::int64_t(i));
    perm.push_back(std::int64_t(p));
    perm.push_back(std::int64_t(q));
    TensorId moved = x.value;
    if (!std::is_sorted(perm.begin(), perm.end()))
      moved = check(b->transpose(x.value, perm));
    std::int64_t n = shape[p];
    Shape merged;
    for (std::int64_t d : perm)
      if (d != std::int64_t(p) && d != std::int64_t(q))
        merged.push_back(shape[std::size_t(d)]);
    const std::string diagonal =
        "the diagonal of a label of size " + std::to_string(n);
    merged.push_back(dimValue(CheckedInt(n) * n, diagonal));
    TensorId flat = reshape(moved, merged);
    order.push_back(label);
    x = {sliceAxis(flat, std::int64_t(merged.size()) - 1, 0, n,
                   dimValue(CheckedInt(n) + 1, diagonal)),
         order};
  }
}

Importer::Labeled Importer::einsumSum(Labeled x,
                                      const std::set<EinsumLabel> &keep) {
  std::vector<std::int64_t> dims;
  std::vector<EinsumLabel> left;
  for (std::size_t d = 0; d < x.labels.size(); ++d)
    if (keep.count(x.labels[d]))
      left.push_back(x.labels[d]);
    else
      dims.push_back(std::int64_t(d));
  if (dims.empty())
    return x;
  return {reduce(ReduceKind::Sum, x.value, dims, false), left};
}

Importer::Labeled
Importer::einsumPermute(Labeled x, const std::vector<EinsumLabel> &order) {
  if (x.labels == order)
    return x;
  std::vector<std::int64_t> perm;
  for (EinsumLabel label : order)
    perm.push_back(std::find(x.labels.begin(), x.labels.end(), label) -
                   x.labels.begin());
  return {check(b->transpose(x.value, perm)), order};
}

/// Two operands into one whose labels are `keep`'s among theirs: batch
/// labels (both operands, kept), contracted ones (both, not kept), and each
/// operand's own (kept). With contracted labels, one matmul of [batch, M, K]
/// by [batch, K, N] (an operand already laid out [batch, K, M] or
/// [batch, N, K] is read transposed instead of moved); without, a multiply
/// of the two broadcast against each other.
Importer::Labeled Importer::einsumContract(Labeled a, Labeled c,
                                           const std::set<EinsumLabel> &keep) {
  std::set<EinsumLabel> inA(a.labels.begin(), a.labels.end()),
      inC(c.labels.begin(), c.labels.end());
  std::set<EinsumLabel> keepA = keep, keepC = keep;
  keepA.insert(inC.begin(), inC.end());
  keepC.insert(inA.begin(), inA.end());
  a = einsumSum(a, keepA);
  c = einsumSum(c, keepC);
  std::vector<EinsumLabel> batch, contracted, m, n;
  for (EinsumLabel label : a.labels)
    (inC.count(label) ? (keep.count(label) ? batch : contracted) : m)
        .push_back(label);
  for (EinsumLabel label : c.labels)
    if (!inA.count(label))
      n.push_back(label);
  // Shared labels of size 1 on one side broadcast to the other's size.
  Shape sa = shapeOf(a.value), sc = shapeOf(c.value);
  auto sizeIn = [](const Labeled &x, const Shape &shape, EinsumLabel label) {
    return shape[std::size_t(
        std::find(x.labels.begin(), x.labels.end(), label) - x.labels.begin())];
  };
  std::map<EinsumLabel, std::int64_t> size;
  for (std::size_t d = 0; d < sa.size(); ++d)
    size[a.labels[d]] = sa[d];
  for (std::size_t d = 0; d < sc.size(); ++d)
    size[c.labels[d]] = std::max(size[c.labels[d]], sc[d]);
  Shape wantA, wantC;
  for (EinsumLabel label : a.labels)
    wantA.push_back(inC.count(label) ? size[label] : sizeIn(a, sa, label));
  for (EinsumLabel label : c.labels)
    wantC.push_back(inA.count(label) ? size[label] : sizeIn(c, sc, label));
  a.value = expandTo(a.value, wantA);
  c.value = expandTo(c.value, wantC);
  auto concat =
      [](std::initializer_list<const std::vector<EinsumLabel> *> parts) {
        std::vector<EinsumLabel> all;
        for (const std::vector<EinsumLabel> *part : parts)
          all.insert(all.end(), part->begin(), part->end());
        return all;
      };
  auto dimsOf = [&](const std::vector<EinsumLabel> &labels) {
    Shape dims;
    for (EinsumLabel label : labels)
      dims.push_back(size[label]);
    return dims;
  };
  auto count = [&](const std::vector<EinsumLabel> &labels) {
    CheckedInt total = 1;
    for (EinsumLabel label : labels)
      total *= size[label];
    return dimValue(total, "the product of the sizes of " +
                               std::to_string(labels.size()) + " labels");
  };
  std::vector<EinsumLabel> out = concat({&batch, &m, &n});
  if (contracted.empty()) {
    Shape left = dimsOf(concat({&batch, &m})), right = dimsOf(batch);
    left.insert(left.end(), n.size(), 1);
    right.insert(right.end(), m.size(), 1);
    for (EinsumLabel label : n)
      right.push_back(size[label]);
    TensorId x = reshape(einsumPermute(a, concat({&batch, &m})).value, left);
    TensorId y = reshape(einsumPermute(c, concat({&batch, &n})).value, right);
    return {binary(OpKind::Mul, x, y), out};
  }
  bool transposeA = a.labels != concat({&batch, &m, &contracted}) &&
                    a.labels == concat({&batch, &contracted, &m});
  bool transposeC = c.labels != concat({&batch, &contracted, &n}) &&
                    c.labels == concat({&batch, &n, &contracted});
  if (!transposeA)
    a = einsumPermute(a, concat({&batch, &m, &contracted}));
  if (!transposeC)
    c = einsumPermute(c, concat({&batch, &contracted, &n}));
  Shape shapeA, shapeC;
  if (!batch.empty()) {
    shapeA.push_back(count(batch));
    shapeC.push_back(count(batch));
  }
  std::int64_t rows = count(m), inner = count(contracted), cols = count(n);
  shapeA.insert(shapeA.end(),
                {transposeA ? inner : rows, transposeA ? rows : inner});
  shapeC.insert(shapeC.end(),
                {transposeC ? cols : inner, transposeC ? inner : cols});
  TensorId right = reshape(c.value, shapeC);
  TensorId product =
      check(b->matmul(reshape(a.value, shapeA), right, transposeA, transposeC));
  return {reshape(product, dimsOf(out)), out};
}

/// CumSum: y[.., i, ..] = the sum of x[.., j, ..] over j <= i (j < i when
/// exclusive; j >= i, j > i when reverse) along the axis, as a reduction:
/// x broadcast along a new dim i, a constant triangular mask selecting the
/// j of each i, and a sum over j. n^2 elements per line of n: a constant
/// known at import is folded; along an axis of more than 4096 elements it
/// is refused.
std::vector<TensorId> Importer::lowerCumSum() {
  TensorId x = in(0);
  Shape shape = shapeOf(x);
  std::int64_t rank = std::int64_t(shape.size());
  if (rank == 0)
    fail("the input is a scalar; CumSum needs rank >= 1");
  std::vector<std::int64_t> axes = intsIn(1, "axis");
  if (axes.size() != 1)
    fail("axis (input 1) must hold one value");
  std::int64_t axis = normAxis(axes[0], rank);
  bool exclusive = attrInt("exclusive", 0) != 0;
  bool reverse = attrInt("reverse", 0) != 0;
  std::int64_t n = shape[std::size_t(axis)];
  constexpr std::int64_t kMaxCumSumAxis = 4096;
  if (n > kMaxCumSumAxis)
    fail("the axis has " + std::to_string(n) + " elements; CumSum takes at " +
         "most " + std::to_string(kMaxCumSumAxis));
  // [.., i, j, ..]: j is x's axis, i the new one.
  Shape wide = shape;
  wide.insert(wide.begin() + axis, n);
  checkedCount(wide, "CumSum's intermediate");
  std::vector<std::int64_t> dims;
  for (std::int64_t d = 0; d < rank; ++d)
    dims.push_back(d < axis ? d : d + 1);
  TensorId spread = check(b->broadcast(x, wide, dims));
  std::vector<std::int64_t> keep;
  keep.reserve(std::size_t(dimValue(CheckedInt(n) * n, "CumSum's mask")));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      keep.push_back(reverse ? (exclusive ? j > i : j >= i)
                             : (exclusive ? j < i : j <= i));
  TensorId keepMask = intsConstant("mask", {n, n}, keep, ElementType::I1);
  TensorId wideMask = check(b->broadcast(keepMask, wide, {axis, axis + 1}));
  TensorId kept = check(b->select(wideMask, spread, splatLike(spread, 0)));
  return {reduce(ReduceKind::Sum, kept, {axis + 1}, false)};
}

//===----------------------------------------------------------------------===//
// Convolution and Pad
//===----------------------------------------------------------------------===//

/// Explicit pads (every begin, then every end) from `pads` and `auto_pad`:
/// SAME_UPPER and SAME_LOWER give ceil(input / stride) outputs, the odd
/// pad at the end (UPPER) or the beginning (LOWER).
std::vector<std::int64_t> Importer::convPads(const Shape &input,
                                             const Shape &kernel,
                                             const Shape &strides,
                                             const Shape &dilations) {
  const std::size_t spatial = input.size();
  const std::string autoPad = attrString("auto_pad", "NOTSET");
  std::optional<std::vector<std::int64_t>> pads = attrInts("pads");
  if (autoPad == "NOTSET") {
    if (!pads)
      return std::vector<std::int64_t>(2 * spatial, 0);
    if (pads->size() != 2 * spatial)
      fail("attribute 'pads' has " + std::to_string(pads->size()) +
           " entries, expected " + std::to_string(2 * spatial) +
           " (a begin and an end pad per spatial dim)");
    for (std::int64_t pad : *pads)
      if (pad < 0)
        fail("attribute 'pads' = " + shapeText(*pads) + " has a negative pad");
    return *pads;
  }
  if (autoPad != "VALID" && autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    fail("auto_pad '" + autoPad +
         "' is not supported (NOTSET, VALID, SAME_UPPER, SAME_LOWER)");
  if (pads && std::any_of(pads->begin(), pads->end(),
                          [](std::int64_t pad) { return pad != 0; }))
    fail("attribute 'pads' is given with auto_pad '" + autoPad +
         "' (explicit pads need auto_pad NOTSET)");
  std::vector<std::int64_t> result(2 * spatial, 0);
  if (autoPad == "VALID")
    return result;
  for (std::size_t d = 0; d < spatial; ++d) {
    const std::int64_t total =
        samePadding(input[d], strides[d], kernel[d], dilations[d]);
    const std::int64_t small = total / 2, large = total - small;
    result[d] = autoPad == "SAME_UPPER" ? small : large;
    result[spatial + d] = autoPad == "SAME_UPPER" ? large : small;
  }
  return result;
}

std::vector<TensorId> Importer::lowerConv() {
  TensorId x = in(0), w = in(1);
  const Shape xs = shapeOf(x), ws = shapeOf(w);
  const ElementType type = elemOf(x);
  if (xs.size() == 5)
    fail("3-D convolutions (input of rank 5, " + shapeText(xs) +
         ") are not supported; 1-D and 2-D are");
  if (xs.size() != 3 && xs.size() != 4)
    fail("the input has shape " + shapeText(xs) +
         ", expected rank 3 or 4 (1-D or 2-D convolution)");
  if (type != ElementType::F32 && type != ElementType::F16 &&
      type != ElementType::BF16 && type != ElementType::F64)
    fail("a convolution of " + std::string(elementTypeName(type)) +
         " is not supported (f32, f16, bf16, f64)");
  if (ws.size() != xs.size() || elemOf(w) != type)
    fail("the weight is " + typeOf(w).toString() + ", expected rank " +
         std::to_string(xs.size()) + " and element type " +
         std::string(elementTypeName(type)) + " (those of the input)");
  const std::size_t spatial = xs.size() - 2;
  const Shape inputDims(xs.begin() + 2, xs.end()),
      kernel(ws.begin() + 2, ws.end());
  if (std::optional<Shape> kernelShape = attrInts("kernel_shape");
      kernelShape && *kernelShape != kernel)
    fail("attribute 'kernel_shape' = " + shapeText(*kernelShape) +
         " differs from the weight's spatial dims " + shapeText(kernel));
  auto perDim = [&](const char *name) {
    Shape values = attrInts(name).value_or(Shape(spatial, 1));
    if (values.size() != spatial)
      fail(std::string("attribute '") + name + "' has " +
           std::to_string(values.size()) + " entries, expected " +
           std::to_string(spatial) + " (one per spatial dim)");
    for (std::int64_t v : values)
      if (v < 1)
        fail(std::string("attribute '") + name + "' = " + shapeText(values) +
             " must hold values >= 1");
    return values;
  };
  const Shape strides = perDim("strides"), dilations = perDim("dilations");
  const std::int64_t group = attrInt("group", 1);
  const Shape pads = convPads(inputDims, kernel, strides, dilations);
  TensorId bias = hasInput(2) ? in(2) : kInvalidTensor;
  return {check(b->conv(x, w, bias, strides, dilations, pads, group))};
}

TensorId Importer::spreadAxis(TensorId x, std::int64_t axis,
                              std::int64_t stride) {
  if (stride == 1)
    return x;
  Shape shape = shapeOf(x);
  const std::int64_t n = shape[std::size_t(axis)];
  Shape split = shape;
  split.insert(split.begin() + axis + 1, 1);
  TensorId spread =
      padAxis(reshape(x, split), axis + 1, 0, stride - 1, "constant",
              DenseValue::makeSplat({elemOf(x), {}}, 0.0));
  Shape merged = shape;
  merged[std::size_t(axis)] = dimValue(CheckedInt(n) * stride, "a spread axis");
  return sliceAxis(reshape(spread, merged), axis, 0,
                   dimValue((CheckedInt(n) - 1) * stride + 1, "a spread axis"));
}

/// ConvTranspose's weight [C, M/g, k...] as its convolution's [M, C/g,
/// k...]: [g, C/g, M/g, k...] transposed to [g, M/g, C/g, k...], then
/// flipped along k.
TensorId Importer::convTransposeWeight(TensorId w, std::int64_t group) {
  const Shape ws = shapeOf(w);
  const std::size_t spatial = ws.size() - 2;
  const Shape kernel(ws.begin() + 2, ws.end());
  const std::int64_t c = ws[0], perGroup = ws[1];
  Shape grouped{group, c / group, perGroup};
  grouped.insert(grouped.end(), kernel.begin(), kernel.end());
  std::vector<std::int64_t> perm{0, 2, 1};
  for (std::size_t d = 0; d < spatial; ++d)
    perm.push_back(std::int64_t(3 + d));
  TensorId weight = check(b->transpose(reshape(w, grouped), perm));
  Shape convWeight{dimValue(CheckedInt(perGroup) * group, "channels"),
                   c / group};
  convWeight.insert(convWeight.end(), kernel.begin(), kernel.end());
  weight = reshape(weight, convWeight);
  for (std::size_t d = 0; d < spatial; ++d)
    weight = reverseAxis(weight, std::int64_t(2 + d));
  return weight;
}

/// ConvTranspose as the convolution it is: the input spread by the strides
/// (stride - 1 zeros between elements, spreadAxis), padded by the window's
/// reach (dilation * (kernel - 1)) less ConvTranspose's pads (a negative
/// pad crops), the weight [C, M/group, k...] made [M, C/group, k...] per
/// group and flipped along its spatial dims, stride 1. Output size per dim:
/// stride * (in - 1) + output_padding + dilation * (k - 1) + 1 - pads;
/// output_shape, where given, sets the pads (their total split as
/// onnxruntime splits it: the odd one at the start but with SAME_UPPER). The
/// spread input has stride^2 times the positions the output needs: a
/// convolution of stride 2 costs 4 times its products (rather than each output
/// phase's own smaller convolution).
std::vector<TensorId> Importer::lowerConvTranspose() {
  TensorId x = in(0), w = in(1);
  const Shape xs = shapeOf(x), ws = shapeOf(w);
  const ElementType type = elemOf(x);
  if (xs.size() == 5)
    fail("3-D transposed convolutions (input of rank 5, " + shapeText(xs) +
         ") are not supported; 1-D and 2-D are");
  if (xs.size() != 3 && xs.size() != 4)
    fail("the input has shape " + shapeText(xs) +
         ", expected rank 3 or 4 (1-D or 2-D transposed convolution)");
  if (!typeOf(x).isStatic() || !typeOf(w).isStatic())
    fail("the input " + dimsText(xs) + " or the weight " + dimsText(ws) +
         " has a dynamic dim; a transposed convolution needs static shapes");
  if (type != ElementType::F32 && type != ElementType::F16 &&
      type != ElementType::BF16 && type != ElementType::F64)
    fail("a transposed convolution of " + std::string(elementTypeName(type)) +
         " is not supported (f32, f16, bf16, f64)");
  if (ws.size() != xs.size() || elemOf(w) != type)
    fail("the weight is " + typeOf(w).toString() + ", expected rank " +
         std::to_string(xs.size()) + " and element type " +
         std::string(elementTypeName(type)) + " (those of the input)");
  const std::size_t spatial = xs.size() - 2;
  const std::int64_t c = xs[1], group = attrInt("group", 1);
  if (group < 1 || c % group != 0 || ws[0] != c)
    fail("the weight " + shapeText(ws) + " and group " + std::to_string(group) +
         " do not fit the input's " + std::to_string(c) +
         " channels (weight [C, M/group, k...], C a multiple of group)");
  // The output's channels (checked; convTransposeWeight makes them).
  dimValue(CheckedInt(ws[1]) * group, "channels");
  const Shape kernel(ws.begin() + 2, ws.end());
  if (std::optional<Shape> kernelShape = attrInts("kernel_shape");
      kernelShape && *kernelShape != kernel)
    fail("attribute 'kernel_shape' = " + shapeText(*kernelShape) +
         " differs from the weight's spatial dims " + shapeText(kernel));
  auto perDim = [&](const char *name, std::int64_t fallback,
                    std::int64_t least) {
    Shape values = attrInts(name).value_or(Shape(spatial, fallback));
    if (values.size() != spatial)
      fail(std::string("attribute '") + name + "' has " +
           std::to_string(values.size()) + " entries, expected " +
           std::to_string(spatial) + " (one per spatial dim)");
    for (std::int64_t v : values)
      if (v < least || v > (std::int64_t(1) << 20))
        fail(std::string("attribute '") + name + "' = " + shapeText(values) +
             " must hold values from " + std::to_string(least) + " to 2^20");
    return values;
  };
  const Shape strides = perDim("strides", 1, 1),
              dilations = perDim("dilations", 1, 1),
              outputPadding = perDim("output_padding", 0, 0);
  const std::string autoPad = attrString("auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER")
    fail("auto_pad '" + autoPad +
         "' is not supported (NOTSET, VALID, SAME_UPPER, SAME_LOWER)");
  const bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  Shape pads(2 * spatial, 0);
  if (std::optional<Shape> given = attrInts("pads");
      given && !same && autoPad != "VALID") {
    if (given->size() != 2 * spatial)
      fail("attribute 'pads' has " + std::to_string(given->size()) +
           " entries, expected " + std::to_string(2 * spatial) +
           " (a begin and an end pad per spatial dim)");
    for (std::int64_t pad : *given)
      if (pad < 0 || pad > (std::int64_t(1) << 30))
        fail("attribute 'pads' = " + shapeText(*given) +
             " must hold values from 0 to 2^30");
    pads = *given;
  }
  std::optional<Shape> outputShape = attrInts("output_shape");
  if (outputShape && outputShape->size() == xs.size())
    outputShape = Shape(outputShape->begin() + 2, outputShape->end());
  if (outputShape && outputShape->size() != spatial)
    fail("attribute 'output_shape' = " + shapeText(*outputShape) +
         " has neither one entry per spatial dim nor one per dim");
  // Every pad and size in checked arithmetic: output_shape may hold any
  // int64.
  auto checked = [](CheckedInt v) { return dimValue(v, "a pad or size"); };
  auto floorHalf = [](std::int64_t v) {
    return v >= 0 ? v / 2 : -((1 - v) / 2);
  };
  Shape begins(spatial), ends(spatial);
  for (std::size_t d = 0; d < spatial; ++d) {
    const std::int64_t full =
        dimValue(CheckedInt(strides[d]) * (xs[2 + d] - 1) + outputPadding[d] +
                     CheckedInt(dilations[d]) * (kernel[d] - 1) + 1,
                 "the transposed convolution's size");
    if (same || outputShape) {
      // Pads from the output's size, split as onnxruntime splits them (the
      // odd one at the start but with SAME_UPPER); given pads are ignored,
      // as ONNX says.
      const std::int64_t out =
          outputShape ? (*outputShape)[d]
                      : checked(CheckedInt(xs[2 + d]) * strides[d]);
      const std::int64_t total = checked(CheckedInt(full) - out);
      begins[d] = autoPad == "SAME_UPPER"
                      ? floorHalf(total)
                      : checked(CheckedInt(total) - floorHalf(total));
      ends[d] = checked(CheckedInt(total) - begins[d]);
    } else {
      begins[d] = pads[d];
      ends[d] = pads[spatial + d];
    }
    const std::int64_t positions =
        checked(CheckedInt(full) - begins[d] - ends[d]);
    if (positions < 1 || positions > (std::int64_t(1) << 40))
      fail("the output would have " + std::to_string(positions) +
           " positions along spatial dim " + std::to_string(d) + " (pads " +
           std::to_string(begins[d]) + " and " + std::to_string(ends[d]) +
           " of " + std::to_string(full) + ")");
  }

  // The input spread by the strides, then the convolution's pads: the
  // window's reach less ConvTranspose's, a negative one cropping.
  TensorId spread = x;
  Shape convPads(2 * spatial, 0);
  for (std::size_t d = 0; d < spatial; ++d) {
    const std::int64_t axis = std::int64_t(2 + d);
    spread = spreadAxis(spread, axis, strides[d]);
    const std::int64_t reach =
        checked(CheckedInt(dilations[d]) * (kernel[d] - 1));
    std::int64_t begin = checked(CheckedInt(reach) - begins[d]),
                 end = checked(CheckedInt(reach) + outputPadding[d] - ends[d]);
    const std::int64_t length = shapeOf(spread)[std::size_t(axis)];
    if (begin < 0 || end < 0) {
      const std::int64_t cropBegin = std::max<std::int64_t>(0, -begin),
                         cropEnd = std::max<std::int64_t>(0, -end);
      const std::int64_t kept =
          checked(CheckedInt(length) - cropBegin - cropEnd);
      if (kept < 1)
        fail("the pads crop all of spatial dim " + std::to_string(d));
      spread = sliceAxis(spread, axis, cropBegin, kept);
      begin = std::max<std::int64_t>(0, begin);
      end = std::max<std::int64_t>(0, end);
    }
    convPads[d] = begin;
    convPads[spatial + d] = end;
  }
  TensorId weight = convTransposeWeight(w, group);
  TensorId bias = hasInput(2) ? in(2) : kInvalidTensor;
  return {check(b->conv(spread, weight, bias, Shape(spatial, 1), dilations,
                        convPads, group))};
}

/// DepthToSpace: [N, C, H, W] -> [N, C / b^2, H * b, W * b], the channels
/// read as (b, b, C / b^2) in DCR mode (the default) or (C / b^2, b, b) in
/// CRD: a reshape, a transpose and a reshape.
std::vector<TensorId> Importer::lowerDepthToSpace() {
  TensorId x = in(0);
  const Shape xs = shapeOf(x);
  if (xs.size() != 4 || !typeOf(x).isStatic())
    fail("the input is " + dimsText(xs) +
         "; DepthToSpace takes a static [N, C, H, W]");
  const std::int64_t block = attrInt("blocksize", 0);
  const std::string mode = attrString("mode", "DCR");
  if (mode != "DCR" && mode != "CRD")
    fail("mode '" + mode + "' is not supported (DCR, CRD)");
  if (block < 1 || block > 4096 || xs[1] % (block * block) != 0)
    fail("blocksize " + std::to_string(block) +
         " must be at least 1 with the channels (" + std::to_string(xs[1]) +
         ") a multiple of its square");
  const std::int64_t n = xs[0], c = xs[1] / (block * block), h = xs[2],
                     w = xs[3];
  TensorId moved =
      mode == "DCR" ? check(b->transpose(reshape(x, {n, block, block, c, h, w}),
                                         {0, 3, 4, 1, 5, 2}))
                    : check(b->transpose(reshape(x, {n, c, block, block, h, w}),
                                         {0, 1, 4, 2, 5, 3}));
  return {reshape(moved, {n, c, dimValue(CheckedInt(h) * block, "height"),
                          dimValue(CheckedInt(w) * block, "width")})};
}

/// SpaceToDepth: DepthToSpace's inverse, [N, C, H, W] -> [N, C * b^2,
/// H / b, W / b], the new channels (b, b, C) in DCR mode (the default) or
/// (C, b, b) in CRD (opset 28's `mode`).
std::vector<TensorId> Importer::lowerSpaceToDepth() {
  TensorId x = in(0);
  const Shape xs = shapeOf(x);
  if (xs.size() != 4 || !typeOf(x).isStatic())
    fail("the input is " + dimsText(xs) +
         "; SpaceToDepth takes a static [N, C, H, W]");
  const std::int64_t block = attrInt("blocksize", 0);
  if (block < 1 || block > 4096 || xs[2] % block != 0 || xs[3] % block != 0)
    fail("blocksize " + std::to_string(block) +
         " must be at least 1 and divide the height and width " +
         shapeText({xs[2], xs[3]}));
  const std::string mode = attrString("mode", "DCR");
  if (mode != "DCR" && mode != "CRD")
    fail("mode '" + mode + "' is not supported (DCR, CRD)");
  const std::int64_t n = xs[0], c = xs[1], h = xs[2] / block, w = xs[3] / block;
  TensorId moved = check(b->transpose(
      reshape(x, {n, c, h, block, w, block}),
      mode == "DCR" ? std::vector<std::int64_t>{0, 3, 5, 1, 2, 4}
                    : std::vector<std::int64_t>{0, 1, 3, 5, 2, 4}));
  return {reshape(
      moved, {n, dimValue(CheckedInt(c) * block * block, "channels"), h, w})};
}

/// EyeLike: ones where column - row == k, zeros elsewhere, of the input's
/// 2-D shape and of `dtype` (the input's type without it).
std::vector<TensorId> Importer::lowerEyeLike() {
  const TensorType &given = inType(0);
  if (given.shape.size() != 2 || !given.isStatic())
    fail("the input is " + dimsText(given.shape) +
         "; EyeLike takes a static 2-D tensor");
  ElementType to = given.elementType;
  if (const onnx::AttributeProto *a = attr("dtype"))
    to = requireType(int(a->i()), "EyeLike's dtype");
  const std::int64_t k = attrInt("k", 0), rows = given.shape[0],
                     cols = given.shape[1];
  std::vector<std::int64_t> ones(
      std::size_t(checkedCount({rows, cols}, "EyeLike's result")));
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      ones[std::size_t(i * cols + j)] = CheckedInt(j) - i == CheckedInt(k);
  TensorId mask = intsConstant("eye", {rows, cols}, ones, ElementType::I1);
  return {to == ElementType::I1 ? mask : check(b->cast(mask, to))};
}

/// What one step of an LSTM or GRU cell needs (lowerRecurrent).
struct Importer::RecurrentStep {
  bool lstm = false;
  std::int64_t hidden = 0;
  /// The step's input projection with the biases folded in: [batch,
  /// gates * hidden].
  TensorId projected = kInvalidTensor;
  /// The direction's recurrence weight [gates * hidden, hidden], and for a
  /// GRU with linear_before_reset its h gate's recurrence bias [hidden].
  TensorId recurrence = kInvalidTensor, resetBias = kInvalidTensor;
  /// LSTM peepholes [hidden] each (or none).
  TensorId peepI = kInvalidTensor, peepO = kInvalidTensor,
           peepF = kInvalidTensor;
  /// The pre-activation bound, where `clip` is given.
  std::optional<double> clip;
};

/// One step: the new hidden state (and an LSTM's cell state) from the last,
/// in ONNX's gate orders (LSTM i, o, f, c; GRU z, r, h) with its default
/// activations (sigmoid, tanh, tanh).
TensorId Importer::recurrentCell(const RecurrentStep &st, TensorId &h,
                                 TensorId &c) {
  const std::int64_t n = st.hidden;
  auto gate = [&](TensorId x, std::int64_t k) {
    return sliceAxis(x, 1, k * n, n);
  };
  auto bounded = [&](TensorId x) {
    if (!st.clip)
      return x;
    return check(b->min(check(b->max(x, splatLike(x, -*st.clip))),
                        splatLike(x, *st.clip)));
  };
  auto sigmoid = [&](TensorId x) { return unary(OpKind::Sigmoid, bounded(x)); };
  auto tanh = [&](TensorId x) { return unary(OpKind::Tanh, bounded(x)); };
  auto times = [&](TensorId x, TensorId along) {
    return check(b->mul(x, expandTo(along, shapeOf(x))));
  };
  if (st.lstm) {
    TensorId g = check(
        b->add(st.projected, check(b->matmul(h, st.recurrence, false, true))));
    TensorId i = gate(g, 0), o = gate(g, 1), f = gate(g, 2);
    if (st.peepI != kInvalidTensor) {
      i = check(b->add(i, times(c, st.peepI)));
      f = check(b->add(f, times(c, st.peepF)));
    }
    c = check(b->add(check(b->mul(sigmoid(f), c)),
                     check(b->mul(sigmoid(i), tanh(gate(g, 3))))));
    if (st.peepO != kInvalidTensor)
      o = check(b->add(o, times(c, st.peepO)));
    h = check(b->mul(sigmoid(o), unary(OpKind::Tanh, c)));
    return h;
  }
  // GRU: z and r from one matmul; h's recurrence after the reset (or, with
  // linear_before_reset, the reset applied to it).
  TensorId zr = check(b->add(
      sliceAxis(st.projected, 1, 0, 2 * n),
      check(b->matmul(h, sliceAxis(st.recurrence, 0, 0, 2 * n), false, true))));
  TensorId z = sigmoid(gate(zr, 0)), reset = sigmoid(gate(zr, 1));
  TensorId rh = sliceAxis(st.recurrence, 0, 2 * n, n);
  TensorId recurrent =
      st.resetBias != kInvalidTensor
          ? check(b->mul(reset,
                         check(b->add(check(b->matmul(h, rh, false, true)),
                                      expandTo(st.resetBias, shapeOf(h))))))
          : check(b->matmul(check(b->mul(reset, h)), rh, false, true));
  TensorId candidate = tanh(check(b->add(gate(st.projected, 2), recurrent)));
  // (1 - z) * candidate + z * h.
  h = check(b->add(candidate, check(b->mul(z, check(b->sub(h, candidate))))));
  return h;
}

/// LSTM's and GRU's `activations`: the defaults only (Sigmoid, Tanh, Tanh;
/// Sigmoid, Tanh), per direction; activation_alpha and _beta refused.
void Importer::checkRecurrentActivations(bool lstm) {
  if (const onnx::AttributeProto *a = attr("activations")) {
    const std::vector<std::string> defaults =
        lstm ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
             : std::vector<std::string>{"Sigmoid", "Tanh"};
    for (int i = 0; i < a->strings_size(); ++i)
      if (a->strings(i) != defaults[std::size_t(i) % defaults.size()])
        fail("activation '" + a->strings(i) +
             "' is not supported (the defaults only: " +
             (lstm ? "Sigmoid, Tanh, Tanh" : "Sigmoid, Tanh") + ")");
  }
  if (attr("activation_alpha") || attr("activation_beta"))
    fail("activation_alpha and activation_beta are not supported (the "
         "default activations take none)");
}

/// LSTM and GRU, unrolled at import over the sequence (static shapes): per
/// direction one matmul projects every step's input (the biases folded in),
/// then each step is a matmul of the last hidden state and its gates
/// (recurrentCell). Default activations only; clip, peepholes, initial
/// states, layout 1 and GRU's linear_before_reset are supported;
/// sequence_lens only where every sequence is whole. At most 4096 steps.
std::vector<TensorId> Importer::lowerRecurrent() {
  const bool lstm = node->op_type() == "LSTM";
  const std::int64_t gates = lstm ? 4 : 3;
  TensorId x = in(0), w = in(1), r = in(2);
  const ElementType type = elemOf(x);
  if (shapeOf(x).size() != 3 || !typeOf(x).isStatic() ||
      !typeOf(w).isStatic() || !typeOf(r).isStatic())
    fail("the input " + dimsText(shapeOf(x)) +
         " must be a static 3-D tensor, with static weights");
  if (type != ElementType::F32 && type != ElementType::F64 &&
      type != ElementType::F16)
    fail(std::string(elementTypeName(type)) +
         " is not supported (f32, f64, f16)");
  const std::string direction = attrString("direction", "forward");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    fail("direction '" + direction +
         "' is not one of forward, reverse, bidirectional");
  const std::int64_t dirs = direction == "bidirectional" ? 2 : 1;
  const std::int64_t layout = attrInt("layout", 0);
  if (layout != 0 && layout != 1)
    fail("layout " + std::to_string(layout) + " is not 0 or 1");
  if (layout == 1)
    x = check(b->transpose(x, {1, 0, 2}));
  const Shape xs = shapeOf(x);
  const std::int64_t seq = xs[0], batch = xs[1], width = xs[2];
  const std::int64_t hidden = attrInt("hidden_size", 0);
  if (hidden < 1 ||
      shapeOf(w) !=
          Shape{dirs, dimValue(CheckedInt(gates) * hidden, "gates"), width} ||
      shapeOf(r) != Shape{dirs, gates * hidden, hidden})
    fail("W " + shapeText(shapeOf(w)) + " and R " + shapeText(shapeOf(r)) +
         " do not fit hidden_size " + std::to_string(hidden) + ", " +
         std::to_string(dirs) + " direction(s) and input size " +
         std::to_string(width) + " (W [dirs, " + std::to_string(gates) +
         " * hidden, input], R [dirs, " + std::to_string(gates) +
         " * hidden, hidden])");
  if (elemOf(w) != type || elemOf(r) != type)
    fail("W and R must have the input's element type");
  if (dimValue(CheckedInt(seq) * dirs, "steps") > 4096)
    fail(std::to_string(seq) + " steps in " + std::to_string(dirs) +
         " direction(s): the unrolled cell takes at most 4096");
  checkRecurrentActivations(lstm);
  RecurrentStep step;
  step.lstm = lstm;
  step.hidden = hidden;
  if (attr("clip")) {
    step.clip = attrFloat("clip", 0);
    if (!(*step.clip > 0))
      fail("clip must be above 0");
  }
  if (lstm && attrInt("input_forget", 0) != 0)
    fail("input_forget 1 is not supported");
  const bool linearBeforeReset = !lstm && attrInt("linear_before_reset", 0);
  if (hasInput(4)) {
    for (std::int64_t length : intsIn(4, "sequence_lens"))
      if (length != seq)
        fail("sequence_lens holds " + std::to_string(length) +
             "; only whole sequences (" + std::to_string(seq) +
             " steps) are supported");
  }
  auto ofDirection = [&](int input, std::int64_t d, const Shape &shape) {
    TensorId all = in(input);
    Shape expected{dirs};
    expected.insert(expected.end(), shape.begin(), shape.end());
    if (shapeOf(all) != expected || elemOf(all) != type)
      fail("input " + std::to_string(input) + " is " + typeOf(all).toString() +
           ", expected " + shapeText(expected) +
           " of the input's element type");
    return reshape(sliceAxis(all, 0, d, 1), shape);
  };
  // An initial state, [dirs, batch, hidden] ([batch, dirs, hidden] with
  // layout 1), of direction d.
  auto stateOf = [&](int input, std::int64_t d) {
    if (layout == 0)
      return ofDirection(input, d, {batch, hidden});
    TensorId all = in(input);
    if (shapeOf(all) != Shape{batch, dirs, hidden} || elemOf(all) != type)
      fail("input " + std::to_string(input) + " is " + typeOf(all).toString() +
           ", expected " + shapeText({batch, dirs, hidden}) +
           " (layout 1) of the input's element type");
    return reshape(sliceAxis(all, 1, d, 1), {batch, hidden});
  };
  const std::int64_t width4 = gates * hidden;
  TensorId rows = reshape(x, {seq * batch, width});
  std::vector<TensorId> ys, finalH, finalC;
  for (std::int64_t d = 0; d < dirs; ++d) {
    const bool reverse = direction == "reverse" || d == 1;
    TensorId wd = reshape(sliceAxis(w, 0, d, 1), {width4, width});
    step.recurrence = reshape(sliceAxis(r, 0, d, 1), {width4, hidden});
    TensorId projected = check(b->matmul(rows, wd, false, true));
    step.resetBias = kInvalidTensor;
    if (hasInput(3)) {
      TensorId bias = ofDirection(3, d, {2 * width4});
      TensorId wb = sliceAxis(bias, 0, 0, width4),
               rb = sliceAxis(bias, 0, width4, width4);
      if (linearBeforeReset) {
        step.resetBias = sliceAxis(rb, 0, 2 * hidden, hidden);
        rb = check(b->concat(
            {sliceAxis(rb, 0, 0, 2 * hidden), splat({type, {hidden}}, 0)}, 0));
      }
      projected = check(b->add(
          projected, expandTo(check(b->add(wb, rb)), shapeOf(projected))));
    } else if (linearBeforeReset) {
      step.resetBias = splat({type, {hidden}}, 0);
    }
    projected = reshape(projected, {seq, batch, width4});
    if (lstm && hasInput(7)) {
      TensorId p = ofDirection(7, d, {3 * hidden});
      step.peepI = sliceAxis(p, 0, 0, hidden);
      step.peepO = sliceAxis(p, 0, hidden, hidden);
      step.peepF = sliceAxis(p, 0, 2 * hidden, hidden);
    }
    TensorId h =
        hasInput(5) ? stateOf(5, d) : splat({type, {batch, hidden}}, 0);
    TensorId c =
        lstm && hasInput(6) ? stateOf(6, d) : splat({type, {batch, hidden}}, 0);
    std::vector<TensorId> outputs(std::size_t(seq), kInvalidTensor);
    for (std::int64_t s = 0; s < seq; ++s) {
      const std::int64_t t = reverse ? seq - 1 - s : s;
      step.projected = reshape(sliceAxis(projected, 0, t, 1), {batch, width4});
      outputs[std::size_t(t)] =
          reshape(recurrentCell(step, h, c), {1, 1, batch, hidden});
    }
    ys.push_back(seq == 1 ? outputs[0] : check(b->concat(outputs, 0)));
    finalH.push_back(reshape(h, {1, batch, hidden}));
    finalC.push_back(reshape(c, {1, batch, hidden}));
  }
  auto joined = [&](const std::vector<TensorId> &parts, std::int64_t axis) {
    return parts.size() == 1 ? parts[0] : check(b->concat(parts, axis));
  };
  TensorId y = joined(ys, 1), yh = joined(finalH, 0), yc = joined(finalC, 0);
  if (layout == 1) {
    y = check(b->transpose(y, {2, 0, 1, 3}));
    yh = check(b->transpose(yh, {1, 0, 2}));
    yc = check(b->transpose(yc, {1, 0, 2}));
  }
  if (lstm)
    return {y, yh, yc};
  return {y, yh};
}

/// One axis of Pad: a negative side crops, a positive one adds `mode`'s
/// values (constant: `fill`; edge: the border element; reflect: the
/// elements next to the border, mirrored; wrap: the other end's).
TensorId Importer::padAxis(TensorId x, std::int64_t axis, std::int64_t begin,
                           std::int64_t end, const std::string &mode,
                           const DenseValue &fill) {
  std::int64_t n = shapeOf(x)[axis];
  // The padded size first, checked: pads of INT64_MAX wrapped it, and a
  // pad of INT64_MIN has no negation.
  const std::string pads = "pads " + std::to_string(begin) + ", " +
                           std::to_string(end) + " of axis " +
                           std::to_string(axis) + " (of size " +
                           std::to_string(n) + ")";
  if (!(CheckedInt(n) + begin + end).get())
    fail(pads + " give a size past 2^63");
  if (begin < 0 || end < 0) {
    const std::optional<std::int64_t> cropped =
        (-(CheckedInt(std::min<std::int64_t>(begin, 0)) +
           std::min<std::int64_t>(end, 0)))
            .get();
    if (!cropped || *cropped > n)
      fail("negative " + pads + " crop more than its elements");
    // Each at most `cropped`: the negations fit.
    const std::int64_t cropBegin = begin < 0 ? -begin : 0;
    n = dimValue(CheckedInt(n) - *cropped, pads);
    x = sliceAxis(x, axis, cropBegin, n);
    begin = std::max<std::int64_t>(0, begin);
    end = std::max<std::int64_t>(0, end);
  }
  if (begin == 0 && end == 0)
    return x;
  if (mode != "constant" && n == 0)
    fail("mode '" + mode + "' cannot pad axis " + std::to_string(axis) +
         ", which is empty");
  if (mode == "reflect" && std::max(begin, end) >= n)
    fail("mode 'reflect' pads axis " + std::to_string(axis) + " of size " +
         std::to_string(n) + " by " + std::to_string(std::max(begin, end)) +
         ", expected less than its size");
  if (mode == "wrap" && std::max(begin, end) > n)
    fail("mode 'wrap' pads axis " + std::to_string(axis) + " of size " +
         std::to_string(n) + " by " + std::to_string(std::max(begin, end)) +
         ", expected at most its size");
  // Where each side's elements start: inside the axis, by the checks above.
  auto from = [&](CheckedInt offset) { return dimValue(offset, pads); };
  auto side = [&](std::int64_t count, bool atBegin) {
    Shape shape = shapeOf(x);
    shape[axis] = count;
    if (mode == "constant")
      return splatBytes(DenseValue{fill.elementType, shape, fill.bytes, true});
    if (mode == "edge") {
      TensorId border =
          sliceAxis(x, axis, atBegin ? 0 : from(CheckedInt(n) - 1), 1);
      std::vector<std::int64_t> dims(shape.size());
      std::iota(dims.begin(), dims.end(), 0);
      return check(b->broadcast(border, shape, dims));
    }
    if (mode == "wrap")
      return sliceAxis(x, axis, atBegin ? from(CheckedInt(n) - count) : 0,
                       count);
    return reverseAxis(sliceAxis(x, axis,
                                 atBegin ? 1 : from(CheckedInt(n) - 1 - count),
                                 count),
                       axis);
  };
  std::vector<TensorId> parts;
  if (begin > 0)
    parts.push_back(side(begin, true));
  parts.push_back(x);
  if (end > 0)
    parts.push_back(side(end, false));
  return check(b->concat(parts, axis));
}

std::vector<TensorId> Importer::lowerPad() {
  TensorId x = in(0);
  const Shape shape = shapeOf(x);
  const std::int64_t rank = std::int64_t(shape.size());
  const ElementType type = elemOf(x);
  const std::string mode = attrString("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      !(mode == "wrap" && opset >= 19))
    fail("mode '" + mode + "' is not supported (constant, reflect, edge" +
         (opset >= 19 ? ", wrap)" : ")"));
  std::vector<std::int64_t> pads;
  DenseValue fill = DenseValue::makeSplat({type, {}}, 0.0);
  std::vector<std::int64_t> axes;
  if (opset < 11) {
    pads = attrInts(opset < 2 ? "paddings" : "pads").value_or(Shape{});
    fill = DenseValue::makeSplat({type, {}}, attrFloat("value", 0.0));
  } else {
    pads = intsIn(1, "pads");
    if (hasInput(2)) {
      const HostTensorData &value = constIn(2, "constant_value");
      if (value.type.numElements() != 1 || value.type.elementType != type)
        fail("constant_value is " + value.type.toString() +
             ", expected one element of the input's type " +
             std::string(elementTypeName(type)));
      fill.bytes = value.bytes;
    }
    if (hasInput(3)) {
      axes = intsIn(3, "axes");
      for (std::int64_t &axis : axes)
        axis = normAxis(axis, rank);
    }
  }
  if (axes.empty())
    for (std::int64_t axis = 0; axis < rank; ++axis)
      axes.push_back(axis);
  if (pads.size() != 2 * axes.size())
    fail("pads has " + std::to_string(pads.size()) + " entries, expected " +
         std::to_string(2 * axes.size()) + " (a begin and an end pad per " +
         (opset >= 18 && hasInput(3) ? "axis in axes)" : "input dim)"));
  for (std::size_t i = 0; i < axes.size(); ++i)
    x = padAxis(x, axes[i], pads[i], pads[axes.size() + i], mode, fill);
  return {x};
}

//===----------------------------------------------------------------------===//
// Resize
//===----------------------------------------------------------------------===//

/// How one axis of a Resize reads its input: output position o is
/// (1 - weight[o]) * x[lower[o]] + weight[o] * x[upper[o]] (nearest: weight
/// 0), the indices clamped into the axis.
struct ResizeAxis {
  std::vector<std::int64_t> lower, upper;
  std::vector<double> weight;
};

/// The input coordinate of output position `o` on an axis of `in` elements
/// resized to `out` by `scale`, in double, as ONNX's reference computes it
/// (`scale * in` is the unrounded output length that pytorch_half_pixel and
/// half_pixel_symmetric look at), except align_corners: it divides by the
/// output's length `out` - 1, as onnxruntime and PyTorch do
/// (F.interpolate(scale_factor=1.7, align_corners=True) maps the corners of
/// 18 onto those of 30), where the reference divides by `scale * in` - 1;
/// only a scale that gives no whole length tells them apart
/// (test_resize_downsample_scales_linear_align_corners, excluded).
double resizeSource(const std::string &transform, std::int64_t o, double scale,
                    std::int64_t in, std::int64_t out) {
  const double length = scale * double(in), y = double(o);
  if (transform == "align_corners")
    return out == 1 ? 0 : y * double(in - 1) / double(out - 1);
  if (transform == "asymmetric")
    return y / scale;
  if (transform == "pytorch_half_pixel")
    return length == 1 ? -0.5 : (y + 0.5) / scale - 0.5;
  if (transform == "tf_half_pixel_for_nearest" ||
      transform == "tf_half_pixel_for_nn")
    return (y + 0.5) / scale;
  if (transform == "half_pixel_symmetric") {
    // The output's centre maps to the input's where out < scale * in.
    const double center = double(in) / 2;
    return center * (1 - double(out) / length) + (y + 0.5) / scale - 0.5;
  }
  return (y + 0.5) / scale - 0.5; // half_pixel
}

/// One axis's reads for mode nearest (rounded by `nearestMode`) or linear.
ResizeAxis resizeAxis(bool linear, const std::string &transform,
                      const std::string &nearestMode, double scale,
                      std::int64_t in, std::int64_t out) {
  ResizeAxis axis;
  auto clampIndex = [&](double i) {
    return CheckedInt::fromDouble(std::clamp(i, 0.0, double(in - 1)))
        .saturated();
  };
  for (std::int64_t o = 0; o < out; ++o) {
    // Clamped first so that the floor fits an int64; rounding then clamping
    // gives the same index for any coordinate past either end.
    const double x = std::clamp(resizeSource(transform, o, scale, in, out),
                                -1.0, double(in));
    const double floor = std::floor(x), ratio = x - floor;
    double nearest = floor;
    if (ratio > 0 && (nearestMode == "ceil" ||
                      (nearestMode == "round_prefer_floor" && ratio > 0.5) ||
                      (nearestMode == "round_prefer_ceil" && ratio >= 0.5)))
      nearest = floor + 1;
    if (!linear) {
      axis.lower.push_back(clampIndex(nearest));
      axis.weight.push_back(0);
      continue;
    }
    axis.lower.push_back(clampIndex(floor));
    axis.upper.push_back(clampIndex(floor + 1));
    axis.weight.push_back(ratio);
  }
  if (!linear)
    axis.upper = axis.lower;
  return axis;
}

struct ResizeMode {
  bool linear = false;
  /// Cubic convolution (Keys) with coefficient `cubicA`; with
  /// `excludeOutside`, the taps past either end weigh 0 and the others are
  /// scaled to sum to 1.
  bool cubic = false;
  double cubicA = -0.75;
  bool excludeOutside = false;
  std::string transform, nearestMode, policy;
};

/// One axis's four reads per output for mode cubic: the input positions
/// floor(x) - 1 .. floor(x) + 2 around each output's coordinate x (clamped
/// to the axis: the edge repeats, as ONNX's reference pads it) and their
/// cubic convolution weights at t = x - floor(x), A the coefficient; with
/// exclude_outside the weights of positions past either end are 0 and the
/// rest scaled to sum to 1.
struct CubicAxis {
  std::array<std::vector<std::int64_t>, 4> index;
  std::array<std::vector<double>, 4> weight;
};

CubicAxis cubicAxis(const ResizeMode &mode, double scale, std::int64_t in,
                    std::int64_t out) {
  CubicAxis axis;
  const double a = mode.cubicA;
  // |d| in [0, 1] and [1, 2]: Keys' kernel.
  auto near = [&](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };
  auto far = [&](double d) {
    return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  };
  for (std::int64_t o = 0; o < out; ++o) {
    // Past 2 outside either end every read is the edge: clamped so that the
    // floor fits an int64.
    const double x = std::clamp(resizeSource(mode.transform, o, scale, in, out),
                                -2.0, double(in) + 1);
    const double floor = std::floor(x), t = x - floor;
    const std::array<double, 4> w = {far(t + 1), near(t), near(1 - t),
                                     far(2 - t)};
    std::array<double, 4> kept = w;
    double sum = 0;
    for (int k = 0; k < 4; ++k) {
      const double at = floor - 1 + k;
      if (mode.excludeOutside && (at < 0 || at > double(in - 1)))
        kept[k] = 0;
      sum += kept[k];
    }
    for (int k = 0; k < 4; ++k) {
      const double at = std::clamp(floor - 1 + k, 0.0, double(in - 1));
      axis.index[k].push_back(CheckedInt::fromDouble(at).saturated());
      axis.weight[k].push_back(mode.excludeOutside && sum != 0 ? kept[k] / sum
                                                               : kept[k]);
    }
  }
  return axis;
}

/// x's elements at `indices` along `axis`: a strided slice where they rise
/// by a constant step, a broadcast where each element repeats k times in
/// order (nearest upsampling by an integer factor) or one element repeats,
/// else a gather with the indices as a constant.
TensorId Importer::takeAlong(TensorId x, std::int64_t axis,
                             const std::vector<std::int64_t> &indices,
                             const std::string &name) {
  const Shape shape = shapeOf(x);
  const std::int64_t n = shape[axis], out = std::int64_t(indices.size());
  Shape result = shape;
  result[axis] = out;
  if (std::all_of(indices.begin(), indices.end(),
                  [&](std::int64_t i) { return i == indices[0]; }))
    return expandTo(sliceAxis(x, axis, indices[0], 1), result);
  const std::int64_t step = indices[1] - indices[0];
  bool progression = step > 0, repeats = out > n && out % n == 0;
  for (std::int64_t o = 0; o < out; ++o) {
    progression &= indices[o] == indices[0] + o * step;
    repeats = repeats && indices[o] == o / (out / n);
  }
  if (progression)
    return sliceAxis(x, axis, indices[0], out, step);
  if (repeats) {
    Shape split = shape, expanded = shape;
    split.insert(split.begin() + axis + 1, 1);
    expanded.insert(expanded.begin() + axis + 1, out / n);
    return reshape(expandTo(reshape(x, split), expanded), result);
  }
  const TensorType type{n <= INT32_MAX ? ElementType::I32 : ElementType::I64,
                        {out}};
  Value value;
  value.type = type;
  value.constant = shared(HostTensorData::fromInts(type, indices));
  return check(b->gather(x, materialize(name, value), axis));
}

/// `weights` (one per position along `axis`) as a constant of like's element
/// type, broadcast to like's shape.
TensorId Importer::axisWeights(TensorId like, std::int64_t axis,
                               const std::vector<double> &weights,
                               const std::string &name) {
  const Shape shape = shapeOf(like);
  Shape along(shape.size(), 1);
  along[axis] = shape[axis];
  const TensorType type{elemOf(like), {shape[axis]}};
  Value value;
  value.type = type;
  value.constant = shared(HostTensorData::fromDoubles(type, weights));
  return expandTo(reshape(materialize(name, value), along), shape);
}

/// Resize's mode and how it maps coordinates, checked.

ResizeMode Importer::resizeMode(ElementType type) {
  ResizeMode m;
  const std::string mode = attrString("mode", "nearest");
  m.transform = attrString("coordinate_transformation_mode", "half_pixel");
  m.nearestMode = attrString("nearest_mode", "round_prefer_floor");
  m.policy = attrString("keep_aspect_ratio_policy", "stretch");
  m.cubicA = attrFloat("cubic_coeff_a", -0.75);
  // Read by the transformation refused below.
  attrFloat("extrapolation_value", 0);
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    fail("mode '" + mode + "' is not supported (nearest, linear, cubic)");
  if (!std::isfinite(m.cubicA))
    fail("cubic_coeff_a " + numberText(m.cubicA) + " is not a finite number");
  if (m.transform == "tf_crop_and_resize")
    fail("coordinate_transformation_mode 'tf_crop_and_resize' (a crop to "
         "the roi input) is not supported");
  static const std::set<std::string> transforms = {
      "half_pixel",          "half_pixel_symmetric",
      "pytorch_half_pixel",  "align_corners",
      "asymmetric",          "tf_half_pixel_for_nearest",
      "tf_half_pixel_for_nn"};
  if (!transforms.count(m.transform))
    fail("coordinate_transformation_mode '" + m.transform +
         "' is not supported (half_pixel, half_pixel_symmetric, "
         "pytorch_half_pixel, align_corners, asymmetric, "
         "tf_half_pixel_for_nearest, or tf_half_pixel_for_nn as opset 11 "
         "named it)");
  if (mode == "nearest" && m.nearestMode != "round_prefer_floor" &&
      m.nearestMode != "round_prefer_ceil" && m.nearestMode != "floor" &&
      m.nearestMode != "ceil")
    fail("nearest_mode '" + m.nearestMode +
         "' is not one of round_prefer_floor, round_prefer_ceil, floor, ceil");
  if (attrInt("antialias", 0) != 0)
    fail("antialias 1 is not supported");
  m.excludeOutside = attrInt("exclude_outside", 0) != 0;
  if (m.excludeOutside && mode != "cubic")
    fail("exclude_outside 1 is supported with mode 'cubic' only");
  if (m.policy != "stretch" && m.policy != "not_larger" &&
      m.policy != "not_smaller")
    fail("keep_aspect_ratio_policy '" + m.policy +
         "' is not one of stretch, not_larger, not_smaller");
  m.linear = mode == "linear";
  m.cubic = mode == "cubic";
  if ((m.linear || m.cubic) && !isFloat(type))
    fail("mode '" + mode + "' on " + std::string(elementTypeName(type)) +
         " is not supported (float inputs only)");
  return m;
}

/// The output length of an axis of `n` elements scaled by `scale` (finite,
/// above 0), computed in double as ONNX's reference does: floor(scale * n),
/// or rounded half up. Refused, naming the axis, past 2^62 (no int64 holds
/// the double; a non-empty output is refused past 2^31 elements anyway).
std::int64_t resizedLength(double scale, std::int64_t n, bool roundHalfUp,
                           std::int64_t axis) {
  const double length =
      std::floor(scale * static_cast<double>(n) + (roundHalfUp ? 0.5 : 0));
  std::optional<std::int64_t> whole = CheckedInt::fromDouble(length).get();
  if (!whole || *whole < 0 || *whole > (std::int64_t(1) << 62))
    fail("scale " + numberText(scale) + " for axis " + std::to_string(axis) +
         " of size " + std::to_string(n) + " gives an output length of " +
         numberText(length) + " (at most 2^62)");
  return *whole;
}

/// The resized axes, and per input dim its scale and output size.
struct ResizeTarget {
  std::vector<std::int64_t> axes;
  std::vector<double> scale;
  Shape outShape;
};

/// From scales or sizes (known at import) and `axes`, as ONNX's reference
/// computes them: floor(scale * size) from scales; from sizes, the scale
/// size / input size (with keep_aspect_ratio_policy not_larger or
/// not_smaller, the smallest or largest of them for every axis, sizes
/// rounded half up from it).
ResizeTarget Importer::resizeTarget(const Shape &shape,
                                    const std::string &policy) {
  const std::int64_t rank = std::int64_t(shape.size());
  ResizeTarget t;
  if (std::optional<std::vector<std::int64_t>> given = attrInts("axes")) {
    for (std::int64_t axis : *given) {
      axis = normAxis(axis, rank);
      if (std::find(t.axes.begin(), t.axes.end(), axis) != t.axes.end())
        fail("attribute 'axes' names axis " + std::to_string(axis) + " twice");
      t.axes.push_back(axis);
    }
  } else {
    for (std::int64_t axis = 0; axis < rank; ++axis)
      t.axes.push_back(axis);
  }
  // roi matters only to tf_crop_and_resize.
  if (hasInput(1))
    inputValue(1);
  std::vector<double> scales;
  std::vector<std::int64_t> sizes;
  if (hasInput(2))
    scales = constIn(2, "scales").toDoubles();
  if (hasInput(3))
    sizes = intsIn(3, "sizes");
  if (scales.empty() == sizes.empty())
    fail("exactly one of scales (input 2) and sizes (input 3) must be given, "
         "not empty");
  const std::size_t given = std::max(scales.size(), sizes.size());
  if (given != t.axes.size())
    fail(std::string(scales.empty() ? "sizes" : "scales") + " has " +
         std::to_string(given) + " entries, expected " +
         std::to_string(t.axes.size()) + " (one per " +
         (attr("axes") ? "axis in axes)" : "input dim)"));
  t.scale.assign(rank, 1.0);
  t.outShape = shape;
  for (std::size_t i = 0; i < t.axes.size(); ++i) {
    const std::int64_t axis = t.axes[i], n = shape[axis];
    if (!scales.empty()) {
      if (!(scales[i] > 0) || !std::isfinite(scales[i]))
        fail("scales " + numberText(scales[i]) + " for axis " +
             std::to_string(axis) + " of size " + std::to_string(n) +
             ": a scale is a finite number above 0");
      t.scale[axis] = scales[i];
      t.outShape[axis] = resizedLength(scales[i], n, false, axis);
      continue;
    }
    if (sizes[i] < 0 || (n == 0 && sizes[i] != 0))
      fail("sizes " + shapeText(sizes) + " asks " + std::to_string(sizes[i]) +
           " elements of axis " + std::to_string(axis) + " of size " +
           std::to_string(n));
    t.scale[axis] = n == 0 ? 1.0 : double(sizes[i]) / double(n);
    t.outShape[axis] = sizes[i];
  }
  if (!sizes.empty() && policy != "stretch") {
    double common = t.scale[t.axes[0]];
    for (std::int64_t axis : t.axes)
      common = policy == "not_larger" ? std::min(common, t.scale[axis])
                                      : std::max(common, t.scale[axis]);
    for (std::int64_t axis : t.axes) {
      t.scale[axis] = common;
      t.outShape[axis] = resizedLength(common, shape[axis], true, axis);
    }
  }
  return t;
}

/// One axis of a Resize: x unchanged where every output reads its own
/// position; the reads (nearest); or the two reads, in computeType, times
/// their weights, added (linear).
TensorId Importer::resizeAlong(TensorId x, std::int64_t axis,
                               const ResizeAxis &reads, ElementType computeType,
                               const std::string &name) {
  const std::int64_t out = std::int64_t(reads.lower.size());
  bool identity = out == shapeOf(x)[axis];
  for (std::int64_t o = 0; o < out && identity; ++o)
    identity = reads.lower[o] == o && reads.weight[o] == 0;
  if (identity)
    return x;
  if (std::all_of(reads.weight.begin(), reads.weight.end(),
                  [](double w) { return w == 0; }))
    return takeAlong(x, axis, reads.lower, name + "_index");
  std::vector<double> lowerWeight;
  for (double w : reads.weight)
    lowerWeight.push_back(1 - w);
  // Cast after the reads: a gather reads its data from memory, so a cast
  // before it would be a kernel of its own.
  TensorId lower = takeAlong(x, axis, reads.lower, name + "_lower");
  TensorId upper = takeAlong(x, axis, reads.upper, name + "_upper");
  if (elemOf(lower) != computeType) {
    lower = check(b->cast(lower, computeType));
    upper = check(b->cast(upper, computeType));
  }
  TensorId upperPart = check(b->mul(
      upper, axisWeights(upper, axis, reads.weight, name + "_upper_weight")));
  TensorId lowerPart = check(b->mul(
      lower, axisWeights(lower, axis, lowerWeight, name + "_lower_weight")));
  return check(b->add(lowerPart, upperPart));
}

/// One axis of a cubic Resize: the four reads, in computeType, times their
/// weights, added.
TensorId Importer::resizeCubicAlong(TensorId x, std::int64_t axis,
                                    const CubicAxis &taps,
                                    ElementType computeType,
                                    const std::string &name) {
  TensorId sum = kInvalidTensor;
  for (int k = 0; k < 4; ++k) {
    const std::string tap = name + "_tap" + std::to_string(k);
    TensorId read = takeAlong(x, axis, taps.index[k], tap + "_index");
    if (elemOf(read) != computeType)
      read = check(b->cast(read, computeType));
    TensorId term = check(
        b->mul(read, axisWeights(read, axis, taps.weight[k], tap + "_weight")));
    sum = k == 0 ? term : check(b->add(sum, term));
  }
  return sum;
}

/// x resized to target.outShape: per resized axis, the input positions
/// each output reads, computed here as ONNX's reference computes them,
/// become slices, broadcasts or gathers with constant indices; linear adds
/// the two reads with constant weights (in f32 for f16 and bf16 inputs).
/// The axes are separable: n-linear is linear along each axis in turn.
TensorId Importer::resizeWith(TensorId x, const ResizeMode &mode,
                              const ResizeTarget &target) {
  const Shape shape = shapeOf(x);
  const ElementType type = elemOf(x);
  const Shape &outShape = target.outShape;
  if (checkedCount(outShape, "the output") == 0)
    return splat({type, outShape}, 0);
  // Each position of a resized axis gets its reads computed here, and a
  // gather's indices become a constant: bounded as import folding is.
  for (std::int64_t axis : target.axes)
    if (outShape[axis] > kMaxFoldEvalElements &&
        !(outShape[axis] == shape[axis] &&
          std::abs(target.scale[axis] - 1) <= 1e-9))
      fail("the output's axis " + std::to_string(axis) + " has " +
           std::to_string(outShape[axis]) +
           " positions; Resize computes each position's reads at import, "
           "for at most 2^22 positions per axis");
  // Shrinking axes first, outer to inner, then growing ones, inner to
  // outer: every later step moves fewer elements, and the step on the most
  // data reads along an outer axis, whole rows with vector loads (a gather
  // along the innermost axis reads lane by lane).
  std::vector<std::int64_t> order = target.axes;
  std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t c) {
    const bool shrinksA = outShape[a] < shape[a],
               shrinksC = outShape[c] < shape[c];
    if (shrinksA != shrinksC)
      return shrinksA;
    return shrinksA ? a < c : a > c;
  });
  const ElementType computeType =
      type == ElementType::F64 ? ElementType::F64 : ElementType::F32;
  for (std::int64_t axis : order) {
    // An axis of scale 1 that keeps its size is left alone whatever the
    // coordinate mode, as ONNX's reference and onnxruntime do
    // (tf_half_pixel_for_nearest would otherwise shift it by half a pixel).
    if (std::abs(target.scale[axis] - 1) <= 1e-9 &&
        outShape[axis] == shape[axis])
      continue;
    const std::string name =
        node->output(0) + "/resize_axis" + std::to_string(axis);
    if (mode.cubic) {
      x = resizeCubicAlong(
          x, axis,
          cubicAxis(mode, target.scale[axis], shape[axis], outShape[axis]),
          computeType, name);
      continue;
    }
    const ResizeAxis reads =
        resizeAxis(mode.linear, mode.transform, mode.nearestMode,
                   target.scale[axis], shape[axis], outShape[axis]);
    x = resizeAlong(x, axis, reads, computeType, name);
  }
  if (elemOf(x) != type)
    x = check(b->cast(x, type));
  return x;
}

/// Resize (opset 11 and later), modes nearest, linear and cubic, scales or
/// sizes known at import. Antialias and tf_crop_and_resize are refused.
std::vector<TensorId> Importer::lowerResize() {
  if (opset < 11)
    fail("Resize before opset 11 is not supported (opset 10 has no "
         "coordinate_transformation_mode; opset 11 and later are)");
  TensorId x = in(0);
  const ResizeMode mode = resizeMode(elemOf(x));
  return {resizeWith(x, mode, resizeTarget(shapeOf(x), mode.policy))};
}

/// Upsample (opsets 7 to 9; deprecated by Resize at 10): scales of at
/// least 1 for every dim (an attribute before opset 9, an input known at
/// import from it), floor(size * scale) outputs, asymmetric coordinates
/// (output o reads o / scale), nearest rounding down, as onnxruntime does.
std::vector<TensorId> Importer::lowerUpsample() {
  if (opset < 7)
    fail("Upsample before opset 7 (width_scale and height_scale) is not "
         "supported");
  TensorId x = in(0);
  const Shape shape = shapeOf(x);
  ResizeMode mode;
  const std::string name = attrString("mode", "nearest");
  if (name != "nearest" && name != "linear")
    fail("mode '" + name + "' is not supported (nearest, linear)");
  mode.linear = name == "linear";
  mode.transform = "asymmetric";
  mode.nearestMode = "floor";
  if (mode.linear && !isFloat(elemOf(x)))
    fail("mode 'linear' on " + std::string(elementTypeName(elemOf(x))) +
         " is not supported (float inputs only)");
  std::vector<double> scales;
  if (opset >= 9) {
    scales = constIn(1, "scales").toDoubles();
  } else if (const onnx::AttributeProto *a = attr("scales")) {
    scales.assign(a->floats().begin(), a->floats().end());
  }
  if (scales.size() != shape.size())
    fail("scales has " + std::to_string(scales.size()) + " entries, expected " +
         std::to_string(shape.size()) + " (one per input dim)");
  ResizeTarget target;
  target.outShape = shape;
  for (std::size_t axis = 0; axis < shape.size(); ++axis) {
    if (!(scales[axis] >= 1) || !std::isfinite(scales[axis]))
      fail("scales " + numberText(scales[axis]) + " for axis " +
           std::to_string(axis) +
           ": Upsample's scales are finite numbers of at least 1");
    target.axes.push_back(std::int64_t(axis));
    target.scale.push_back(scales[axis]);
    target.outShape[axis] =
        resizedLength(scales[axis], shape[axis], false, std::int64_t(axis));
  }
  return {resizeWith(x, mode, target)};
}

// --- Symbolic dims -----------------------------------------------------------
//
// With ImportOptions::symbolicDims, a dim left open stays a symbol of the
// graph (Graph.h, "Symbolic dims"), and the shape arithmetic an exporter
// writes around it (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, Range,
// ConstantOfShape, Expand, Where(shape == -1, 1, shape)) is carried as
// SymbolicInts: dim expressions, not tensors. The ops that read them as dims
// take them as codes of the graph's table; an op that computes with one as
// data reads it through dim_value ops. An op that reads dims numerically and
// has no symbolic form here is refused, naming the node.

namespace {

/// The op types whose lowering is right for operands with symbolic dims
/// (they compare dims, never compute with them), besides those
/// evaluateSymbolic handles itself.
bool takesSymbolicOperands(std::string_view op) {
  static const std::set<std::string_view> ops = {
      "Abs",         "Add",          "And",
      "ArgMax",      "ArgMin",       "Cast",
      "CastLike",    "Ceil",         "Clip",
      "Concat",      "Cos",          "Div",
      "Dropout",     "Elu",          "Equal",
      "Erf",         "Exp",          "Floor",
      "Gather",      "Gelu",         "Gemm",
      "Split",       "Greater",      "GreaterOrEqual",
      "HardSigmoid", "HardSwish",    "Identity",
      "IsInf",       "IsNaN",        "LayerNormalization",
      "LeakyRelu",   "Less",         "LessOrEqual",
      "Log",         "LogSoftmax",   "MatMul",
      "Max",         "Mean",         "Min",
      "Mish",        "Mod",          "Mul",
      "Neg",         "Not",          "Or",
      "Pow",         "Reciprocal",   "ReduceL1",
      "ReduceL2",    "ReduceLogSum", "ReduceLogSumExp",
      "ReduceMax",   "ReduceMean",   "ReduceMin",
      "ReduceProd",  "ReduceSum",    "ReduceSumSquare",
      "Relu",        "Round",        "Sigmoid",
      "Sign",        "Sin",          "Softmax",
      "Softplus",    "Softsign",     "Sqrt",
      "Squeeze",     "Sub",          "Sum",
      "Tan",         "Tanh",         "Transpose",
      "Unsqueeze",   "Where",        "Xor"};
  return ops.count(op) > 0;
}

} // namespace

bool Importer::touchesSymbolicDims() {
  std::set<int> used = usedInputs;
  bool symbolic = false;
  for (int i = 0; i < node->input_size() && !symbolic; ++i) {
    if (node->input(i).empty())
      continue;
    const Value &v = inputValue(i);
    symbolic = v.ints || !v.type.isStatic();
  }
  usedInputs = std::move(used);
  return symbolic;
}

std::string Importer::intsText(const SymbolicInts &ints) {
  std::string text = "[";
  for (std::size_t i = 0; i < ints.elements.size(); ++i)
    text += (i ? ", " : "") + ints.elements[i].toString();
  return text + "]";
}

std::int64_t Importer::codeOf(const DimExpr &expr, const std::string &what) {
  if (std::optional<std::int64_t> value = expr.constantValue()) {
    if (*value < 0)
      fail(what + " is " + std::to_string(*value) + ", expected a size >= 0");
    return *value;
  }
  return mainBuilder.dim(expr);
}

Shape Importer::codesOf(const std::vector<DimExpr> &exprs,
                        const std::string &what) {
  Shape codes;
  for (const DimExpr &expr : exprs)
    codes.push_back(codeOf(expr, what));
  return codes;
}

DimExpr Importer::checkedExpr(Expected<DimExpr> expr, const std::string &what) {
  if (!expr.ok())
    fail(what + ": " + expr.message());
  return expr.take();
}

std::optional<SymbolicInts> Importer::exprsIn(int i) {
  Value &v = inputValue(i);
  if (v.ints)
    return *v.ints;
  if (!v.constant || !isInteger(v.type.elementType) ||
      v.type.numElements() > 1024)
    return std::nullopt;
  SymbolicInts ints{v.type.elementType, v.type.shape, {}};
  for (std::int64_t value : v.constant->toInts())
    ints.elements.push_back(DimExpr::constant(value));
  return ints;
}

Value Importer::intsValue(SymbolicInts ints) {
  Value v;
  v.type = TensorType{ints.type, ints.shape};
  bool constant = true;
  std::vector<std::int64_t> values;
  for (const DimExpr &expr : ints.elements) {
    constant &= expr.isConstant();
    values.push_back(expr.constantValue().value_or(0));
  }
  if (constant)
    v.constant = shared(HostTensorData::fromInts(v.type, values));
  else
    v.ints = std::make_shared<const SymbolicInts>(std::move(ints));
  return v;
}

/// Each element a dim_value (or a constant), concatenated and reshaped.
TensorId Importer::materializeInts(const SymbolicInts &ints) {
  std::vector<TensorId> parts;
  const TensorType one{ints.type, {1}};
  for (const DimExpr &expr : ints.elements) {
    if (std::optional<std::int64_t> value = expr.constantValue())
      parts.push_back(
          check(b->constant(DenseValue::fromInts(one, std::vector{*value}))));
    else
      parts.push_back(check(b->dimValue(one, codeOf(expr, "a dim"))));
  }
  if (parts.empty())
    return check(
        b->constant(DenseValue::fromInts({ints.type, ints.shape}, {})));
  TensorId joined = parts.size() == 1 ? parts[0] : check(b->concat(parts, 0));
  if (parts.size() == 1 && options.symbolicDims && isInteger(ints.type))
    affine[joined] = {{DimExpr::constant(0)}, ints.elements[0]};
  return reshape(joined, ints.shape);
}

bool Importer::evaluateSymbolic(std::vector<std::optional<Value>> &constants,
                                std::vector<TensorId> &results) {
  const std::string &op = node->op_type();
  if (symbolicIntsOp(constants))
    return true;
  if (symbolicTensorOp(results))
    return true;
  if (op == "Shape" || op == "Size" || op == "Range" ||
      op == "ConstantOfShape" || op == "Expand" || op == "Reshape" ||
      op == "Slice" || op == "Flatten" || op == "GatherElements")
    return false; // handled above where symbolic; static otherwise
  // The usual lowering, where it only compares dims; symbolic shape values
  // are materialized as tensors (dim_value) where an op computes with them.
  bool symbolicTensor = false;
  std::set<int> used = usedInputs;
  for (int i = 0; i < node->input_size(); ++i)
    if (!node->input(i).empty() && !inputValue(i).type.isStatic())
      symbolicTensor = true;
  usedInputs = std::move(used);
  if (symbolicTensor && !takesSymbolicOperands(op))
    fail(op + " does not support operands with symbolic dims yet (bind the "
              "dims at import: --dim)");
  return false;
}

namespace {

/// Whether a == b for every value of the dims (1), for none (0), or it
/// depends (nullopt): a - b a nonzero constant, or of one sign with a
/// nonzero constant term, is never 0 (the dims are >= 0).
std::optional<bool> exprsEqual(const DimExpr &a, const DimExpr &b) {
  if (a == b)
    return true;
  Expected<DimExpr> difference = DimExpr::sub(a, b);
  if (!difference.ok())
    return std::nullopt;
  auto neverZero = [](const DimExpr &e) {
    std::optional<std::int64_t> constantTerm;
    for (const DimExpr::Term &term : e.terms())
      if (term.symbols.empty())
        constantTerm = term.coefficient;
    return e.isNonNegative() && constantTerm && *constantTerm > 0;
  };
  Expected<DimExpr> negated = DimExpr::sub(DimExpr(), *difference);
  if (difference->isConstant() || neverZero(*difference) ||
      (negated.ok() && neverZero(*negated)))
    return false;
  return std::nullopt;
}

} // namespace

/// Shape, Size, and the ops of shape arithmetic when an input is a symbolic
/// shape value: Identity, Cast (to an integer type), Gather, Slice,
/// Squeeze, Unsqueeze, Reshape, Concat, Add, Sub, Mul, Div, Equal, Where.
bool Importer::symbolicIntsOp(std::vector<std::optional<Value>> &constants) {
  const std::string &op = node->op_type();
  if (op == "Shape" || op == "Size") {
    const TensorType type = inType(0);
    if (type.isStatic())
      return false;
    SymbolicInts ints{ElementType::I64, {}, {}};
    if (op == "Size") {
      ints.elements.push_back(checkedExpr(
          mainBuilder.dims().product(type.shape), "the element count"));
    } else {
      std::int64_t rank = type.rank();
      std::int64_t start = attrInt("start", 0), end = attrInt("end", rank);
      start =
          std::clamp<std::int64_t>(start < 0 ? start + rank : start, 0, rank);
      end = std::clamp<std::int64_t>(end < 0 ? end + rank : end, 0, rank);
      for (std::int64_t i = start; i < end; ++i)
        ints.elements.push_back(exprOf(type.shape[i]));
      ints.shape = {std::int64_t(ints.elements.size())};
    }
    constants[0] = intsValue(std::move(ints));
    return true;
  }
  // Only where an input is a symbolic shape value.
  bool any = false;
  {
    std::set<int> used = usedInputs;
    for (int i = 0; i < node->input_size(); ++i)
      if (!node->input(i).empty() && inputValue(i).ints)
        any = true;
    usedInputs = std::move(used);
  }
  if (!any)
    return false;
  auto result = [&](SymbolicInts ints) {
    constants[0] = intsValue(std::move(ints));
    return true;
  };
  if (op == "Identity")
    return result(*exprsIn(0));
  if (op == "Cast") {
    SymbolicInts x = *exprsIn(0);
    std::optional<ElementType> to = fromOnnxType(int(attrInt("to", 0)));
    if (!to || !isInteger(*to) || *to == ElementType::I1)
      return false; // a float value of a dim: computed by ops
    attrInt("saturate", 1);
    x.type = *to;
    return result(std::move(x));
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    SymbolicInts x = *exprsIn(0);
    std::vector<std::int64_t> axes;
    if (opset >= 13 && hasInput(1))
      axes = intsIn(1, "axes");
    else if (opset < 13)
      axes = attrInts("axes").value_or(std::vector<std::int64_t>{});
    const std::int64_t rank =
        std::int64_t(x.shape.size()) +
        (op == "Unsqueeze" ? std::int64_t(axes.size()) : 0);
    std::set<std::int64_t> marked;
    for (std::int64_t a : axes)
      marked.insert(normAxis(a, op == "Unsqueeze" ? rank : x.shape.size()));
    Shape out;
    if (op == "Unsqueeze") {
      for (std::int64_t i = 0, next = 0; i < rank; ++i)
        out.push_back(marked.count(i) ? 1 : x.shape[next++]);
    } else {
      for (std::int64_t i = 0; i < std::int64_t(x.shape.size()); ++i)
        if (axes.empty() ? x.shape[i] != 1 : !marked.count(i))
          out.push_back(x.shape[i]);
    }
    x.shape = out;
    return result(std::move(x));
  }
  if (op == "Reshape" && inputValue(0).ints && !inputValue(1).ints) {
    SymbolicInts x = *exprsIn(0);
    std::vector<std::int64_t> target = intsIn(1, "shape");
    const bool allowZero = attrInt("allowzero", 0) != 0;
    const std::int64_t count = std::int64_t(x.elements.size());
    std::int64_t known = 1, inferred = -1;
    for (std::size_t i = 0; i < target.size(); ++i) {
      if (target[i] == 0 && !allowZero && i < x.shape.size())
        target[i] = x.shape[i];
      if (target[i] == -1)
        inferred = std::int64_t(i);
      else
        known *= target[i];
    }
    if (inferred >= 0 && known > 0)
      target[inferred] = count / known;
    if (checkedElementCount(target).get() != count)
      fail("cannot reshape a shape value of " + std::to_string(count) +
           " elements to " + shapeText(target));
    x.shape = target;
    return result(std::move(x));
  }
  if ((op == "Gather" || op == "Slice") && inputValue(0).ints)
    return symbolicIntsSelect(constants);
  if (op == "Concat") {
    SymbolicInts out{ElementType::I64, {0}, {}};
    for (int i = 0; i < node->input_size(); ++i) {
      std::optional<SymbolicInts> part = exprsIn(i);
      if (!part || part->shape.size() != 1)
        return false;
      out.type = part->type;
      out.elements.insert(out.elements.end(), part->elements.begin(),
                          part->elements.end());
    }
    normAxis(attrInt("axis", 0), 1);
    out.shape[0] = std::int64_t(out.elements.size());
    return result(std::move(out));
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" ||
      op == "Equal" || op == "Where")
    return symbolicIntsElementwise(constants);
  return false;
}

/// Gather (constant indices) and Slice (known bounds) of a shape value.
bool Importer::symbolicIntsSelect(
    std::vector<std::optional<Value>> &constants) {
  const std::string &op = node->op_type();
  auto result = [&](SymbolicInts ints) {
    constants[0] = intsValue(std::move(ints));
    return true;
  };
  if (op == "Gather" && inputValue(0).ints) {
    SymbolicInts data = *exprsIn(0);
    if (attrInt("axis", 0) != 0 && attrInt("axis", 0) != -1)
      fail("a Gather from a shape value takes axis 0");
    std::optional<SymbolicInts> indices = exprsIn(1);
    if (!indices || inputValue(1).ints || data.shape.size() != 1)
      return false;
    SymbolicInts out{data.type, indices->shape, {}};
    // Rank 1: its length is its element count (at most 1024).
    const std::int64_t n = std::int64_t(data.elements.size());
    for (const DimExpr &index : indices->elements) {
      std::int64_t k = *index.constantValue();
      if (k < -n || k >= n)
        fail("index " + std::to_string(k) +
             " is out of range for a shape "
             "value of " +
             std::to_string(n) + " elements");
      out.elements.push_back(data.elements[std::size_t(k < 0 ? k + n : k)]);
    }
    return result(std::move(out));
  }
  if (op == "Slice" && inputValue(0).ints) {
    SymbolicInts data = *exprsIn(0);
    if (data.shape.size() != 1 || opset < 10)
      return false;
    std::vector<std::int64_t> starts = intsIn(1, "starts"),
                              ends = intsIn(2, "ends");
    std::vector<std::int64_t> steps =
        hasInput(4) ? intsIn(4, "steps") : std::vector<std::int64_t>{1};
    if (hasInput(3))
      for (std::int64_t axis : intsIn(3, "axes"))
        normAxis(axis, 1);
    if (starts.size() != 1 || ends.size() != 1 || steps.size() != 1 ||
        steps[0] == 0)
      fail("a Slice of a shape value takes one axis and a nonzero step");
    const std::int64_t n = std::int64_t(data.elements.size()), step = steps[0];
    std::int64_t start = starts[0] < 0 ? starts[0] + n : starts[0];
    std::int64_t end =
        ends[0] < 0 ? std::max<std::int64_t>(ends[0], -n - 1) + n : ends[0];
    SymbolicInts out{data.type, {0}, {}};
    if (step > 0) {
      start = std::clamp<std::int64_t>(start, 0, n);
      end = std::clamp<std::int64_t>(end, 0, n);
      for (std::int64_t i = start; i < end; i += step)
        out.elements.push_back(data.elements[std::size_t(i)]);
    } else {
      start = std::clamp<std::int64_t>(start, -1, n - 1);
      end = std::clamp<std::int64_t>(end, -1, n - 1);
      for (std::int64_t i = start; i > end; i += step)
        out.elements.push_back(data.elements[std::size_t(i)]);
    }
    out.shape[0] = std::int64_t(out.elements.size());
    return result(std::move(out));
  }
  return false;
}

/// Add, Sub, Mul, Div (exact), Equal (decided for every value of the dims)
/// and Where (a known condition) on shape values, elementwise with a
/// one-element operand broadcast.
bool Importer::symbolicIntsElementwise(
    std::vector<std::optional<Value>> &constants) {
  const std::string &op = node->op_type();
  auto result = [&](SymbolicInts ints) {
    constants[0] = intsValue(std::move(ints));
    return true;
  };
  {
    const int first = op == "Where" ? 1 : 0;
    std::optional<SymbolicInts> a = exprsIn(first), c = exprsIn(first + 1);
    std::optional<SymbolicInts> cond;
    if (op == "Where")
      cond = exprsIn(0);
    if (!a || !c || (op == "Where" && !cond))
      return false;
    if (op == "Where" && inputValue(0).ints)
      fail("the condition of a Where on shape values must be known at "
           "import");
    // Elementwise, with a one-element operand broadcast.
    const std::size_t n =
        std::max({a->elements.size(), c->elements.size(),
                  cond ? cond->elements.size() : std::size_t(1)});
    auto at = [&](const SymbolicInts &x, std::size_t i) -> const DimExpr & {
      if (x.elements.size() != n && x.elements.size() != 1)
        fail("shape values of " + std::to_string(x.elements.size()) + " and " +
             std::to_string(n) + " elements do not broadcast");
      return x.elements[x.elements.size() == 1 ? 0 : i];
    };
    const SymbolicInts &widest =
        a->elements.size() == n ? *a : (c->elements.size() == n ? *c : *cond);
    SymbolicInts out{
        op == "Equal" ? ElementType::I1 : a->type, widest.shape, {}};
    for (std::size_t i = 0; i < n; ++i) {
      const DimExpr &x = at(*a, i), &y = at(*c, i);
      const std::string what =
          op + " of " + x.toString() + " and " + y.toString();
      if (op == "Add")
        out.elements.push_back(checkedExpr(DimExpr::add(x, y), what));
      else if (op == "Sub")
        out.elements.push_back(checkedExpr(DimExpr::sub(x, y), what));
      else if (op == "Mul")
        out.elements.push_back(checkedExpr(DimExpr::mul(x, y), what));
      else if (op == "Div")
        out.elements.push_back(checkedExpr(DimExpr::divideExact(x, y), what));
      else if (op == "Where")
        out.elements.push_back(*at(*cond, i).constantValue() != 0 ? x : y);
      else if (std::optional<bool> equal = exprsEqual(x, y))
        out.elements.push_back(DimExpr::constant(*equal));
      else
        fail("whether " + x.toString() + " == " + y.toString() +
             " depends on the values of the dims");
    }
    return result(std::move(out));
  }
  return false;
}

/// Reshape's target as dims: 0 copies the input's dim (unless allowzero),
/// -1 is the count left, divided exactly.
TensorId Importer::symbolicReshape(TensorId x, const SymbolicInts &target) {
  const bool allowZero = attrInt("allowzero", 0) != 0;
  const Shape shape = shapeOf(x);
  std::vector<DimExpr> dims;
  DimExpr known = DimExpr::constant(1);
  std::int64_t inferred = -1;
  for (std::size_t i = 0; i < target.elements.size(); ++i) {
    DimExpr dim = target.elements[i];
    if (dim.constantValue() == 0 && !allowZero) {
      if (i >= shape.size())
        fail("shape entry " + std::to_string(i) +
             " is 0 (copy) but the input has rank " +
             std::to_string(shape.size()));
      dim = exprOf(shape[i]);
    }
    if (dim.constantValue() == -1) {
      if (inferred >= 0)
        fail("the shape has more than one -1");
      inferred = std::int64_t(i);
    } else {
      known = checkedExpr(DimExpr::mul(known, dim), "the shape's count");
    }
    dims.push_back(dim);
  }
  const DimExpr count = checkedExpr(mainBuilder.dims().product(shape),
                                    "the input's element count");
  if (inferred >= 0)
    dims[std::size_t(inferred)] =
        checkedExpr(DimExpr::divideExact(count, known),
                    "the -1 of the shape " + intsText(target) +
                        " for an input of " + count.toString() + " elements");
  return reshape(x, codesOf(dims, "a dim of the shape " + intsText(target)));
}

/// Range(start, limit, delta) with a symbolic bound: start and delta known,
/// delta 1 or -1, so that the length is (limit - start) * delta; start +
/// iota * delta.
TensorId Importer::symbolicRange() {
  std::optional<SymbolicInts> start = exprsIn(0), limit = exprsIn(1),
                              delta = exprsIn(2);
  const ElementType type = inType(0).elementType;
  if (!start || !limit || !delta || start->elements.size() != 1 ||
      limit->elements.size() != 1 || delta->elements.size() != 1)
    fail("a Range over symbolic dims takes integer scalars");
  const DimExpr &startExpr = start->elements[0];
  std::optional<std::int64_t> first = startExpr.constantValue(),
                              step = delta->elements[0].constantValue();
  if (!step || (*step != 1 && *step != -1) || (!first && !isInteger(type)))
    fail("a Range over symbolic dims needs a delta of 1 or -1 and, for "
         "floats, a known start (its length, ceil((limit - start) / delta), "
         "must be a dim expression); got start " +
         startExpr.toString() + ", delta " + delta->elements[0].toString());
  DimExpr length = checkedExpr(DimExpr::sub(limit->elements[0], startExpr),
                               "the Range's length");
  if (*step < 0)
    length = checkedExpr(DimExpr::sub(DimExpr(), length), "the Range's length");
  const TensorType resultType{type, {codeOf(length, "the Range's length")}};
  TensorId y = check(b->iota(resultType, 0));
  if (*step < 0)
    y = check(b->neg(y));
  if (!first) {
    // A decoder's positions, Range(past_sequence, past_sequence +
    // sequence): the start is the dim's value, read at run time.
    TensorId at =
        check(b->dimValue({type, {1}}, codeOf(startExpr, "the Range's start")));
    y = check(b->add(y, check(b->broadcast(at, resultType.shape, {0}))));
  } else if (*first != 0) {
    y = check(b->add(y, splat(resultType, double(*first))));
  }
  if (*step == 1 && isInteger(type) && first)
    counting[y] = *first;
  if (isInteger(type))
    affine[y] = {{DimExpr::constant(*step)}, startExpr};
  return y;
}

/// Slice of a tensor with a symbolic dim on a sliced axis, or symbolic
/// starts or ends: per axis, step 1 and a known start >= 0; the end is a
/// dim expression (a symbolic dim taken to its end when the end is past
/// it). What cannot be proven in range is checked when the dims are bound.
TensorId Importer::symbolicSlice() {
  TensorId x = in(0);
  const Shape shape = shapeOf(x);
  const std::int64_t rank = std::int64_t(shape.size());
  if (opset < 10)
    fail("a Slice over symbolic dims needs opset 10 or later");
  std::optional<SymbolicInts> starts = exprsIn(1), ends = exprsIn(2);
  if (!starts || !ends || starts->elements.size() != ends->elements.size())
    fail("starts and ends must be known or dim expressions, of one length");
  std::vector<std::int64_t> axes, steps;
  if (hasInput(3))
    axes = intsIn(3, "axes");
  else
    for (std::size_t i = 0; i < starts->elements.size(); ++i)
      axes.push_back(std::int64_t(i));
  if (hasInput(4))
    steps = intsIn(4, "steps");
  else
    steps.assign(axes.size(), 1);
  if (axes.size() != starts->elements.size() || steps.size() != axes.size())
    fail("starts, ends, axes and steps differ in length");
  Shape offsets(rank, 0), sizes = shape, strides(rank, 1);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const std::int64_t axis = normAxis(axes[i], rank);
    const DimExpr &start = starts->elements[i], &end = ends->elements[i];
    const std::string what = "the slice of axis " + std::to_string(axis) +
                             " (start " + start.toString() + ", end " +
                             end.toString() + ", step " +
                             std::to_string(steps[i]) + ")";
    std::optional<std::int64_t> from = start.constantValue(),
                                to = end.constantValue();
    if (steps[i] != 1 || !from || *from < 0)
      fail(what + " needs step 1 and a known start >= 0 over symbolic dims");
    if (shape[axis] >= 0 && from && to) {
      // Static on both sides: clamped as ONNX says.
      const std::int64_t dim = shape[axis];
      std::int64_t e =
          *to < 0
              ? std::max<std::int64_t>(dimValue(CheckedInt(*to) + dim, what), 0)
              : std::min(*to, dim);
      std::int64_t s0 = std::min(*from, dim);
      offsets[axis] = s0;
      sizes[axis] = std::max<std::int64_t>(e - s0, 0);
      continue;
    }
    DimExpr stop = end;
    // An end at or past a symbolic dim's end (INT64_MAX) takes the rest.
    if (to && (*to >= (std::int64_t(1) << 62)))
      stop = exprOf(shape[axis]);
    else if (to && *to < 0)
      fail(what + ": an end counted from a symbolic dim's end is not "
                  "supported");
    offsets[axis] = *from;
    sizes[axis] = codeOf(
        checkedExpr(DimExpr::sub(stop, DimExpr::constant(*from)), what), what);
  }
  return check(b->slice(x, offsets, sizes, strides));
}

/// GatherElements over symbolic dims, where every dim but the axis is 1 in
/// the data and the indices: a gather of the axis (bert's position ids).
TensorId Importer::symbolicGatherElements() {
  TensorId data = in(0), indices = in(1);
  const Shape ds = shapeOf(data), is = shapeOf(indices);
  const std::int64_t axis =
      normAxis(attrInt("axis", 0), std::int64_t(ds.size()));
  bool ones = ds.size() == is.size();
  for (std::size_t d = 0; ones && d < ds.size(); ++d)
    ones = std::int64_t(d) == axis || (ds[d] == 1 && is[d] == 1);
  // Any element of a splat is its element (BERT's token types, a buffer
  // of zeros gathered at the positions).
  if (std::optional<TensorId> same = splatAs(data, is))
    return *same;
  if (!ones || ds[axis] < 0)
    fail("GatherElements over symbolic dims is supported where every dim "
         "but the axis is 1 (and the data's axis is static)");
  TensorId flat = reshape(data, {ds[axis]});
  TensorId rows = reshape(indices, {is[axis]});
  return reshape(check(b->gather(flat, rows, 0)), is);
}

/// The ops that read symbolic dims or shape values as dims: Reshape,
/// Expand, ConstantOfShape, Range, Slice, Flatten, GatherElements; Gather
/// and Split are refused along a symbolic axis.
bool Importer::symbolicTensorOp(std::vector<TensorId> &results) {
  const std::string &op = node->op_type();
  auto symbolicAt = [&](int i) {
    return hasInput(i) && (inputValue(i).ints || !inType(i).isStatic());
  };
  if (op == "Reshape" && opset >= 5 && (symbolicAt(0) || symbolicAt(1))) {
    std::optional<SymbolicInts> target = exprsIn(1);
    if (!target)
      fail("the shape (input 1) must be known or a dim expression");
    results.push_back(symbolicReshape(in(0), *target));
    return true;
  }
  if (op == "Expand" && (symbolicAt(0) || symbolicAt(1))) {
    TensorId x = in(0);
    std::optional<SymbolicInts> target = exprsIn(1);
    if (!target)
      fail("the shape (input 1) must be known or a dim expression");
    const Shape codes = codesOf(target->elements, "an Expand size");
    results.push_back(expandTo(x, broadcastShape(shapeOf(x), codes)));
    return true;
  }
  if (op == "ConstantOfShape" && symbolicAt(0)) {
    std::optional<SymbolicInts> shape = exprsIn(0);
    HostTensorData fill(TensorType{ElementType::F32, {}});
    if (const onnx::AttributeProto *a = attr("value")) {
      HostTensorData value = tensorFromProto(a->t(), modelFolder);
      if (value.type.numElements() != 1)
        fail("'value' must hold one element");
      fill.type.elementType = value.type.elementType;
      fill.bytes = std::move(value.bytes);
    }
    results.push_back(splatBytes(DenseValue{
        fill.type.elementType,
        codesOf(shape->elements, "a ConstantOfShape size"), fill.bytes, true}));
    return true;
  }
  if (op == "Range" && (symbolicAt(0) || symbolicAt(1) || symbolicAt(2))) {
    results.push_back(symbolicRange());
    return true;
  }
  if (op == "Slice" && symbolicAt(0)) {
    // Only where a sliced axis is symbolic, or the bounds are.
    bool symbolic = symbolicAt(1) || symbolicAt(2);
    if (!symbolic && opset >= 10) {
      const Shape shape = inType(0).shape;
      std::vector<std::int64_t> axes;
      if (hasInput(3))
        axes = intsIn(3, "axes");
      else
        for (std::size_t i = 0; i < intsIn(1, "starts").size(); ++i)
          axes.push_back(std::int64_t(i));
      for (std::int64_t axis : axes)
        symbolic |= shape[normAxis(axis, std::int64_t(shape.size()))] < 0;
    }
    if (!symbolic)
      return false;
    results.push_back(symbolicSlice());
    return true;
  }
  if (op == "Slice" && (symbolicAt(1) || symbolicAt(2))) {
    results.push_back(symbolicSlice());
    return true;
  }
  if (op == "Flatten" && symbolicAt(0)) {
    TensorId x = in(0);
    const Shape shape = shapeOf(x);
    std::int64_t rank = std::int64_t(shape.size()), axis = attrInt("axis", 1);
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis > rank)
      fail("axis out of range");
    const DimTable &dims = mainBuilder.dims();
    DimExpr outer = checkedExpr(
        dims.product(Shape(shape.begin(), shape.begin() + axis)), "Flatten");
    DimExpr inner = checkedExpr(
        dims.product(Shape(shape.begin() + axis, shape.end())), "Flatten");
    results.push_back(reshape(x, codesOf({outer, inner}, "a Flatten dim")));
    return true;
  }
  if (op == "GatherElements" && (symbolicAt(0) || symbolicAt(1))) {
    results.push_back(symbolicGatherElements());
    return true;
  }
  if ((op == "Gather" || op == "Split") && symbolicAt(0) &&
      !inputValue(0).ints) {
    const Shape shape = inType(0).shape;
    const std::int64_t axis =
        normAxis(attrInt("axis", 0), std::int64_t(shape.size()));
    // Run-time indices are checked against the bound dim when run;
    // constant ones would be checked here, against a dim not known yet.
    if (shape[axis] < 0 && (op == "Split" || inputValue(1).constant))
      fail(op + " along a symbolic dim (" +
           mainBuilder.dims().dimString(shape[axis]) + ") " +
           (op == "Split" ? "" : "with constant indices ") +
           "is not supported yet");
    return false;
  }
  return false;
}

std::span<const Importer::OpEntry> Importer::opTable() {
  using I = Importer;
  static constexpr OpEntry table[] = {
      {"Abs", &I::lowerUnary<OpKind::Abs>},
      {"Acos", &I::lowerUnary<OpKind::Acos>},
      {"Acosh", &I::lowerUnary<OpKind::Acosh>},
      {"Add", &I::lowerBinary<OpKind::Add>},
      {"And", &I::lowerBinary<OpKind::And>},
      {"ArgMax", &I::lowerArgMax},
      {"ArgMin", &I::lowerArgMax},
      {"Asin", &I::lowerUnary<OpKind::Asin>},
      {"Asinh", &I::lowerUnary<OpKind::Asinh>},
      {"Atan", &I::lowerUnary<OpKind::Atan>},
      {"Atanh", &I::lowerUnary<OpKind::Atanh>},
      {"AveragePool", &I::lowerPool},
      {"BatchNormalization", &I::lowerBatchNormalization},
      {"Cast", &I::lowerCast},
      {"CastLike", &I::lowerCast},
      {"Ceil", &I::lowerUnary<OpKind::Ceil>},
      {"Celu", &I::lowerElu},
      {"Clip", &I::lowerClip},
      {"Concat", &I::lowerConcat},
      {"Constant", nullptr, &I::evaluateConstant},
      {"ConstantOfShape", nullptr, &I::evaluateConstantOfShape},
      {"Conv", &I::lowerConv},
      {"ConvTranspose", &I::lowerConvTranspose},
      {"Cos", &I::lowerUnary<OpKind::Cos>},
      {"Cosh", &I::lowerUnary<OpKind::Cosh>},
      {"CumSum", &I::lowerCumSum},
      {"DepthToSpace", &I::lowerDepthToSpace},
      {"Div", &I::lowerBinary<OpKind::Div>},
      {"Dropout", &I::lowerDropout},
      {"Einsum", &I::lowerEinsum},
      {"Elu", &I::lowerElu},
      {"Equal", &I::lowerCompare<ComparePredicate::Eq>},
      {"Erf", &I::lowerUnary<OpKind::Erf>},
      {"Exp", &I::lowerUnary<OpKind::Exp>},
      {"Expand", &I::lowerExpand},
      {"EyeLike", &I::lowerEyeLike},
      {"Flatten", &I::lowerFlatten},
      {"Floor", &I::lowerUnary<OpKind::Floor>},
      {"GRU", &I::lowerRecurrent},
      {"Gather", &I::lowerGather},
      {"GatherElements", &I::lowerGatherElements},
      {"GatherND", &I::lowerGatherND},
      {"Gelu", &I::lowerGelu},
      {"Gemm", &I::lowerGemm},
      {"GlobalAveragePool", &I::lowerGlobalPool},
      {"GlobalMaxPool", &I::lowerGlobalPool},
      {"Greater", &I::lowerCompare<ComparePredicate::Gt>},
      {"GreaterOrEqual", &I::lowerCompare<ComparePredicate::Ge>},
      {"HardSigmoid", &I::lowerHardSigmoid},
      {"HardSwish", &I::lowerHardSigmoid},
      {"Identity", &I::lowerIdentity, &I::evaluateIdentity},
      {"InstanceNormalization", &I::lowerInstanceNormalization},
      {"IsInf", &I::lowerIsInf},
      {"IsNaN", &I::lowerUnary<OpKind::IsNaN>},
      {"LSTM", &I::lowerRecurrent},
      {"LayerNormalization", &I::lowerLayerNormalization},
      {"LeakyRelu", &I::lowerLeakyRelu},
      {"Less", &I::lowerCompare<ComparePredicate::Lt>},
      {"LessOrEqual", &I::lowerCompare<ComparePredicate::Le>},
      {"Log", &I::lowerUnary<OpKind::Log>},
      {"LogSoftmax", &I::lowerSoftmax},
      {"MatMul", &I::lowerMatMul},
      {"Max", &I::lowerVariadic},
      {"MaxPool", &I::lowerPool},
      {"Mean", &I::lowerVariadic},
      {"MeanVarianceNormalization", &I::lowerInstanceNormalization},
      {"Min", &I::lowerVariadic},
      {"Mish", &I::lowerSoftplus},
      {"Mod", &I::lowerMod},
      {"Mul", &I::lowerBinary<OpKind::Mul>},
      {"Neg", &I::lowerUnary<OpKind::Neg>},
      {"Not", &I::lowerUnary<OpKind::Not>},
      {"Or", &I::lowerBinary<OpKind::Or>},
      {"PRelu", &I::lowerLeakyRelu},
      {"Pad", &I::lowerPad},
      {"Pow", &I::lowerPow},
      {"Range", nullptr, &I::evaluateRange},
      {"Reciprocal", &I::lowerUnary<OpKind::Reciprocal>},
      {"ReduceL1", &I::lowerReduce},
      {"ReduceL2", &I::lowerReduce},
      {"ReduceLogSum", &I::lowerReduce},
      {"ReduceLogSumExp", &I::lowerReduce},
      {"ReduceMax", &I::lowerReduce},
      {"ReduceMean", &I::lowerReduce},
      {"ReduceMin", &I::lowerReduce},
      {"ReduceProd", &I::lowerReduce},
      {"ReduceSum", &I::lowerReduce},
      {"ReduceSumSquare", &I::lowerReduce},
      {"Relu", &I::lowerRelu},
      {"Reshape", &I::lowerReshape},
      {"Resize", &I::lowerResize},
      {"Round", &I::lowerUnary<OpKind::Round>},
      {"Scatter", &I::lowerScatterElements},
      {"ScatterElements", &I::lowerScatterElements},
      {"ScatterND", &I::lowerScatterND},
      {"Selu", &I::lowerElu},
      {"Shape", nullptr, &I::evaluateShapeOrSize},
      {"Shrink", &I::lowerShrink},
      {"Sigmoid", &I::lowerUnary<OpKind::Sigmoid>},
      {"Sign", &I::lowerUnary<OpKind::Sign>},
      {"Sin", &I::lowerUnary<OpKind::Sin>},
      {"Sinh", &I::lowerUnary<OpKind::Sinh>},
      {"Size", nullptr, &I::evaluateShapeOrSize},
      {"Slice", &I::lowerSlice},
      {"Softmax", &I::lowerSoftmax},
      {"Softplus", &I::lowerSoftplus},
      {"Softsign", &I::lowerSoftsign},
      {"SpaceToDepth", &I::lowerSpaceToDepth},
      {"Split", &I::lowerSplit},
      {"Sqrt", &I::lowerUnary<OpKind::Sqrt>},
      {"Squeeze", &I::lowerSqueeze},
      {"Sub", &I::lowerBinary<OpKind::Sub>},
      {"Sum", &I::lowerVariadic},
      {"Tan", &I::lowerUnary<OpKind::Tan>},
      {"Tanh", &I::lowerUnary<OpKind::Tanh>},
      {"ThresholdedRelu", &I::lowerThresholdedRelu},
      {"Tile", &I::lowerTile},
      {"TopK", &I::lowerTopK},
      {"Transpose", &I::lowerTranspose},
      {"Trilu", &I::lowerTrilu},
      {"Unsqueeze", &I::lowerSqueeze},
      {"Upsample", &I::lowerUpsample},
      {"Where", &I::lowerWhere},
      {"Xor", &I::lowerBinary<OpKind::Xor>},
  };
  // Sorted and unique: findOp searches it, supportedOps lists it.
  static_assert(std::adjacent_find(std::begin(table), std::end(table),
                                   [](const OpEntry &a, const OpEntry &c) {
                                     return a.name >= c.name;
                                   }) == std::end(table),
                "the op table must be sorted by name, without repeats");
  // Every op has a lowering, or gives its outputs at import: checked by
  // OnnxImporter.SupportedOpsAreTheOpsImported (comparing member pointers
  // is not a constant expression under GCC's UBSan, so not a static_assert).
  return table;
}

const Importer::OpEntry *Importer::findOp(std::string_view op) {
  std::span<const OpEntry> table = opTable();
  auto it = std::lower_bound(table.begin(), table.end(), op,
                             [](const OpEntry &entry, std::string_view name) {
                               return entry.name < name;
                             });
  if (it == table.end() || it->name != op)
    return nullptr;
  return &*it;
}

/// The names in opTable, in its order.
const std::vector<std::string> &supportedOpList() {
  static const std::vector<std::string> ops = [] {
    std::vector<std::string> names;
    for (const Importer::OpEntry &entry : Importer::opTable())
      names.emplace_back(entry.name);
    return names;
  }();
  return ops;
}

bool Importer::foldable() {
  // Looking is not reading: the lowering decides which inputs it reads.
  std::set<int> used = usedInputs;
  bool foldable = !folding;
  std::int64_t elements = 0;
  for (int i = 0; i < node->input_size() && foldable; ++i) {
    if (node->input(i).empty())
      continue;
    Value &v = inputValue(i);
    if (!v.constant)
      foldable = false;
    else
      elements += v.type.numElements();
  }
  usedInputs = std::move(used);
  return foldable && elements <= kMaxFoldElements && node->input_size() > 0;
}

bool Importer::fold(Lowering lower,
                    std::vector<std::optional<Value>> &constants) {
  const onnx::NodeProto &n = *node;
  std::map<std::string, Value> local;
  std::set<int> used = usedInputs;
  for (int i = 0; i < n.input_size(); ++i)
    if (!n.input(i).empty()) {
      Value v = inputValue(i);
      v.id = kInvalidTensor;
      local[n.input(i)] = std::move(v);
    }
  usedInputs = std::move(used);
  GraphBuilder foldBuilder;
  std::map<TensorId, std::vector<std::uint8_t>> savedSplats;
  std::swap(savedSplats, splats);
  std::map<TensorId, std::int64_t> savedCounting;
  std::swap(savedCounting, counting);
  std::map<TensorId, AffineIndex> savedAffine;
  std::swap(savedAffine, affine);
  GraphBuilder *savedBuilder = b;
  auto *savedValues = values;
  b = &foldBuilder;
  values = &local;
  folding = true;
  std::vector<TensorId> ids;
  auto restore = [&] {
    b = savedBuilder;
    values = savedValues;
    folding = false;
    std::swap(savedSplats, splats);
    std::swap(savedCounting, counting);
    std::swap(savedAffine, affine);
  };
  try {
    ids = (this->*lower)();
  } catch (...) {
    restore();
    throw;
  }
  restore();
  for (TensorId id : ids)
    foldBuilder.output(id);
  Expected<Graph> graph = foldBuilder.finish();
  if (!graph.ok())
    fail(graph.message());
  // Small constant inputs can make large intermediates (a CumSum's
  // triangular mask, an Expand): the interpreter holds every tensor.
  double elements = 0;
  for (const Tensor &tensor : graph->tensors) {
    double count = 1;
    for (std::int64_t dim : tensor.type.shape)
      count *= double(dim);
    elements += count;
  }
  if (elements > double(kMaxFoldEvalElements))
    return false;
  Expected<std::vector<HostTensorData>> out =
      evaluateGraph(*graph, std::span<const HostTensor>());
  if (!out.ok())
    fail("folding failed: " + out.message());
  for (std::size_t i = 0; i < out->size() && i < constants.size(); ++i) {
    Value v;
    v.type = (*out)[i].type;
    v.constant = shared(std::move((*out)[i]));
    constants[i] = std::move(v);
  }
  return true;
}

/// The main graph's other unsupported op types than `first`, with their
/// node counts, as a clause for the refusal of the first: a user learns
/// every op a model needs at once (Faster R-CNN: TopK, NonZero, RoiAlign,
/// If), not one per try.
std::string Importer::otherUnsupportedOps(const std::string &first) {
  std::map<std::string, int> others;
  for (const onnx::NodeProto &other : model.graph().node()) {
    const bool ownDomain =
        other.domain().empty() || other.domain() == "ai.onnx";
    const std::string name =
        ownDomain ? other.op_type() : other.domain() + "." + other.op_type();
    if (name != first && (!ownDomain || !findOp(other.op_type())))
      ++others[name];
  }
  if (others.empty())
    return "";
  std::string list;
  for (const auto &[name, count] : others)
    list += (list.empty() ? "" : ", ") + name + " (" + std::to_string(count) +
            (count == 1 ? " node)" : " nodes)");
  return "; the model also uses " + list + ", which it does not support either";
}

void Importer::importNode(const onnx::NodeProto &n) {
  node = &n;
  usedAttrs.clear();
  usedInputs.clear();
  try {
    if (!n.domain().empty() && n.domain() != "ai.onnx")
      fail("ops of domain '" + n.domain() + "' are not supported");
    const OpEntry *entry = findOp(n.op_type());
    if (!entry)
      fail("the op is not supported by Fuse's ONNX importer" +
           otherUnsupportedOps(n.op_type()));
    // Every op has a first output, which the evaluations write.
    if (n.output_size() == 0)
      fail("the node has no outputs (every ONNX op has at least one)");
    // Every value is defined once, as the ONNX checker requires: an output
    // may not name a graph input, an initializer, an earlier node's output,
    // one of this node's own inputs or another of its outputs.
    for (int i = 0; i < n.output_size(); ++i) {
      const std::string &name = n.output(i);
      if (name.empty())
        continue;
      for (int j = 0; j < i; ++j)
        if (n.output(j) == name)
          fail("output '" + name + "' is listed twice");
      for (const std::string &input : n.input())
        if (input == name)
          fail("output '" + name + "' is also an input of the node");
      if (values->count(name))
        fail("value '" + name +
             "' is defined twice (it is already a graph input, an "
             "initializer or the output of an earlier node)");
    }
    for (const onnx::AttributeProto &a : n.attribute())
      if (a.type() == onnx::AttributeProto::GRAPH ||
          a.type() == onnx::AttributeProto::GRAPHS ||
          !a.ref_attr_name().empty())
        fail("attribute '" + a.name() + "' is not supported");

    // A legacy (opset 1) hint with no meaning for an importer.
    attr("consumed_inputs");
    std::vector<std::optional<Value>> constants(n.output_size());
    std::vector<TensorId> results;
    bool evaluated = options.symbolicDims && touchesSymbolicDims() &&
                     evaluateSymbolic(constants, results);
    evaluated = evaluated || (entry->evaluate &&
                              (this->*entry->evaluate)(constants, results));
    if (!evaluated) {
      if (!entry->lower)
        fail("internal error: the op has no lowering");
      // Fold the node when every input is a known constant.
      if (!foldable() || !fold(entry->lower, constants))
        results = (this->*entry->lower)();
    }
    // Every attribute must have been understood.
    for (const onnx::AttributeProto &a : n.attribute())
      if (!usedAttrs.count(a.name()))
        fail("attribute '" + a.name() + "' is not supported");
    // Every input given must have been read.
    for (int i = 0; i < n.input_size(); ++i)
      if (!n.input(i).empty() && !usedInputs.count(i))
        fail("input " + std::to_string(i) + " ('" + n.input(i) +
             "') is not an input of " + n.op_type() + " at opset " +
             std::to_string(opset));
    for (int i = 0; i < n.output_size(); ++i) {
      if (n.output(i).empty())
        continue;
      Value v;
      if (constants[i]) {
        v = std::move(*constants[i]);
      } else if (std::size_t(i) < results.size()) {
        v.id = results[i];
        v.type = typeOf(results[i]);
        checkedCount(v.type.shape, "output '" + n.output(i) + "'",
                     options.symbolicDims);
        for (const std::string &input : n.input())
          if (auto it = values->find(input); it != values->end())
            v.modelInputs.insert(it->second.modelInputs.begin(),
                                 it->second.modelInputs.end());
      } else {
        fail("output " + std::to_string(i) + " ('" + n.output(i) +
             "') is not supported");
      }
      (*values)[n.output(i)] = std::move(v);
    }
    if (!b->status().ok())
      throwBuilderError();
  } catch (const NeedsConstantError &error) {
    throw NeedsConstantError(nodeLabel() + ": " + error.what(), error.needs);
  } catch (const ImportError &error) {
    throw ImportError(nodeLabel() + ": " + error.what());
  }
}

void Importer::checkVersions() {
  bool haveOpset = false;
  for (const onnx::OperatorSetIdProto &id : model.opset_import())
    if (id.domain().empty() || id.domain() == "ai.onnx") {
      opset = id.version();
      haveOpset = true;
    }
  if (!haveOpset)
    fail("the model imports no opset of the default ONNX domain");
  // The versions the ONNX checker of onnx 1.23 accepts (IR_VERSION 14,
  // opset 28); IR version 3 introduced opset imports.
  constexpr std::int64_t kMaxIrVersion = 14, kMaxOpset = 28;
  if (model.ir_version() < 3 || model.ir_version() > kMaxIrVersion)
    fail("IR version " + std::to_string(model.ir_version()) +
         " is not a valid ONNX IR version (3 to " +
         std::to_string(kMaxIrVersion) + ")");
  if (opset < 1 || opset > kMaxOpset)
    fail("opset " + std::to_string(opset) +
         " of the default ONNX domain is not a valid version (1 to " +
         std::to_string(kMaxOpset) + ")");
}

std::shared_ptr<const HostTensorData>
Importer::initializer(const onnx::TensorProto &proto,
                      std::optional<std::string_view> raw) {
  if (!initializerCache)
    return shared(tensorFromProto(proto, modelFolder, raw));
  std::lock_guard<std::mutex> lock(initializerCache->mutex);
  std::shared_ptr<const HostTensorData> &value =
      initializerCache->values[proto.name()];
  if (!value)
    value = shared(tensorFromProto(proto, modelFolder, raw));
  return value;
}

std::set<std::string>
Importer::importInitializers(const onnx::GraphProto &graph) {
  std::set<std::string> initializerNames;
  for (int k = 0; k < graph.initializer_size(); ++k) {
    const onnx::TensorProto &t = graph.initializer(k);
    if (t.name().empty())
      fail("an initializer has no name");
    // Which of two initializers of one name would hold is not defined (the
    // ONNX checker refuses the model).
    if (initializerNames.count(t.name()))
      fail("initializer '" + t.name() + "' is defined twice");
    Value v;
    try {
      v.constant = initializer(t, std::size_t(k) < rawData.size()
                                      ? rawData[std::size_t(k)]
                                      : std::nullopt);
    } catch (const ImportError &error) {
      fail(std::string("initializer '") + t.name() + "': " + error.what());
    }
    v.type = v.constant->type;
    initializerNames.insert(t.name());
    mainValues[t.name()] = std::move(v);
    // Its value holds the bytes now; nothing reads the proto's again.
    if (consumable && t.has_raw_data())
      delete consumable->mutable_graph()
          ->mutable_initializer(k)
          ->release_raw_data();
  }
  if (graph.sparse_initializer_size())
    fail("sparse initializers are not supported");
  return initializerNames;
}

Importer::GivenDims Importer::dimsOfGivenInputs(const onnx::GraphProto &graph) {
  GivenDims fromInputs;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    auto given = options.inputShapes.find(input.name());
    if (given == options.inputShapes.end() ||
        !input.type().tensor_type().has_shape())
      continue;
    const onnx::TensorShapeProto &declared = input.type().tensor_type().shape();
    if (given->second.size() != std::size_t(declared.dim_size()))
      continue;
    for (int i = 0; i < declared.dim_size(); ++i) {
      const onnx::TensorShapeProto_Dimension &dim = declared.dim(i);
      if (dim.has_dim_value())
        continue;
      std::string param = dim.has_dim_param() ? dim.dim_param() : "";
      std::int64_t size = given->second[std::size_t(i)];
      auto [bound, added] = fromInputs.emplace(
          param.empty() ? input.name() + ":" + std::to_string(i) : param,
          std::make_pair(size, input.name()));
      if (!added && bound->second.first != size)
        fail("dimension '" + param + "' is " +
             std::to_string(bound->second.first) + " in the value given " +
             "for input '" + bound->second.second + "' and " +
             std::to_string(size) + " in the one given for input '" +
             input.name() + "'");
    }
  }
  return fromInputs;
}

Shape Importer::inputShape(const std::string &name,
                           const onnx::TensorShapeProto &declared,
                           const GivenDims &fromInputs,
                           std::set<std::string> &usedDims) {
  Shape shape;
  for (int i = 0; i < declared.dim_size(); ++i) {
    const onnx::TensorShapeProto_Dimension &dim = declared.dim(i);
    if (dim.has_dim_value()) {
      if (dim.dim_value() < 0)
        fail("input '" + name + "' dimension " + std::to_string(i) +
             " is negative");
      shape.push_back(dim.dim_value());
      continue;
    }
    std::string param = dim.has_dim_param() ? dim.dim_param() : "";
    std::string key = name + ":" + std::to_string(i);
    auto it = param.empty() ? options.dims.end() : options.dims.find(param);
    if (it == options.dims.end())
      it = options.dims.find(key);
    if (auto bound = fromInputs.find(param.empty() ? key : param);
        it == options.dims.end() && bound != fromInputs.end()) {
      shape.push_back(bound->second.first);
      continue;
    }
    if (it == options.dims.end() && options.symbolicDims) {
      const std::string &symbol = param.empty() ? key : param;
      auto same =
          std::find_if(unified.begin(), unified.end(),
                       [&](const UnifiedDim &u) { return u.symbol == symbol; });
      shape.push_back(same == unified.end() ? mainBuilder.symbol(symbol)
                                            : mainBuilder.dim(same->expr));
      continue;
    }
    if (it == options.dims.end())
      fail("input '" + name + "' dimension " + std::to_string(i) +
           (param.empty() ? " (unnamed)" : " ('" + param + "')") +
           " is dynamic; bind it with --dim " + (param.empty() ? key : param) +
           "=VALUE or give the input");
    if (it->second < 0)
      fail("--dim " + it->first + " is negative");
    usedDims.insert(it->first);
    shape.push_back(it->second);
  }
  return shape;
}

void Importer::importInputs(const onnx::GraphProto &graph,
                            const std::set<std::string> &initializerNames,
                            ImportedModel &result) {
  std::set<std::string> usedDims, usedConstants, inputNames;
  // Dims bound by the shapes of given inputs (by dim_param, or INPUT:INDEX
  // for an unnamed one): the size, and the input that gave it.
  const GivenDims fromInputs = dimsOfGivenInputs(graph);
  for (const onnx::ValueInfoProto &input : graph.input()) {
    const std::string &name = input.name();
    // Two inputs of one name would bind one value to two arguments.
    if (!inputNames.insert(name).second)
      fail("graph input '" + name + "' is listed twice");
    if (initializerNames.count(name))
      continue;
    if (name.empty())
      fail("a graph input has no name");
    if (!input.type().has_tensor_type())
      fail("input '" + name + "' is not a tensor");
    const onnx::TypeProto_Tensor &tensor = input.type().tensor_type();
    ElementType type = requireType(tensor.elem_type(), "input '" + name + "'");
    Shape shape;
    if (tensor.has_shape()) {
      shape = inputShape(name, tensor.shape(), fromInputs, usedDims);
    } else {
      // No rank declared (onnxruntime takes any): the shape of the value
      // given for it, as if each of its dims were dynamic and bound by it.
      auto given = options.inputShapes.find(name);
      if (given == options.inputShapes.end())
        fail("input '" + name +
             "' has no shape (its rank is unknown): give its value "
             "(fuse-run --input " +
             name + "=FILE), whose shape it then takes");
      shape.assign(given->second.begin(), given->second.end());
    }
    checkedCount(shape, "input '" + name + "'", options.symbolicDims);
    Value v;
    v.type = TensorType{type, shape};
    if (auto bound = options.constantInputs.find(name);
        bound != options.constantInputs.end()) {
      if (bound->second.type != v.type)
        fail("the value bound to input '" + name + "' is a " +
             bound->second.type.toString() + ", but the input is a " +
             v.type.toString());
      usedConstants.insert(name);
      v.constant = shared(HostTensorData(bound->second));
      result.modelInputs.push_back(kBoundAtImport);
      mainValues[name] = std::move(v);
      continue;
    }
    v.id = mainBuilder.input(v.type, name);
    v.modelInputs.insert(name);
    result.modelInputs.push_back(mainBuilder.graph().inputs.size() - 1);
    mainValues[name] = std::move(v);
  }
  for (const auto &[inputName, value] : options.constantInputs)
    if (!usedConstants.count(inputName))
      fail("a value is bound to '" + inputName +
           "', which is not an input of the model");
  for (const auto &[dimName, value] : options.dims)
    if (!usedDims.count(dimName))
      fail("--dim " + dimName +
           " names no dynamic dimension of the model's "
           "inputs");
}

void Importer::checkDeclaredOutput(const onnx::ValueInfoProto &output,
                                   TensorId id) {
  if (output.type().has_tensor_type() &&
      output.type().tensor_type().elem_type() != 0) {
    std::optional<ElementType> declared =
        fromOnnxType(output.type().tensor_type().elem_type());
    if (declared && *declared != mainBuilder.graph().typeOf(id).elementType)
      fail("output '" + output.name() + "' is declared " +
           onnxTypeName(output.type().tensor_type().elem_type()) +
           " but computes " +
           std::string(
               elementTypeName(mainBuilder.graph().typeOf(id).elementType)));
  }
  // A fully static declared shape must be the computed one.
  if (output.type().has_tensor_type() &&
      output.type().tensor_type().has_shape()) {
    const onnx::TensorShapeProto &declared =
        output.type().tensor_type().shape();
    Shape declaredShape;
    bool isStatic = true;
    for (const onnx::TensorShapeProto_Dimension &dim : declared.dim()) {
      isStatic &= dim.has_dim_value();
      declaredShape.push_back(dim.dim_value());
    }
    const Shape computed = mainBuilder.graph().typeOf(id).shape;
    if (isStatic && declaredShape != computed)
      fail("output '" + output.name() + "' is declared with shape " +
           shapeText(declaredShape) + " but computes " + shapeText(computed));
  }
}

void Importer::importOutputs(const onnx::GraphProto &graph) {
  if (graph.output_size() == 0)
    fail("the graph has no outputs");
  for (const onnx::ValueInfoProto &output : graph.output()) {
    auto it = mainValues.find(output.name());
    if (it == mainValues.end())
      fail("output '" + output.name() + "' is computed by no node");
    TensorId id = materialize(output.name(), it->second);
    checkDeclaredOutput(output, id);
    mainBuilder.output(id, output.name());
  }
}

/// Drops the ops whose results nothing reads (the splats and broadcasts of
/// symbolic shape that a fold left behind: a compiler would make kernels
/// of them, which write nothing anyone reads), and their tensors: the
/// others keep their order, renumbered.
void dropDeadOps(Graph &graph) {
  std::vector<bool> used(graph.tensors.size(), false);
  for (const GraphOutput &output : graph.outputs)
    used[output.tensor] = true;
  std::vector<bool> live(graph.ops.size(), false);
  for (std::size_t i = graph.ops.size(); i-- > 0;) {
    const Op &op = graph.ops[i];
    live[i] = std::any_of(op.results.begin(), op.results.end(),
                          [&](TensorId result) { return used[result]; });
    if (live[i])
      for (TensorId operand : op.operands)
        used[operand] = true;
  }
  std::vector<bool> kept(graph.tensors.size(), false);
  for (TensorId input : graph.inputs)
    kept[input] = true;
  for (std::size_t i = 0; i < graph.ops.size(); ++i)
    if (live[i])
      for (TensorId result : graph.ops[i].results)
        kept[result] = true;
  std::vector<TensorId> renumbered(graph.tensors.size(), kInvalidTensor);
  std::vector<Tensor> tensors;
  for (std::size_t id = 0; id < graph.tensors.size(); ++id)
    if (kept[id]) {
      renumbered[id] = TensorId(tensors.size());
      tensors.push_back(std::move(graph.tensors[id]));
    }
  std::vector<Op> ops;
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    if (!live[i])
      continue;
    Op &op = graph.ops[i];
    for (TensorId &operand : op.operands)
      operand = renumbered[operand];
    for (TensorId &result : op.results)
      result = renumbered[result];
    ops.push_back(std::move(op));
  }
  graph.tensors = std::move(tensors);
  graph.ops = std::move(ops);
  for (TensorId &input : graph.inputs)
    input = renumbered[input];
  for (GraphOutput &output : graph.outputs)
    output.tensor = renumbered[output.tensor];
}

ImportedModel Importer::run() {
  checkVersions();
  if (!model.has_graph())
    fail("the model has no graph");
  std::set<std::string> initializerNames = importInitializers(model.graph());
  // The initializers' values (shared), for an import that starts again.
  const std::map<std::string, Value> initializers = mainValues;
  std::unique_ptr<Importer> again;
  for (Importer *importer = this;;) {
    try {
      return importer->importGraph(initializerNames);
    } catch (const Unification &found) {
      // Each unification removes a symbol from the graph: this ends.
      std::vector<UnifiedDim> known = importer->unified;
      for (const UnifiedDim &u : known)
        if (u.symbol == found.unified.symbol)
          fail("internal error: dim '" + u.symbol + "' unified twice");
      for (UnifiedDim &u : known) {
        Expected<DimExpr> e =
            substituted(u.expr, found.unified.symbol, found.unified.expr);
        if (!e.ok())
          fail(found.unified.where + ": dim '" + u.symbol +
               "': " + e.message());
        u.expr = e.take();
      }
      known.push_back(found.unified);
      again = std::make_unique<Importer>(model, options, modelFolder,
                                         initializerCache);
      again->opset = opset;
      again->mainValues = initializers;
      again->unified = std::move(known);
      importer = again.get();
    }
  }
}

ImportedModel
Importer::importGraph(const std::set<std::string> &initializerNames) {
  const onnx::GraphProto &graph = model.graph();
  ImportedModel result;
  importInputs(graph, initializerNames, result);
  for (const onnx::NodeProto &node : graph.node())
    importNode(node);
  importOutputs(graph);
  Expected<Graph> built = mainBuilder.finish();
  if (!built.ok())
    fail(built.message());
  result.graph = built.take();
  if (result.graph.isSymbolic())
    dropDeadOps(result.graph);
  weights.resize(result.graph.inputs.size());
  result.weights = std::move(weights);
  result.opsetVersion = opset;
  result.unifiedDims = unified;
  return result;
}

/// A model or tensor file: a regular file no larger than protobuf can parse
/// (never a directory, a FIFO or /dev/zero, which would hang or exhaust
/// memory).
Expected<std::string> readFile(const std::string &path) {
  return readRegularFile(path, std::uint64_t(std::numeric_limits<int>::max()));
}

/// Parses `bytes` into `message`; false where protobuf cannot, as for more
/// bytes than its int sizes reach.
bool parseProto(google::protobuf::MessageLite &message,
                std::string_view bytes) {
  return bytes.size() <= std::size_t(std::numeric_limits<int>::max()) &&
         message.ParseFromArray(bytes.data(), int(bytes.size()));
}

/// A model parsed from its bytes, split where the split applies
/// (splitInitializerData): then `rawData` holds its initializers' raw_data,
/// views into the bytes parsed, which must outlive it.
struct ParsedBytes {
  onnx::ModelProto model;
  std::vector<std::optional<std::string_view>> rawData;
};

/// Parses `bytes` into `parsed`, the initializers' raw_data left in place
/// where the split applies; false where protobuf cannot parse them.
bool parseModelBytes(std::string_view bytes, ParsedBytes &parsed) {
  if (std::optional<SplitModel> split = splitInitializerData(bytes)) {
    if (!parseProto(parsed.model, split->skeleton))
      return false;
    // One per initializer of the graph, whatever the skeleton holds.
    if (parsed.model.graph().initializer_size() ==
        std::int64_t(split->rawData.size()))
      parsed.rawData = std::move(split->rawData);
    else
      parsed.rawData.clear();
    return true;
  }
  parsed.rawData.clear();
  return parseProto(parsed.model, bytes);
}

/// A model file's bytes, mapped, and what they parse into.
struct ParsedFile : ParsedBytes {
  MappedFile mapped;
};

/// Parses the model file `path` into `parsed`, read in place: the file is
/// mapped, never copied, and its initializers' raw_data are read from the
/// mapping by the import (protobuf's own copy of them, and the pages it
/// touched, were most of a warm start's import). Fails as readFile does for
/// a file that is not a regular one or larger than protobuf parses, and
/// with `notParsed` where protobuf cannot parse it.
Status parseModelFile(const std::string &path, ParsedFile &parsed,
                      const std::string &notParsed) {
  Expected<RegularFile> file = RegularFile::open(path);
  if (!file.ok())
    return file.status();
  const std::uint64_t maxBytes = std::numeric_limits<int>::max();
  if (file->size() > maxBytes)
    return Status::error("'" + path + "' is larger than " +
                         std::to_string(maxBytes) +
                         " bytes, the most accepted");
  Expected<MappedFile> mapped = MappedFile::map(*file);
  if (!mapped.ok())
    return mapped.status();
  parsed.mapped = mapped.take();
  if (parseModelBytes(parsed.mapped.bytes(), parsed))
    return Status::success();
  return Status::error(notParsed);
}

/// Imports `model`; when an operand that must be a constant is not, and
/// `needs` is given, the model inputs it is computed from go there. External
/// data is read from `modelFolder` only (none when empty).
Expected<ImportedModel>
importParsed(const onnx::ModelProto &model, const ImportOptions &options,
             const std::string &sourceName,
             std::vector<ConstantInputNeed> *needs = nullptr,
             const std::string &modelFolder = {},
             InitializerCache *initializers = nullptr,
             onnx::ModelProto *consumable = nullptr,
             std::span<const std::optional<std::string_view>> rawData = {}) {
  try {
    Importer importer(model, options, modelFolder, initializers);
    importer.consumeInitializers(consumable);
    importer.readRawDataFrom(rawData);
    return importer.run();
  } catch (const NeedsConstantError &error) {
    if (needs)
      *needs = error.needs;
    return Status::error("'" + sourceName + "': " + error.what());
  } catch (const ImportError &error) {
    return Status::error("'" + sourceName + "': " + error.what());
  } catch (const std::exception &error) {
    return Status::error("'" + sourceName +
                         "': internal error: " + error.what());
  }
}

/// importParsed of the model in `bytes`, named `sourceName` in errors.
Expected<ImportedModel> importBytes(std::string_view bytes,
                                    const ImportOptions &options,
                                    const std::string &sourceName,
                                    std::vector<ConstantInputNeed> *needs,
                                    const std::string &modelFolder = {}) {
  ParsedBytes parsed;
  if (!parseModelBytes(bytes, parsed))
    return Status::error("'" + sourceName +
                         "' is not a valid ONNX model (the protobuf does not "
                         "parse)");
  if (!parsed.model.has_graph())
    return Status::error("'" + sourceName +
                         "' is not a valid ONNX model (it has no graph)");
  return importParsed(parsed.model, options, sourceName, needs, modelFolder,
                      nullptr, nullptr, parsed.rawData);
}

} // namespace

/// The folder of the model file `path` (its external data's only place).
static std::string modelFolderOf(const std::string &path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

Expected<ImportedModel> importModel(std::string_view bytes,
                                    const ImportOptions &options,
                                    const std::string &sourceName,
                                    std::vector<ConstantInputNeed> *needs) {
  return importBytes(bytes, options, sourceName, needs);
}

struct ParsedModel::State {
  ParsedFile file;
  std::string path, folder;
  /// Read by the first import, shared by the others.
  InitializerCache initializers;
};

ParsedModel::ParsedModel(std::unique_ptr<State> state)
    : state(std::move(state)) {}
ParsedModel::~ParsedModel() = default;
ParsedModel::ParsedModel(ParsedModel &&) noexcept = default;
ParsedModel &ParsedModel::operator=(ParsedModel &&) noexcept = default;

Expected<ParsedModel> ParsedModel::readFile(const std::string &path) {
  auto state = std::make_unique<State>();
  if (Status parsed =
          parseModelFile(path, state->file,
                         "'" + path +
                             "' is not a valid ONNX model (the protobuf does "
                             "not parse)");
      !parsed.ok())
    return parsed;
  if (!state->file.model.has_graph())
    return Status::error("'" + path +
                         "' is not a valid ONNX model (it has no graph)");
  state->path = path;
  state->folder = modelFolderOf(path);
  return ParsedModel(std::move(state));
}

Expected<ImportedModel>
ParsedModel::import(const ImportOptions &options,
                    std::vector<ConstantInputNeed> *needs) const {
  return importParsed(state->file.model, options, state->path, needs,
                      state->folder, &state->initializers, nullptr,
                      state->file.rawData);
}

Expected<ImportedModel> importModelFile(const std::string &path,
                                        const ImportOptions &options,
                                        std::vector<ConstantInputNeed> *needs) {
  ParsedFile parsed;
  if (Status status =
          parseModelFile(path, parsed,
                         "'" + path +
                             "' is not a valid ONNX model (the protobuf does "
                             "not parse)");
      !status.ok())
    return status;
  if (!parsed.model.has_graph())
    return Status::error("'" + path +
                         "' is not a valid ONNX model (it has no graph)");
  return importParsed(parsed.model, options, path, needs, modelFolderOf(path),
                      nullptr, &parsed.model, parsed.rawData);
}

Expected<NamedTensor> parseTensorProto(std::string_view bytes) {
  onnx::TensorProto proto;
  if (!parseProto(proto, bytes))
    return Status::error("not a valid ONNX TensorProto");
  try {
    HostTensorData data = tensorFromProto(proto);
    return NamedTensor{proto.name(), std::move(data)};
  } catch (const ImportError &error) {
    return Status::error(error.what());
  }
}

Expected<NamedTensor> readTensorProtoFile(const std::string &path) {
  Expected<std::string> bytes = readFile(path);
  if (!bytes.ok())
    return bytes.status();
  Expected<NamedTensor> tensor = parseTensorProto(*bytes);
  if (!tensor.ok())
    return Status::error("'" + path + "': " + tensor.message());
  return tensor;
}

const std::vector<std::string> &supportedOps() { return supportedOpList(); }

bool isSupportedOp(std::string_view opType) {
  const std::vector<std::string> &ops = supportedOpList();
  return std::binary_search(ops.begin(), ops.end(), opType);
}

namespace {

/// The model file `path` parsed, its initializers' raw_data left out where
/// the split applies (these callers read the model's structure only).
Expected<onnx::ModelProto> parseModelFile(const std::string &path) {
  ParsedFile parsed;
  if (Status status = parseModelFile(
          path, parsed, "'" + path + "' is not a valid ONNX model");
      !status.ok())
    return status;
  return std::move(parsed.model);
}

} // namespace

Expected<std::vector<std::string>> modelInputNames(const std::string &path) {
  Expected<onnx::ModelProto> model = parseModelFile(path);
  if (!model.ok())
    return model.status();
  std::set<std::string> initializers;
  for (const onnx::TensorProto &t : model->graph().initializer())
    initializers.insert(t.name());
  std::vector<std::string> names;
  for (const onnx::ValueInfoProto &input : model->graph().input())
    if (!initializers.count(input.name()))
      names.push_back(input.name());
  return names;
}

Expected<ModelDeclarations> modelDeclarations(const std::string &path) {
  Expected<onnx::ModelProto> model = parseModelFile(path);
  if (!model.ok())
    return model.status();
  ModelDeclarations declarations;
  std::set<std::string, std::less<>> &initializers = declarations.initializers;
  for (const onnx::TensorProto &t : model->graph().initializer())
    initializers.insert(t.name());
  std::vector<DeclaredInput> &inputs = declarations.inputs;
  for (const onnx::ValueInfoProto &input : model->graph().input()) {
    if (initializers.count(input.name()))
      continue;
    DeclaredInput declared;
    declared.name = input.name();
    const onnx::TypeProto_Tensor &tensor = input.type().tensor_type();
    declared.hasShape = tensor.has_shape();
    for (const onnx::TensorShapeProto_Dimension &dim : tensor.shape().dim()) {
      declared.shape.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
      declared.dimNames.push_back(dim.has_dim_param() ? dim.dim_param() : "");
    }
    inputs.push_back(std::move(declared));
  }
  return declarations;
}

Expected<std::vector<ConstantInputNeed>>
inputsNeededAsConstants(const std::string &path, const ImportOptions &options) {
  ParsedFile parsed;
  if (Status status = parseModelFile(
          path, parsed, "'" + path + "' is not a valid ONNX model");
      !status.ok())
    return status;
  std::vector<ConstantInputNeed> needs;
  (void)importParsed(parsed.model, options, path, &needs, modelFolderOf(path),
                     nullptr, nullptr, parsed.rawData);
  return needs;
}

Expected<std::vector<std::string>> modelOpTypes(const std::string &path) {
  Expected<onnx::ModelProto> model = parseModelFile(path);
  if (!model.ok())
    return model.status();
  std::vector<std::string> ops;
  for (const onnx::NodeProto &n : model->graph().node())
    ops.push_back(n.domain().empty() || n.domain() == "ai.onnx"
                      ? n.op_type()
                      : n.domain() + "." + n.op_type());
  return ops;
}

} // namespace fuse::onnximport
