//===- GraphHash.cpp - Canonical form and content hash of a Graph ---------===//

#include "runtime/ir/GraphHash.h"

#include "runtime/ir/Sha256.h"

#include <algorithm>
#include <bit>
#include <cstring>

using namespace fuse;

namespace {

/// A full constant whose elements are all equal becomes a splat, so that the
/// two spellings of one constant hash alike.
DenseValue canonicalDense(DenseValue value) {
  const std::size_t elementBytes = std::size_t(byteSize(value.elementType));
  if (value.splat || value.bytes.size() < elementBytes)
    return value;
  for (std::size_t offset = elementBytes; offset < value.bytes.size();
       offset += elementBytes)
    if (std::memcmp(value.bytes.data(), value.bytes.data() + offset,
                    elementBytes) != 0)
      return value;
  value.bytes.resize(elementBytes);
  value.splat = true;
  return value;
}

/// Appends fields to a SHA-256 stream. Every variable-length field is
/// length-prefixed, so no two different graphs encode to the same bytes.
class Encoder {
public:
  void u64(std::uint64_t value) {
    std::uint8_t bytes[8];
    for (int i = 0; i < 8; ++i)
      bytes[i] = std::uint8_t(value >> (8 * i));
    hasher.update(bytes);
  }
  void i64(std::int64_t value) { u64(std::uint64_t(value)); }
  void text(std::string_view value) {
    u64(value.size());
    hasher.update(value);
  }
  void raw(std::span<const std::uint8_t> bytes) {
    u64(bytes.size());
    hasher.update(bytes);
  }
  void list(std::span<const std::int64_t> values) {
    u64(values.size());
    for (std::int64_t value : values)
      i64(value);
  }
  void type(const TensorType &type) {
    text(elementTypeName(type.elementType));
    list(type.shape);
  }
  void attribute(const Attribute &attribute) {
    text(attrKindName(attribute.kind()));
    switch (attribute.kind()) {
    case AttrKind::I64:
      i64(attribute.getI64());
      return;
    case AttrKind::I64Array:
      list(attribute.getI64Array());
      return;
    case AttrKind::F64:
      u64(std::bit_cast<std::uint64_t>(attribute.getF64()));
      return;
    case AttrKind::Bool:
      u64(attribute.getFlag());
      return;
    case AttrKind::Enum:
      text(attribute.getEnumName());
      return;
    case AttrKind::Type:
      text(elementTypeName(attribute.getElementType()));
      return;
    case AttrKind::Dense: {
      const DenseValue &dense = attribute.getDense();
      type(dense.type());
      u64(dense.splat);
      raw(dense.bytes);
      return;
    }
    }
  }
  Sha256::Digest finish() { return hasher.finish(); }

private:
  Sha256 hasher;
};

} // namespace

std::string Hash128::toHex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex(32, '0');
  for (int i = 0; i < 16; ++i) {
    hex[i] = kDigits[(high >> (60 - 4 * i)) & 0xf];
    hex[16 + i] = kDigits[(low >> (60 - 4 * i)) & 0xf];
  }
  return hex;
}

std::optional<Hash128> Hash128::fromHex(std::string_view hex) {
  if (hex.size() != 32)
    return std::nullopt;
  Hash128 hash;
  for (std::size_t i = 0; i < 32; ++i) {
    const char c = hex[i];
    std::uint64_t digit;
    if (c >= '0' && c <= '9')
      digit = c - '0';
    else if (c >= 'a' && c <= 'f')
      digit = c - 'a' + 10;
    else
      return std::nullopt;
    std::uint64_t &half = i < 16 ? hash.high : hash.low;
    half = half << 4 | digit;
  }
  return hash;
}

namespace {

/// The symbolic dims renumbered in order of first use (input types, then
/// each op's attributes and result type), the symbols in the order their
/// expressions first appear, so that two recordings of one graph that
/// interned their dims in another order are one canonical graph.
void canonicalizeDims(Graph &graph) {
  if (!graph.isSymbolic())
    return;
  DimTable table;
  std::vector<std::int64_t> newCode(graph.dims.exprs.size(), 0);
  std::vector<bool> seen(graph.dims.exprs.size(), false);
  auto renumber = [&](std::int64_t &dim) {
    if (dim >= 0 || !graph.dims.isValidDim(dim))
      return;
    const std::size_t index = std::size_t(-1 - dim);
    if (!seen[index]) {
      seen[index] = true;
      // A valid table has no constant entry: intern gives a code.
      newCode[index] = *table.intern(graph.dims.exprs[index]);
    }
    dim = newCode[index];
  };
  std::vector<bool> done(graph.tensors.size(), false);
  auto visitType = [&](TensorId id) {
    if (!graph.isValidId(id) || done[id])
      return;
    done[id] = true;
    for (std::int64_t &dim : graph.tensors[id].type.shape)
      renumber(dim);
  };
  for (TensorId input : graph.inputs)
    visitType(input);
  for (Op &op : graph.ops) {
    forEachAttributeDim(op.kind, op.attributes, renumber);
    for (TensorId result : op.results)
      visitType(result);
  }
  // Entries no dim uses are dropped; declared symbols no entry uses stay, in
  // the order of their names.
  std::vector<std::string> unused;
  for (const std::string &name : graph.dims.symbols)
    if (std::find(table.symbols.begin(), table.symbols.end(), name) ==
        table.symbols.end())
      unused.push_back(name);
  std::sort(unused.begin(), unused.end());
  table.symbols.insert(table.symbols.end(), unused.begin(), unused.end());
  graph.dims = std::move(table);
}

} // namespace

Graph fuse::canonicalize(const Graph &graph) {
  std::vector<TensorId> newId(graph.tensors.size(), kInvalidTensor);
  Graph canonical;
  auto define = [&](TensorId old) {
    newId[old] = TensorId(canonical.tensors.size());
    canonical.tensors.push_back(graph.tensors[old]);
    return newId[old];
  };
  for (TensorId input : graph.inputs)
    canonical.inputs.push_back(define(input));
  for (const Op &op : graph.ops) {
    Op renamed{op.kind, {}, {}, {}};
    for (TensorId operand : op.operands)
      renamed.operands.push_back(newId[operand]);
    for (TensorId result : op.results)
      renamed.results.push_back(define(result));
    for (const auto &[name, attribute] : op.attributes) {
      if (attribute.kind() == AttrKind::Bool && !attribute.getFlag())
        continue;
      renamed.attributes.emplace(
          name, attribute.kind() == AttrKind::Dense
                    ? Attribute::dense(canonicalDense(attribute.getDense()))
                    : attribute);
    }
    canonical.ops.push_back(std::move(renamed));
  }
  for (const GraphOutput &output : graph.outputs)
    canonical.outputs.push_back({newId[output.tensor], output.name});
  canonical.dims = graph.dims;
  canonicalizeDims(canonical);
  return canonical;
}

Hash128 fuse::hashGraph(const Graph &graph) {
  const Graph canonical = canonicalize(graph);
  Encoder encoder;
  encoder.text("fuse.graph.v1");
  // A symbolic graph's dims (a static graph's encoding is unchanged, so its
  // hash is too): the symbols, then each expression in code order.
  if (canonical.isSymbolic()) {
    encoder.text("dims");
    encoder.u64(canonical.dims.symbols.size());
    for (const std::string &name : canonical.dims.symbols)
      encoder.text(name);
    encoder.u64(canonical.dims.exprs.size());
    for (const DimExpr &expr : canonical.dims.exprs) {
      // Term by term: a symbol's name may hold any character.
      encoder.u64(expr.terms().size());
      for (const DimExpr::Term &term : expr.terms()) {
        encoder.i64(term.coefficient);
        encoder.u64(term.symbols.size());
        for (const std::string &name : term.symbols)
          encoder.text(name);
      }
    }
  }
  encoder.u64(canonical.inputs.size());
  for (TensorId input : canonical.inputs)
    encoder.type(canonical.typeOf(input));
  encoder.u64(canonical.ops.size());
  for (const Op &op : canonical.ops) {
    encoder.text(mnemonic(op.kind));
    encoder.list(op.operands);
    encoder.u64(op.results.size());
    for (TensorId result : op.results)
      encoder.type(canonical.typeOf(result));
    encoder.u64(op.attributes.size());
    for (const auto &[name, attribute] : op.attributes) {
      encoder.text(name);
      encoder.attribute(attribute);
    }
  }
  encoder.u64(canonical.outputs.size());
  for (const GraphOutput &output : canonical.outputs)
    encoder.i64(output.tensor);
  const Sha256::Digest digest = encoder.finish();
  Hash128 hash;
  for (int i = 0; i < 8; ++i) {
    hash.high = hash.high << 8 | digest[i];
    hash.low = hash.low << 8 | digest[8 + i];
  }
  return hash;
}
