//===- Verifier.cpp - Result-type inference and graph validation ----------===//

#include "runtime/ir/Verifier.h"

#include "runtime/ir/CheckedInt.h"

#include "runtime/ir/WindowShape.h"

#include <algorithm>
#include <sstream>
#include <tuple>

using namespace fuse;

namespace {

template <typename... Parts> std::string cat(const Parts &...parts) {
  std::ostringstream stream;
  (stream << ... << parts);
  return stream.str();
}

template <typename... Parts> Status fail(const Parts &...parts) {
  return Status::error(cat(parts...));
}

std::string listString(std::span<const std::int64_t> values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

/// A type with its symbolic dims named (Graph::typeString's form).
std::string typeText(const TensorType &type, const DimTable *dims) {
  if (!dims || type.isStatic())
    return type.toString();
  std::string text = "tensor<";
  for (std::int64_t dim : type.shape)
    text +=
        (dim < 0 ? "?{" + dims->dimString(dim) + "}" : std::to_string(dim)) +
        "x";
  return text + std::string(elementTypeName(type.elementType)) + ">";
}

} // namespace

/// The f8/f4 types are for casts and data movement (as in the dialect): no
/// float rule accepts them, nor Numeric.
bool fuse::followsTypeRule(ElementType type, TypeRule rule) {
  switch (rule) {
  case TypeRule::Float:
  case TypeRule::FloatPred:
    return isFloat(type) && !isLowPrecisionFloat(type);
  case TypeRule::Numeric:
    return type != ElementType::I1 && !isLowPrecisionFloat(type);
  case TypeRule::Integer:
    return isInteger(type);
  case TypeRule::Any:
    return true;
  }
  return false;
}

namespace {

/// The types a rule accepts, listed from the element type table (so the
/// message names every type, also those added later).
std::string typeRuleDescription(TypeRule rule) {
  auto accepted = [&] {
    std::string names;
    for (ElementType type : allElementTypes())
      if (followsTypeRule(type, rule))
        names += cat(names.empty() ? "" : ", ", elementTypeName(type));
    return names;
  };
  switch (rule) {
  case TypeRule::Float:
  case TypeRule::FloatPred:
    return cat("a float type (", accepted(), ")");
  case TypeRule::Numeric:
    return "a numeric type (any but i1 and the f8/f4 types)";
  case TypeRule::Integer:
    return cat("an integer type (", accepted(), ")");
  case TypeRule::Any:
    return "any element type";
  }
  return "";
}

Status checkDense(const DenseValue &value, const DimTable *dims) {
  if (Status status = checkTensorType(value.type(), "attribute 'value'", dims);
      !status.ok())
    return status;
  if (!value.splat && !value.type().isStatic())
    return fail("attribute 'value' is a full constant of symbolic type ",
                typeText(value.type(), dims),
                " (only a splat may have symbolic dims)");
  const std::int64_t elements = value.splat ? 1 : value.type().numElements();
  const std::int64_t expected = elements * byteSize(value.elementType);
  if (std::int64_t(value.bytes.size()) != expected)
    return fail("attribute 'value' holds ", value.bytes.size(),
                " bytes, expected ", expected, " (",
                value.splat ? std::string("one splat element")
                            : cat(elements, " elements"),
                " of ", elementTypeName(value.elementType), ")");
  if (value.elementType == ElementType::I1)
    for (std::uint8_t byte : value.bytes)
      if (byte > 1)
        return fail("attribute 'value' has an i1 element stored as ", int(byte),
                    ", expected 0 or 1");
  // The sub-byte types take a byte each, extended from their bits.
  const unsigned bits = value.elementType == ElementType::F4E2M1FN
                            ? 4
                            : integerBitWidth(value.elementType);
  if (bits == 2 || bits == 4) {
    const bool signExtended = value.elementType == ElementType::I4 ||
                              value.elementType == ElementType::I2;
    for (std::uint8_t byte : value.bytes) {
      std::uint8_t canonical = byte & ((1u << bits) - 1);
      if (signExtended && (canonical >> (bits - 1)))
        canonical |= std::uint8_t(0xFF << bits);
      if (byte != canonical)
        return fail("attribute 'value' stores an element of ",
                    elementTypeName(value.elementType), " as ", int(byte),
                    ", expected its ", bits, " bits ",
                    signExtended ? "sign" : "zero", "-extended to the byte");
    }
  }
  return Status::success();
}

std::string allowedAttrNames(OpKind kind) {
  const auto specs = opInfo(kind).attributes;
  if (specs.empty())
    return "this op takes no attributes";
  std::string text = "allowed: ";
  for (std::size_t i = 0; i < specs.size(); ++i)
    text += cat(i ? ", " : "", specs[i].name);
  return text;
}

Status checkAttributes(OpKind kind, const AttrMap &attributes,
                       const DimTable *dims) {
  for (const auto &[name, attribute] : attributes) {
    const AttrSpec *spec = findAttrSpec(kind, name);
    if (!spec)
      return fail("unknown attribute '", name, "' (", allowedAttrNames(kind),
                  ")");
    if (attribute.kind() != spec->kind)
      return fail("attribute '", name, "' must be ", attrKindName(spec->kind),
                  ", got ", attrKindName(attribute.kind()));
    if (spec->kind == AttrKind::Enum) {
      const auto allowed = enumAttrValues(kind, name);
      if (std::find(allowed.begin(), allowed.end(), attribute.getEnumName()) ==
          allowed.end()) {
        std::string names;
        for (std::size_t i = 0; i < allowed.size(); ++i)
          names += cat(i ? ", " : "", allowed[i]);
        return fail("attribute '", name, "' is \"", attribute.getEnumName(),
                    "\", expected one of ", names);
      }
    }
    if (spec->kind == AttrKind::Dense)
      if (Status status = checkDense(attribute.getDense(), dims); !status.ok())
        return status;
  }
  for (const AttrSpec &spec : opInfo(kind).attributes)
    if (spec.required && !attributes.count(spec.name))
      return fail("missing required attribute '", spec.name, "'");
  return Status::success();
}

bool flag(const AttrMap &attributes, std::string_view name) {
  auto it = attributes.find(name);
  return it != attributes.end() && it->second.getFlag();
}

const std::vector<std::int64_t> &array(const AttrMap &attributes,
                                       std::string_view name) {
  return attributes.find(name)->second.getI64Array();
}

/// Strictly increasing values in [0, rank).
Status checkDimList(std::span<const std::int64_t> dims, std::int64_t rank,
                    std::string_view attrName) {
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= rank)
      return fail("attribute '", attrName, "' = ", listString(dims),
                  " has dim ", dims[i], " out of range [0, ", rank, ")");
    if (i > 0 && dims[i] <= dims[i - 1])
      return fail("attribute '", attrName, "' = ", listString(dims),
                  " must be strictly increasing");
  }
  return Status::success();
}

Status checkAxis(std::int64_t axis, std::int64_t rank) {
  if (axis < 0 || axis >= rank)
    return fail("attribute 'axis' = ", axis, " out of range [0, ", rank, ")");
  return Status::success();
}

Expected<TensorType> inferElementwise(OpKind kind,
                                      std::span<const TensorType> operands,
                                      const AttrMap &attributes) {
  const OpInfo &info = opInfo(kind);
  for (std::size_t i = 1; i < operands.size(); ++i)
    if (operands[i] != operands[0])
      return fail("operand ", i, " has type ", operands[i].toString(),
                  ", expected ", operands[0].toString(),
                  " (the type of operand 0; there is no implicit "
                  "broadcasting)");
  if (!isInteger(operands[0].elementType) && flag(attributes, "is_unsigned"))
    return fail("attribute 'is_unsigned' needs integer operands, got ",
                elementTypeName(operands[0].elementType));
  TensorType result = operands[0];
  if (info.typeRule == TypeRule::FloatPred)
    result.elementType = ElementType::I1;
  return result;
}

Expected<TensorType> inferCompare(std::span<const TensorType> operands,
                                  const AttrMap &attributes) {
  if (operands[1] != operands[0])
    return fail("operand 1 has type ", operands[1].toString(), ", expected ",
                operands[0].toString(), " (the type of operand 0)");
  const ComparePredicate predicate = *parseComparePredicate(
      attributes.find("predicate")->second.getEnumName());
  if (isFloat(operands[0].elementType) && predicate >= ComparePredicate::Ult)
    return fail("predicate '", comparePredicateName(predicate),
                "' reads integers as unsigned and is not allowed on ",
                elementTypeName(operands[0].elementType), " operands");
  return TensorType{ElementType::I1, operands[0].shape};
}

Expected<TensorType> inferSelect(std::span<const TensorType> operands) {
  if (operands[0].elementType != ElementType::I1)
    return fail("operand 0 (the condition) has element type ",
                elementTypeName(operands[0].elementType), ", expected i1");
  if (operands[2] != operands[1])
    return fail("operand 2 has type ", operands[2].toString(), ", expected ",
                operands[1].toString(), " (the type of operand 1)");
  if (operands[0].shape != operands[1].shape)
    return fail("operand 0 (the condition) has type ", operands[0].toString(),
                ", expected the shape of operand 1, ", operands[1].toString());
  return operands[1];
}

Expected<TensorType> inferCast(std::span<const TensorType> operands,
                               const AttrMap &attributes,
                               const TensorType &declared) {
  if (flag(attributes, "is_unsigned") && !isInteger(operands[0].elementType))
    return fail("attribute 'is_unsigned' needs an integer operand, got ",
                elementTypeName(operands[0].elementType));
  const ElementType to = declared.elementType;
  if (flag(attributes, "saturate") &&
      !(isLowPrecisionFloat(to) && to != ElementType::F4E2M1FN))
    return fail("attribute 'saturate' needs an f8 result, got ",
                elementTypeName(to));
  if (attributes.count("round_mode") && to != ElementType::F8E8M0FNU)
    return fail("attribute 'round_mode' needs an f8E8M0FNU result, got ",
                elementTypeName(to));
  if (declared.shape != operands[0].shape)
    return fail("result type ", declared.toString(),
                " must have the operand's shape, ", operands[0].toString());
  return declared;
}

Expected<TensorType> inferBroadcast(const TensorType &operand,
                                    const AttrMap &attributes,
                                    const TensorType &declared) {
  const auto &dims = array(attributes, "dims");
  if (declared.elementType != operand.elementType)
    return fail("result type ", declared.toString(),
                " must have the operand's element type, ",
                elementTypeName(operand.elementType));
  if (std::int64_t(dims.size()) != operand.rank())
    return fail("attribute 'dims' = ", listString(dims), " has ", dims.size(),
                " entries, expected ", operand.rank(), " (the operand's rank)");
  if (Status status = checkDimList(dims, declared.rank(), "dims"); !status.ok())
    return status;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const std::int64_t from = operand.shape[i], to = declared.shape[dims[i]];
    if (from != 1 && from != to)
      return fail("operand dim ", i, " of size ", from,
                  " cannot broadcast to result dim ", dims[i], " of size ", to,
                  " (it must be 1 or equal)");
  }
  return declared;
}

Expected<TensorType> inferReshape(const TensorType &operand,
                                  const TensorType &declared,
                                  const DimTable *dims) {
  if (declared.elementType != operand.elementType)
    return fail("result type ", declared.toString(),
                " must have the operand's element type, ",
                elementTypeName(operand.elementType));
  if (dims && (!declared.isStatic() || !operand.isStatic())) {
    // Equal as polynomials: equal for every value of the dims.
    Expected<DimExpr> from = dims->product(operand.shape);
    Expected<DimExpr> to = dims->product(declared.shape);
    if (!from.ok() || !to.ok())
      return fail("the element count of ", typeText(operand, dims), " or ",
                  typeText(declared, dims), " has a coefficient past 2^63");
    if (*from != *to)
      return fail("result type ", typeText(declared, dims), " has ",
                  to->toString(), " elements, expected ", from->toString(),
                  " (those of ", typeText(operand, dims),
                  "; the counts must be equal for every value of the dims)");
    return declared;
  }
  if (declared.numElements() != operand.numElements())
    return fail("result type ", declared.toString(), " has ",
                declared.numElements(), " elements, expected ",
                operand.numElements(), " (those of ", operand.toString(), ")");
  return declared;
}

Expected<TensorType> inferTranspose(const TensorType &operand,
                                    const AttrMap &attributes) {
  const auto &permutation = array(attributes, "permutation");
  std::vector<bool> seen(operand.shape.size(), false);
  bool valid = std::int64_t(permutation.size()) == operand.rank();
  for (std::size_t i = 0; valid && i < permutation.size(); ++i) {
    const std::int64_t p = permutation[i];
    valid = p >= 0 && p < operand.rank() && !seen[p];
    if (valid)
      seen[p] = true;
  }
  if (!valid)
    return fail("attribute 'permutation' = ", listString(permutation),
                " is not a permutation of [0, ", operand.rank(), ")");
  TensorType result{operand.elementType, {}};
  for (std::int64_t p : permutation)
    result.shape.push_back(operand.shape[p]);
  return result;
}

Status checkSymbolicSliceDim(const TensorType &operand, std::int64_t i,
                             std::int64_t offset, std::int64_t size,
                             std::int64_t stride, const DimTable *dims) {
  const std::int64_t dim = operand.shape[i];
  if (offset < 0 || stride < 1 || (size < 0 && !dims->isValidDim(size)))
    return fail("dim ", i, ": offset ", offset, ", size ",
                dims->dimString(size), " and stride ", stride,
                " must be >= 0, valid and >= 1");
  // A static dim with a symbolic size: the end is checked once bound.
  if (dim >= 0)
    return Status::success();
  if (size == dim && offset == 0 && stride == 1)
    return Status::success();
  // With stride 1, a part that fits for every value of the dims: dim -
  // offset - size has no negative coefficient (the symbols are >= 0).
  Expected<DimExpr> room =
      DimExpr::sub(dims->expr(dim), DimExpr::constant(offset));
  if (room.ok())
    room = DimExpr::sub(*room, dims->expr(size));
  if (stride == 1 && room.ok() && room->isNonNegative())
    return Status::success();
  return fail("dim ", i, " of ", typeText(operand, dims), " is symbolic (",
              dims->dimString(dim),
              "): a slice takes it whole, or with "
              "stride 1 a part that fits for every value of the dims; "
              "offset ",
              offset, ", size ", dims->dimString(size), " and stride ", stride,
              " do not");
}

Expected<TensorType> inferSlice(const TensorType &operand,
                                const AttrMap &attributes,
                                const DimTable *dims) {
  const auto &offsets = array(attributes, "offsets");
  const auto &sizes = array(attributes, "sizes");
  const auto &strides = array(attributes, "strides");
  for (const auto &[name, values] :
       {std::pair<std::string_view, const std::vector<std::int64_t> *>{
            "offsets", &offsets},
        {"sizes", &sizes},
        {"strides", &strides}})
    if (std::int64_t(values->size()) != operand.rank())
      return fail("attribute '", name, "' = ", listString(*values), " has ",
                  values->size(), " entries, expected ", operand.rank(),
                  " (the operand's rank)");
  for (std::int64_t i = 0; i < operand.rank(); ++i) {
    const std::int64_t dim = operand.shape[i];
    if (dims && (dim < 0 || sizes[i] < 0)) {
      if (Status status = checkSymbolicSliceDim(operand, i, offsets[i],
                                                sizes[i], strides[i], dims);
          !status.ok())
        return status;
      continue;
    }
    if (strides[i] < 1)
      return fail("stride ", strides[i], " of dim ", i, " must be >= 1");
    if (sizes[i] < 0)
      return fail("size ", sizes[i], " of dim ", i, " must be >= 0");
    if (offsets[i] < 0 || offsets[i] > dim)
      return fail("offset ", offsets[i], " of dim ", i, " is out of range [0, ",
                  dim, "]");
    // The last element read, counted with CheckedInt: a truncating division
    // let offset = dim, size 1 and a stride of 2 through ((-1) / 2 is 0).
    const std::optional<std::int64_t> last =
        ((CheckedInt(sizes[i]) - 1) * strides[i] + offsets[i]).get();
    if (sizes[i] > 0 && (!last || *last >= dim))
      return fail("dim ", i, " of size ", dim, " is too small for offset ",
                  offsets[i], ", size ", sizes[i], ", stride ", strides[i],
                  " (the last element read, offset + (size - 1) * stride, "
                  "must be < ",
                  dim, ")");
  }
  return TensorType{operand.elementType, sizes};
}

Expected<TensorType> inferConcat(std::span<const TensorType> operands,
                                 const AttrMap &attributes, DimTable *dims) {
  const std::int64_t axis = attributes.find("axis")->second.getI64();
  const TensorType &first = operands[0];
  if (Status status = checkAxis(axis, first.rank()); !status.ok())
    return status;
  TensorType result = first;
  CheckedInt concatenated = first.shape[axis];
  for (std::size_t i = 1; i < operands.size(); ++i) {
    const TensorType &other = operands[i];
    bool compatible =
        other.elementType == first.elementType && other.rank() == first.rank();
    for (std::int64_t d = 0; compatible && d < first.rank(); ++d)
      compatible = d == axis || other.shape[d] == first.shape[d];
    if (!compatible)
      return fail("operand ", i, " has type ", other.toString(),
                  ", expected the rank, element type and every dim but "
                  "axis ",
                  axis, " of operand 0, ", first.toString());
    concatenated += other.shape[axis];
  }
  bool symbolic = false;
  for (const TensorType &operand : operands)
    symbolic |= operand.shape[axis] < 0;
  if (symbolic && dims) {
    DimExpr sum;
    for (const TensorType &operand : operands) {
      Expected<DimExpr> next =
          DimExpr::add(sum, dims->expr(operand.shape[axis]));
      if (!next.ok())
        return fail("the operands' dims along axis ", axis, ": ",
                    next.message());
      sum = next.take();
    }
    Expected<std::int64_t> code = dims->intern(sum);
    if (!code.ok())
      return code.status();
    result.shape[axis] = *code;
    return result;
  }
  std::optional<std::int64_t> size = concatenated.get();
  if (!size)
    return fail("the operands' dims along axis ", axis,
                " add up past 2^63 (operand 0 is ", first.toString(), ", ",
                operands.size(), " operands)");
  result.shape[axis] = *size;
  return result;
}

/// Shapes as Graph.h documents gather.
Expected<TensorType> inferGather(std::span<const TensorType> operands,
                                 const AttrMap &attributes) {
  const TensorType &data = operands[0], &indices = operands[1];
  const std::int64_t axis = attributes.find("axis")->second.getI64();
  if (Status status = checkAxis(axis, data.rank()); !status.ok())
    return status;
  if (indices.elementType != ElementType::I32 &&
      indices.elementType != ElementType::I64)
    return fail("the indices (operand 1) have element type ",
                elementTypeName(indices.elementType), ", expected i32 or i64");
  TensorType result{data.elementType,
                    {data.shape.begin(), data.shape.begin() + axis}};
  result.shape.insert(result.shape.end(), indices.shape.begin(),
                      indices.shape.end());
  result.shape.insert(result.shape.end(), data.shape.begin() + axis + 1,
                      data.shape.end());
  return result;
}

/// Shapes as Graph.h documents scatter.
Expected<TensorType> inferScatter(std::span<const TensorType> operands) {
  const TensorType &data = operands[0], &indices = operands[1],
                   &updates = operands[2];
  if (data.rank() < 1)
    return fail("the data (operand 0) is a scalar; scatter needs rank >= 1");
  if (indices.elementType != ElementType::I32 &&
      indices.elementType != ElementType::I64)
    return fail("the indices (operand 1) have element type ",
                elementTypeName(indices.elementType), ", expected i32 or i64");
  TensorType expected{data.elementType, indices.shape};
  expected.shape.insert(expected.shape.end(), data.shape.begin() + 1,
                        data.shape.end());
  if (updates != expected)
    return fail("the updates (operand 2) are ", updates.toString(),
                ", expected ", expected.toString(),
                " (the indices' shape, then the data's dims after the first)");
  return data;
}

Expected<TensorType> inferReduce(const TensorType &operand,
                                 const AttrMap &attributes) {
  const auto &dims = array(attributes, "dims");
  if (Status status = checkDimList(dims, operand.rank(), "dims"); !status.ok())
    return status;
  const ReduceKind kind =
      *parseReduceKind(attributes.find("kind")->second.getEnumName());
  const bool keepDims = flag(attributes, "keep_dims");
  TensorType result{operand.elementType, {}};
  for (std::int64_t d = 0; d < operand.rank(); ++d) {
    const bool reduced = std::find(dims.begin(), dims.end(), d) != dims.end();
    if (reduced && operand.shape[d] == 0 &&
        (kind == ReduceKind::Max || kind == ReduceKind::Min))
      return fail("reduction '", reduceKindName(kind), "' over dim ", d,
                  " of size 0 has no value (", operand.toString(), ")");
    if (!reduced)
      result.shape.push_back(operand.shape[d]);
    else if (keepDims)
      result.shape.push_back(1);
  }
  return result;
}

/// `operand` with each of its window.size() trailing dims replaced by the
/// window's output size (a pool's, or an im2col's without ceil_mode).
Expected<TensorType> inferWindowed(const TensorType &operand,
                                   const AttrMap &attributes, bool ceilMode) {
  const auto &window = array(attributes, "window");
  const auto &strides = array(attributes, "strides");
  const auto &dilations = array(attributes, "dilations");
  const auto &pads = array(attributes, "pads");
  const std::int64_t n = std::int64_t(window.size());
  if (n == 0 || n > operand.rank())
    return fail("attribute 'window' = ", listString(window), " has ", n,
                " entries, expected 1 to ", operand.rank(),
                " (the operand's rank)");
  if (std::int64_t(strides.size()) != n ||
      std::int64_t(dilations.size()) != n || std::int64_t(pads.size()) != 2 * n)
    return fail("strides ", listString(strides), ", dilations ",
                listString(dilations), " and pads ", listString(pads),
                " must have ", n, ", ", n, " and ", 2 * n,
                " entries (one per window dim; pads: all begins, then all "
                "ends)");
  TensorType result = operand;
  for (std::int64_t d = 0; d < n; ++d) {
    const std::int64_t dim = operand.rank() - n + d;
    if (window[d] < 1 || strides[d] < 1 || dilations[d] < 1)
      return fail("window dim ", d, ": window ", window[d], ", stride ",
                  strides[d], " and dilation ", dilations[d], " must be >= 1");
    if (pads[d] < 0 || pads[n + d] < 0)
      return fail("window dim ", d, ": pads ", pads[d], " and ", pads[n + d],
                  " must be >= 0");
    const std::int64_t size =
        poolOutputSize(operand.shape[dim], window[d], strides[d], dilations[d],
                       pads[d], pads[n + d], ceilMode);
    if (size < 1)
      return fail(
          "window dim ", d, ": the window of ", window[d], " with dilation ",
          dilations[d], " does not fit in the padded input of ",
          (CheckedInt(operand.shape[dim]) + pads[d] + pads[n + d]).saturated(),
          " (dim ", dim, " of ", operand.toString(), ")");
    result.shape[dim] = size;
  }
  return result;
}

Expected<TensorType> inferPool(const TensorType &operand,
                               const AttrMap &attributes) {
  const ReduceKind kind =
      *parseReduceKind(attributes.find("kind")->second.getEnumName());
  if (kind != ReduceKind::Max && kind != ReduceKind::Mean)
    return fail("pool kind '", reduceKindName(kind),
                "' is not one of max, mean");
  if (kind == ReduceKind::Mean && !isFloat(operand.elementType))
    return fail("a mean pool needs a float operand, got ",
                elementTypeName(operand.elementType));
  return inferWindowed(operand, attributes, flag(attributes, "ceil_mode"));
}

Expected<TensorType> inferIm2col(const TensorType &operand,
                                 const AttrMap &attributes) {
  Expected<TensorType> windowed =
      inferWindowed(operand, attributes, /*ceilMode=*/false);
  if (!windowed.ok())
    return windowed.status();
  const auto &window = array(attributes, "window");
  TensorType result = *windowed;
  const std::size_t leading = result.shape.size() - window.size();
  CheckedInt offsets = 1, positions = 1;
  for (std::size_t d = 0; d < window.size(); ++d) {
    offsets *= window[d];
    positions *= result.shape[leading + d];
  }
  if (!offsets.ok() || !positions.ok())
    return fail("the window's offsets or positions pass 2^63");
  result.shape.resize(leading);
  result.shape.push_back(*offsets.get());
  result.shape.push_back(*positions.get());
  return result;
}

Expected<TensorType> inferArgReduce(OpKind kind, const TensorType &operand,
                                    const AttrMap &attributes) {
  const std::int64_t axis = attributes.find("axis")->second.getI64();
  if (Status status = checkAxis(axis, operand.rank()); !status.ok())
    return status;
  if (operand.shape[axis] == 0)
    return fail(mnemonic(kind), " over axis ", axis,
                " of size 0 has no index (", operand.toString(), ")");
  TensorType result{ElementType::I64, operand.shape};
  if (flag(attributes, "keep_dims"))
    result.shape[axis] = 1;
  else
    result.shape.erase(result.shape.begin() + axis);
  return result;
}

Expected<TensorType> inferMatmul(std::span<const TensorType> operands,
                                 const AttrMap &attributes) {
  const TensorType &a = operands[0], &b = operands[1];
  if (a.elementType != b.elementType)
    return fail("operand 1 has element type ", elementTypeName(b.elementType),
                ", expected ", elementTypeName(a.elementType),
                " (that of operand 0)");
  for (std::size_t i = 0; i < 2; ++i)
    if (operands[i].rank() < 2)
      return fail("operand ", i, " has type ", operands[i].toString(),
                  ", expected rank >= 2");
  const std::int64_t ra = a.rank(), rb = b.rank();
  const bool ta = flag(attributes, "transpose_a"),
             tb = flag(attributes, "transpose_b");
  const std::int64_t m = a.shape[ra - (ta ? 1 : 2)];
  const std::int64_t ka = a.shape[ra - (ta ? 2 : 1)];
  const std::int64_t kb = b.shape[rb - (tb ? 1 : 2)];
  const std::int64_t n = b.shape[rb - (tb ? 2 : 1)];
  if (ka != kb)
    return fail("contraction dims differ: operand 0 ", a.toString(),
                ta ? " (transposed)" : "", " has K = ", ka, ", operand 1 ",
                b.toString(), tb ? " (transposed)" : "", " has K = ", kb);
  const std::vector<std::int64_t> batchA(a.shape.begin(), a.shape.end() - 2);
  const std::vector<std::int64_t> batchB(b.shape.begin(), b.shape.end() - 2);
  if (ra > 2 && rb > 2 && batchA != batchB)
    return fail("batch dims differ: ", listString(batchA), " and ",
                listString(batchB),
                " (they must be equal, or one operand must have rank 2)");
  TensorType result{a.elementType, batchA.empty() ? batchB : batchA};
  result.shape.push_back(m);
  result.shape.push_back(n);
  return result;
}

/// Shapes as Graph.h documents conv.
Expected<TensorType> inferConv(std::span<const TensorType> operands,
                               const AttrMap &attributes) {
  if (operands.size() != 2 && operands.size() != 3)
    return fail("expected 2 or 3 operands (input, weight and an optional "
                "bias), got ",
                operands.size());
  const TensorType &x = operands[0], &w = operands[1];
  for (std::size_t i = 1; i < operands.size(); ++i)
    if (operands[i].elementType != x.elementType)
      return fail("operand ", i, " has element type ",
                  elementTypeName(operands[i].elementType), ", expected ",
                  elementTypeName(x.elementType), " (that of the input)");
  if (x.rank() != 3 && x.rank() != 4)
    return fail("the input has type ", x.toString(),
                ", expected rank 3 or 4 ([N, C, spatial...] with 1 or 2 "
                "spatial dims)");
  if (w.rank() != x.rank())
    return fail("the weight has type ", w.toString(), ", expected rank ",
                x.rank(), " (that of the input)");
  const std::size_t spatial = std::size_t(x.rank() - 2);
  const auto &strides = array(attributes, "strides");
  const auto &dilations = array(attributes, "dilations");
  const auto &pads = array(attributes, "pads");
  const std::int64_t group = attributes.find("group")->second.getI64();
  for (const auto &[name, values, expected] :
       {std::tuple<std::string_view, const std::vector<std::int64_t> *,
                   std::size_t>{"strides", &strides, spatial},
        {"dilations", &dilations, spatial},
        {"pads", &pads, 2 * spatial}}) {
    if (values->size() != expected)
      return fail("attribute '", name, "' = ", listString(*values), " has ",
                  values->size(), " entries, expected ", expected,
                  name == "pads" ? " (a begin and an end pad per spatial dim)"
                                 : " (one per spatial dim)");
    for (std::int64_t value : *values)
      if (value < (name == "pads" ? 0 : 1))
        return fail("attribute '", name, "' = ", listString(*values),
                    " must hold values >= ", name == "pads" ? 0 : 1);
  }
  const std::int64_t channels = x.shape[1], filters = w.shape[0];
  if (group < 1 || channels % group != 0 || filters % group != 0)
    return fail("attribute 'group' = ", group, " must be >= 1 and divide the ",
                channels, " input channels and the ", filters,
                " output channels");
  if ((CheckedInt(w.shape[1]) * group).get() != channels)
    return fail("the weight has type ", w.toString(), ", expected ",
                channels / group, " channels per group in dim 1 (", channels,
                " input channels in ", group, " group", group == 1 ? "" : "s",
                ")");
  if (operands.size() == 3 &&
      operands[2].shape != std::vector<std::int64_t>{filters})
    return fail("the bias has type ", operands[2].toString(),
                ", expected shape [", filters, "] (one per output channel)");
  TensorType result{x.elementType, {x.shape[0], filters}};
  for (std::size_t d = 0; d < spatial; ++d) {
    const std::int64_t kernel = w.shape[2 + d];
    const std::optional<std::int64_t> padded =
        (CheckedInt(x.shape[2 + d]) + pads[d] + pads[spatial + d]).get();
    const std::optional<std::int64_t> span =
        (CheckedInt(dilations[d]) * (kernel - 1) + 1).get();
    if (!padded || !span)
      return fail("spatial dim ", d,
                  ": the padded input or the dilated kernel passes 2^63");
    if (kernel < 1 || *padded < *span)
      return fail("spatial dim ", d, ": the padded input (", *padded,
                  ") is smaller than the dilated kernel (", *span, ")");
    result.shape.push_back((*padded - *span) / strides[d] + 1);
  }
  return result;
}

/// iota and dim_value: the declared type, numeric; iota's axis in range,
/// dim_value's dim static or a code of `dims`.
Expected<TensorType> inferBindTime(OpKind kind, const AttrMap &attributes,
                                   const TensorType &declared,
                                   const DimTable *dims) {
  if (!followsTypeRule(declared.elementType, TypeRule::Numeric))
    return fail("result type ", declared.toString(), " must be ",
                typeRuleDescription(TypeRule::Numeric));
  if (kind == OpKind::Iota) {
    if (Status status = checkAxis(attributes.find("axis")->second.getI64(),
                                  declared.rank());
        !status.ok())
      return status;
    return declared;
  }
  const std::int64_t dim = attributes.find("dim")->second.getI64();
  if (dim < 0 && !(dims && dims->isValidDim(dim)))
    return fail("attribute 'dim' = ", dim,
                " is neither a size (>= 0) nor a symbolic dim of the graph");
  return declared;
}

bool needsStaticDims(OpKind kind) {
  return kind == OpKind::Pool || kind == OpKind::Im2col ||
         kind == OpKind::Conv || kind == OpKind::Scatter;
}

} // namespace

Expected<TensorType>
fuse::inferResultType(OpKind kind, std::span<const TensorType> operandTypes,
                      const AttrMap &attributes,
                      const std::optional<TensorType> &declaredResult,
                      DimTable *dims) {
  const OpInfo &info = opInfo(kind);
  const std::size_t count = operandTypes.size();
  if (info.numOperands < 0 && count == 0)
    return fail("expected at least 1 operand, got 0");
  if (info.numOperands >= 0 && count != std::size_t(info.numOperands))
    return fail("expected ", info.numOperands, " operand",
                info.numOperands == 1 ? "" : "s", ", got ", count);
  for (std::size_t i = 0; i < count; ++i) {
    // The message is made only for a failure (validate() infers every op
    // of a decoder's bound step).
    if (!checkTensorType(operandTypes[i], {}, dims).ok())
      return checkTensorType(operandTypes[i], cat("operand ", i), dims);
    if (needsStaticDims(kind) && !operandTypes[i].isStatic())
      return fail(info.mnemonic, " needs static dims; operand ", i, " is ",
                  typeText(operandTypes[i], dims),
                  " (bind the dims first: bindDims)");
    if (!followsTypeRule(operandTypes[i].elementType, info.typeRule))
      return fail("operand ", i, " has element type ",
                  elementTypeName(operandTypes[i].elementType), ", expected ",
                  typeRuleDescription(info.typeRule));
  }
  if (declaredResult)
    if (Status status =
            checkTensorType(*declaredResult, "the result type", dims);
        !status.ok())
      return status;
  if (Status status = checkAttributes(kind, attributes, dims); !status.ok())
    return status;

  const bool resultGiven = kind == OpKind::Cast || kind == OpKind::Broadcast ||
                           kind == OpKind::Reshape || kind == OpKind::Iota ||
                           kind == OpKind::DimValue;
  if (resultGiven && !declaredResult)
    return fail("a result type is required (", info.mnemonic,
                " does not infer it)");

  auto inferred = [&]() -> Expected<TensorType> {
    if (info.form != OpForm::Structured)
      return inferElementwise(kind, operandTypes, attributes);
    switch (kind) {
    case OpKind::Compare:
      return inferCompare(operandTypes, attributes);
    case OpKind::Select:
      return inferSelect(operandTypes);
    case OpKind::Cast:
      return inferCast(operandTypes, attributes, *declaredResult);
    case OpKind::Constant:
      return attributes.find("value")->second.getDense().type();
    case OpKind::Broadcast:
      return inferBroadcast(operandTypes[0], attributes, *declaredResult);
    case OpKind::Reshape:
      return inferReshape(operandTypes[0], *declaredResult, dims);
    case OpKind::Transpose:
      return inferTranspose(operandTypes[0], attributes);
    case OpKind::Slice:
      return inferSlice(operandTypes[0], attributes, dims);
    case OpKind::Concat:
      return inferConcat(operandTypes, attributes, dims);
    case OpKind::Reduce:
      return inferReduce(operandTypes[0], attributes);
    case OpKind::Pool:
      return inferPool(operandTypes[0], attributes);
    case OpKind::Im2col:
      return inferIm2col(operandTypes[0], attributes);
    case OpKind::ArgMax:
    case OpKind::ArgMin:
      return inferArgReduce(kind, operandTypes[0], attributes);
    case OpKind::Matmul:
      return inferMatmul(operandTypes, attributes);
    case OpKind::Conv:
      return inferConv(operandTypes, attributes);
    case OpKind::Gather:
      return inferGather(operandTypes, attributes);
    case OpKind::Scatter:
      return inferScatter(operandTypes);
    case OpKind::Iota:
    case OpKind::DimValue:
      return inferBindTime(kind, attributes, *declaredResult, dims);
    default:
      return fail("op '", info.mnemonic, "' has no type inference");
    }
  }();
  if (!inferred.ok() || !declaredResult || resultGiven)
    return inferred;
  if (*declaredResult != *inferred)
    return fail("result type ", typeText(*declaredResult, dims),
                " does not match the inferred ", typeText(*inferred, dims));
  return inferred;
}

/// The most bytes one tensor may hold (256 TiB): far above any real tensor,
/// far below where an element count or a byte size wraps an int64.
static constexpr std::int64_t kMaxTensorBytes = std::int64_t(1) << 48;

Status fuse::checkTensorType(const TensorType &type, std::string_view what,
                             const DimTable *dims) {
  // Checked arithmetic: a shape whose count wraps (2^32 x 2^32) is refused
  // instead of passing as 0 elements (checkedElementCount: a 0 dim makes
  // 0). The symbolic dims are counted when bound.
  CheckedInt count = 1;
  bool empty = false;
  for (std::int64_t dim : type.shape) {
    if (dim < 0 && !(dims && dims->isValidDim(dim)))
      return fail(what, " has a negative dimension: ", type.toString(),
                  dims ? " (not a symbolic dim of the graph)" : "");
    if (dim >= 0) {
      empty |= dim == 0;
      count *= dim;
    }
  }
  std::optional<std::int64_t> bytes =
      ((empty ? CheckedInt(0) : count) * byteSize(type.elementType)).get();
  if (!bytes || *bytes > kMaxTensorBytes)
    return fail(what, " is too large: ", typeText(type, dims),
                " holds more than 2^48 bytes");
  return Status::success();
}

namespace {

/// Interned (no entry twice), no constant entry, every symbol declared once.
Status checkDimTable(const DimTable &table) {
  for (std::size_t i = 0; i < table.symbols.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (table.symbols[i] == table.symbols[j] || table.symbols[i].empty())
        return fail("dim symbol '", table.symbols[i],
                    "' is declared twice or has no name");
  for (std::size_t i = 0; i < table.exprs.size(); ++i) {
    const DimExpr &expr = table.exprs[i];
    if (expr.isConstant())
      return fail("dim entry ", i, " is the constant ", expr.toString(),
                  " (a constant dim is its value)");
    for (std::size_t j = 0; j < i; ++j)
      if (table.exprs[j] == expr)
        return fail("dim entries ", j, " and ", i, " are both ",
                    expr.toString());
    for (const std::string &name : expr.symbols())
      if (std::find(table.symbols.begin(), table.symbols.end(), name) ==
          table.symbols.end())
        return fail("dim entry ", i, " (", expr.toString(),
                    ") uses the undeclared symbol '", name, "'");
  }
  return Status::success();
}

} // namespace

Status fuse::validate(const Graph &graph) {
  const TensorId numTensors = TensorId(graph.tensors.size());
  // Where each tensor is defined: -1 for an input, the op index otherwise.
  constexpr std::int64_t kUndefined = -2, kInput = -1;
  std::vector<std::int64_t> definedBy(numTensors, kUndefined);
  auto describeId = [&](TensorId id) {
    return cat("tensor ", id, " (the graph has ", numTensors, ")");
  };
  if (Status status = checkDimTable(graph.dims); !status.ok())
    return status;
  // Inference interns the dims it computes: into a copy, so that a dim the
  // table lacks gives a code no declared type has.
  DimTable dimsCopy = graph.dims;
  DimTable *dims = graph.isSymbolic() ? &dimsCopy : nullptr;

  // Messages are made only for a failure: a bound graph of a decoder's
  // step is validated once per token (bindBundle).
  for (TensorId id = 0; id < numTensors; ++id)
    if (!checkTensorType(graph.tensors[id].type, {}, dims).ok())
      return checkTensorType(graph.tensors[id].type,
                             cat("tensor ", id, "'s type"), dims);

  for (std::size_t i = 0; i < graph.inputs.size(); ++i) {
    const TensorId id = graph.inputs[i];
    if (!graph.isValidId(id))
      return fail("input #", i, " refers to no tensor: ", describeId(id));
    if (definedBy[id] != kUndefined)
      return fail("input #", i, ": tensor ", id,
                  " is listed as an input more than once");
    definedBy[id] = kInput;
  }

  for (std::size_t index = 0; index < graph.ops.size(); ++index) {
    const Op &op = graph.ops[index];
    if (static_cast<std::size_t>(op.kind) >= allOpKinds().size())
      return fail("op #", index, ": unknown op kind ",
                  static_cast<int>(op.kind), " (Ops.def has ",
                  allOpKinds().size(), ")");
    auto prefix = [&] {
      return cat("op #", index, " (", mnemonic(op.kind), "): ");
    };
    std::vector<TensorType> operandTypes;
    for (std::size_t i = 0; i < op.operands.size(); ++i) {
      const TensorId id = op.operands[i];
      if (!graph.isValidId(id))
        return fail(prefix(), "operand ", i,
                    " refers to no tensor: ", describeId(id));
      if (definedBy[id] == kUndefined) {
        for (std::size_t later = index; later < graph.ops.size(); ++later)
          for (TensorId result : graph.ops[later].results)
            if (result == id)
              return fail(prefix(), "operand ", i, " is tensor ", id,
                          ", used before op #", later, " defines it");
        return fail(prefix(), "operand ", i, " is tensor ", id,
                    ", which is neither an input nor the result of an op");
      }
      operandTypes.push_back(graph.typeOf(id));
    }
    if (op.results.size() != 1)
      return fail(prefix(), "expected 1 result, got ", op.results.size());
    const TensorId result = op.results[0];
    if (!graph.isValidId(result))
      return fail(prefix(), "result refers to no tensor: ", describeId(result));
    if (definedBy[result] == kInput)
      return fail(prefix(), "result tensor ", result, " is a graph input");
    if (definedBy[result] != kUndefined)
      return fail(prefix(), "result tensor ", result,
                  " is already the result of op #", definedBy[result]);
    definedBy[result] = std::int64_t(index);
    Expected<TensorType> inferred = inferResultType(
        op.kind, operandTypes, op.attributes, graph.typeOf(result), dims);
    if (!inferred.ok())
      return fail(prefix(), inferred.message());
  }

  for (TensorId id = 0; id < numTensors; ++id)
    if (definedBy[id] == kUndefined)
      return fail("tensor ", id,
                  " is neither an input nor the result of an op");

  for (std::size_t i = 0; i < graph.outputs.size(); ++i)
    if (!graph.isValidId(graph.outputs[i].tensor))
      return fail("output #", i, " refers to no tensor: ",
                  describeId(graph.outputs[i].tensor));
  return Status::success();
}
