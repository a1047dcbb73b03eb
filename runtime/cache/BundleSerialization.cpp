//===- BundleSerialization.cpp - Bundle <-> bytes with cereal -------------===//

#include "runtime/cache/BundleSerialization.h"

#include "runtime/ir/Sha256.h"

#include <cereal/archives/binary.hpp>
#include <cereal/archives/json.hpp>
#include <cereal/cereal.hpp>
#include <cereal/types/map.hpp>
#include <cereal/types/optional.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/variant.hpp>
#include <cereal/types/vector.hpp>

#include <cstring>
#include <map>
#include <sstream>
#include <type_traits>

namespace fuse {

/// cereal's binary input archive over a byte span, except that every
/// element count it reads must not exceed the bytes left: each element
/// takes at least one byte, so a larger count is damage, and checking it
/// before the container is sized keeps a corrupt count from allocating.
class BoundedBinaryInputArchive
    : public cereal::InputArchive<BoundedBinaryInputArchive,
                                  cereal::AllowEmptyClassElision> {
public:
  explicit BoundedBinaryInputArchive(std::span<const std::uint8_t> bytes)
      : InputArchive(this), bytes(bytes) {}

  void loadBinary(void *data, std::size_t size) {
    // An empty vector has no storage: memcpy must not see its null pointer.
    if (size == 0)
      return;
    if (size > remaining())
      throw cereal::Exception("the payload ends " +
                              std::to_string(size - remaining()) +
                              " bytes early");
    std::memcpy(data, bytes.data() + pos, size);
    pos += size;
  }
  void checkCount(std::uint64_t count) const {
    if (count > remaining())
      throw cereal::Exception("a count of " + std::to_string(count) +
                              " exceeds the " + std::to_string(remaining()) +
                              " bytes left in the payload");
  }
  std::size_t remaining() const { return bytes.size() - pos; }

private:
  std::span<const std::uint8_t> bytes;
  std::size_t pos = 0;
};

template <class T>
std::enable_if_t<std::is_arithmetic_v<T>> load(BoundedBinaryInputArchive &ar,
                                               T &value) {
  if constexpr (std::is_same_v<T, bool>) {
    // A bool is one byte, 0 or 1: any other byte is damage, and copied into
    // a bool it would be undefined behaviour (found by fuzz_replay_bundle
    // under UBSan).
    std::uint8_t byte = 0;
    ar.loadBinary(&byte, 1);
    if (byte > 1)
      throw cereal::Exception("a flag holds " + std::to_string(byte) +
                              ", neither 0 nor 1");
    value = byte == 1;
  } else {
    ar.loadBinary(std::addressof(value), sizeof(value));
  }
}

template <class T>
void serialize(BoundedBinaryInputArchive &ar, cereal::NameValuePair<T> &pair) {
  ar(pair.value);
}

template <class T>
void serialize(BoundedBinaryInputArchive &ar, cereal::SizeTag<T> &tag) {
  ar(tag.size);
  ar.checkCount(std::uint64_t(tag.size));
}

template <class T>
void load(BoundedBinaryInputArchive &ar, cereal::BinaryData<T> &data) {
  ar.loadBinary(data.data, std::size_t(data.size));
}

} // namespace fuse

CEREAL_REGISTER_ARCHIVE(fuse::BoundedBinaryInputArchive)

namespace cereal::traits::detail {
template <> struct get_output_from_input<fuse::BoundedBinaryInputArchive> {
  using type = cereal::BinaryOutputArchive;
};
} // namespace cereal::traits::detail

namespace fuse {

//===----------------------------------------------------------------------===//
// Enums, by name
//===----------------------------------------------------------------------===//

/// The enumerator of E whose name is `name`, trying every value of its
/// underlying range up to `last`.
template <class E, class NameFn>
E parseByName(const std::string &name, E last, NameFn nameOf,
              const char *what) {
  for (unsigned i = 0; i <= unsigned(last); ++i)
    if (nameOf(E(i)) == name)
      return E(i);
  throw cereal::Exception(std::string("unknown ") + what + " '" + name + "'");
}

template <class A>
std::string save_minimal(const A &, const ElementType &type) {
  return std::string(elementTypeName(type));
}
template <class A>
void load_minimal(const A &, ElementType &type, const std::string &name) {
  std::optional<ElementType> parsed = parseElementType(name);
  if (!parsed)
    throw cereal::Exception("unknown element type '" + name + "'");
  type = *parsed;
}

template <class A> std::string save_minimal(const A &, const OpKind &kind) {
  return std::string(mnemonic(kind));
}
template <class A>
void load_minimal(const A &, OpKind &kind, const std::string &name) {
  std::optional<OpKind> parsed = parseOpKind(name);
  if (!parsed)
    throw cereal::Exception("unknown op '" + name + "'");
  kind = *parsed;
}

template <class A>
std::string save_minimal(const A &, const PayloadKind &kind) {
  return std::string(payloadKindName(kind));
}
template <class A>
void load_minimal(const A &, PayloadKind &kind, const std::string &name) {
  kind = parseByName(name, PayloadKind::HostSharedObject, payloadKindName,
                     "payload kind");
}

template <class A>
std::string save_minimal(const A &, const ScheduleKind &kind) {
  return std::string(scheduleKindName(kind));
}
template <class A>
void load_minimal(const A &, ScheduleKind &kind, const std::string &name) {
  kind = parseByName(name, ScheduleKind::ReferenceOnly, scheduleKindName,
                     "schedule");
}

template <class A>
std::string save_minimal(const A &, const BindingKind &kind) {
  return std::string(bindingKindName(kind));
}
template <class A>
void load_minimal(const A &, BindingKind &kind, const std::string &name) {
  kind = parseByName(name, BindingKind::Intermediate, bindingKindName,
                     "binding kind");
}

//===----------------------------------------------------------------------===//
// Structures, field by field
//===----------------------------------------------------------------------===//

/// A field under its own name: FUSE_FIELD(launch, gridX) is
/// make_nvp("gridX", launch.gridX).
#define FUSE_FIELD(object, field) cereal::make_nvp(#field, object.field)

template <class A> void serialize(A &ar, TensorType &type) {
  ar(FUSE_FIELD(type, elementType), FUSE_FIELD(type, shape));
}

template <class A> void serialize(A &ar, DenseValue &value) {
  ar(FUSE_FIELD(value, elementType), FUSE_FIELD(value, shape),
     FUSE_FIELD(value, bytes), FUSE_FIELD(value, splat));
}

template <class A> void serialize(A &ar, EnumValue &value) {
  ar(FUSE_FIELD(value, name));
}

/// Attribute has no empty state, so attributes travel as their storage.
using AttrStorageMap = std::map<std::string, Attribute::Storage>;

static Attribute attributeFromStorage(Attribute::Storage storage) {
  return std::visit(
      [](auto &&value) -> Attribute {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, std::int64_t>)
          return Attribute::i64(value);
        else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>)
          return Attribute::i64Array(std::move(value));
        else if constexpr (std::is_same_v<T, double>)
          return Attribute::f64(value);
        else if constexpr (std::is_same_v<T, bool>)
          return Attribute::flag(value);
        else if constexpr (std::is_same_v<T, EnumValue>)
          return Attribute::enumName(std::move(value.name));
        else if constexpr (std::is_same_v<T, ElementType>)
          return Attribute::elementType(value);
        else
          return Attribute::dense(std::move(value));
      },
      std::move(storage));
}

template <class A> void save(A &ar, const Op &op) {
  AttrStorageMap attributes;
  for (const auto &[name, attribute] : op.attributes)
    attributes.emplace(name, attribute.value());
  ar(FUSE_FIELD(op, kind), FUSE_FIELD(op, operands), FUSE_FIELD(op, results),
     cereal::make_nvp("attributes", attributes));
}

template <class A> void load(A &ar, Op &op) {
  AttrStorageMap attributes;
  ar(op.kind, op.operands, op.results, attributes);
  op.attributes.clear();
  for (auto &[name, storage] : attributes)
    op.attributes.emplace(name, attributeFromStorage(std::move(storage)));
}

template <class A> void serialize(A &ar, Tensor &tensor) {
  ar(FUSE_FIELD(tensor, type), FUSE_FIELD(tensor, name));
}

template <class A> void serialize(A &ar, GraphOutput &output) {
  ar(FUSE_FIELD(output, tensor), FUSE_FIELD(output, name));
}

template <class A> void serialize(A &ar, DimExpr::Term &term) {
  ar(FUSE_FIELD(term, symbols), FUSE_FIELD(term, coefficient));
}

/// A dim expression as its terms; read back through DimExpr::fromTerms, so
/// a stored expression is canonical whatever the bytes said.
template <class A> void save(A &ar, const DimExpr &expr) {
  ar(cereal::make_nvp("terms", expr.terms()));
}

template <class A> void load(A &ar, DimExpr &expr) {
  std::vector<DimExpr::Term> terms;
  ar(cereal::make_nvp("terms", terms));
  Expected<DimExpr> read = DimExpr::fromTerms(terms);
  if (!read.ok())
    throw cereal::Exception(read.message());
  expr = read.take();
}

template <class A> void serialize(A &ar, DimTable &table) {
  ar(FUSE_FIELD(table, symbols), FUSE_FIELD(table, exprs));
}

template <class A> void serialize(A &ar, Graph &graph) {
  ar(FUSE_FIELD(graph, tensors), FUSE_FIELD(graph, inputs),
     FUSE_FIELD(graph, ops), FUSE_FIELD(graph, outputs),
     FUSE_FIELD(graph, dims));
}

template <class A> void serialize(A &ar, LaunchConfig &launch) {
  ar(FUSE_FIELD(launch, gridX), FUSE_FIELD(launch, gridY),
     FUSE_FIELD(launch, gridZ), FUSE_FIELD(launch, blockX),
     FUSE_FIELD(launch, blockY), FUSE_FIELD(launch, blockZ),
     FUSE_FIELD(launch, sharedMemoryBytes), FUSE_FIELD(launch, iterations),
     FUSE_FIELD(launch, grain), FUSE_FIELD(launch, chunksPerWorker));
}

template <class A> void serialize(A &ar, KernelBinding &binding) {
  ar(FUSE_FIELD(binding, kind), FUSE_FIELD(binding, index));
}

template <class A> void serialize(A &ar, BundleKernel &kernel) {
  ar(FUSE_FIELD(kernel, name), FUSE_FIELD(kernel, target),
     FUSE_FIELD(kernel, payloadKind));
  if constexpr (std::is_same_v<A, cereal::JSONOutputArchive>) {
    // People read the JSON: a payload shows as its size and digest, and
    // PTX, which is text, as itself.
    ar(cereal::make_nvp("payloadBytes", std::uint64_t(kernel.payload.size())),
       cereal::make_nvp("payloadSha256", sha256Hex(kernel.payload.bytes())));
    if (kernel.payloadKind == PayloadKind::PtxText)
      ar(cereal::make_nvp("payloadText", std::string(kernel.payload.begin(),
                                                     kernel.payload.end())));
  }
  // The binary form stores the payloads once each, with the bundle (the
  // kernels of a host bundle share one shared object).
  ar(FUSE_FIELD(kernel, entry), FUSE_FIELD(kernel, schedule),
     FUSE_FIELD(kernel, launch), FUSE_FIELD(kernel, bindings),
     FUSE_FIELD(kernel, ops), FUSE_FIELD(kernel, checkedOps),
     FUSE_FIELD(kernel, perBinding), FUSE_FIELD(kernel, bindingInputs),
     FUSE_FIELD(kernel, dimsDependent), FUSE_FIELD(kernel, symbolicIterations),
     FUSE_FIELD(kernel, runtimeDims), FUSE_FIELD(kernel, dimValues));
}

template <class A> void serialize(A &ar, ArenaSlice &slice) {
  ar(FUSE_FIELD(slice, tensor), FUSE_FIELD(slice, offset),
     FUSE_FIELD(slice, bytes));
}

template <class A> void serialize(A &ar, SymbolicSlice &slice) {
  ar(FUSE_FIELD(slice, tensor), FUSE_FIELD(slice, bytes),
     FUSE_FIELD(slice, firstUse), FUSE_FIELD(slice, lastUse),
     FUSE_FIELD(slice, bound));
}

template <class A> void serialize(A &ar, MemoryPlan &plan) {
  ar(FUSE_FIELD(plan, intermediates), FUSE_FIELD(plan, symbolicSlices),
     FUSE_FIELD(plan, peakBytes), FUSE_FIELD(plan, boundBytes));
}

template <class A> void serialize(A &ar, OutputAlias &alias) {
  ar(FUSE_FIELD(alias, output), FUSE_FIELD(alias, input));
}

template <class A> void serialize(A &ar, BoundAxis &axis) {
  ar(FUSE_FIELD(axis, tensor), FUSE_FIELD(axis, axis), FUSE_FIELD(axis, dim));
}

template <class A> void serialize(A &ar, BoundDims &bound) {
  ar(FUSE_FIELD(bound, dims), FUSE_FIELD(bound, values),
     FUSE_FIELD(bound, axes));
}

template <class A> void serialize(A &ar, Bundle &bundle) {
  ar(FUSE_FIELD(bundle, graph), FUSE_FIELD(bundle, sourceGraphHash),
     FUSE_FIELD(bundle, target), FUSE_FIELD(bundle, versionId),
     FUSE_FIELD(bundle, kernels), FUSE_FIELD(bundle, launchOrder),
     FUSE_FIELD(bundle, memoryPlan), FUSE_FIELD(bundle, aliases),
     FUSE_FIELD(bundle, inputs), FUSE_FIELD(bundle, outputs),
     FUSE_FIELD(bundle, boundDims));
  // Binary: each distinct payload once, then the payload of every kernel
  // by its index in that list.
  using Payload = std::vector<std::uint8_t>;
  std::vector<Payload> payloads;
  std::vector<std::uint32_t> payloadOf;
  if constexpr (std::is_same_v<A, cereal::BinaryOutputArchive>) {
    std::map<Payload, std::uint32_t> index;
    for (const BundleKernel &kernel : bundle.kernels) {
      auto [it, added] =
          index.emplace(kernel.payload.bytes(), std::uint32_t(payloads.size()));
      if (added)
        payloads.push_back(kernel.payload.bytes());
      payloadOf.push_back(it->second);
    }
    ar(payloads, payloadOf);
  } else if constexpr (std::is_same_v<A, BoundedBinaryInputArchive>) {
    ar(payloads, payloadOf);
    if (payloadOf.size() != bundle.kernels.size())
      throw cereal::Exception(
          "the bundle names payloads for " + std::to_string(payloadOf.size()) +
          " kernels, " + "it has " + std::to_string(bundle.kernels.size()));
    // Kernels that name one payload share its bytes.
    std::vector<KernelPayload> shared(payloads.begin(), payloads.end());
    for (std::size_t k = 0; k < payloadOf.size(); ++k) {
      if (payloadOf[k] >= payloads.size())
        throw cereal::Exception("kernel " + std::to_string(k) +
                                " names payload " +
                                std::to_string(payloadOf[k]) + " of " +
                                std::to_string(payloads.size()));
      bundle.kernels[k].payload = shared[payloadOf[k]];
    }
  }
}

#undef FUSE_FIELD

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

std::string sha256Hex(std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  Sha256 hasher;
  hasher.update(bytes);
  std::string hex;
  for (std::uint8_t byte : hasher.finish()) {
    hex.push_back(kDigits[byte >> 4]);
    hex.push_back(kDigits[byte & 15]);
  }
  return hex;
}

std::vector<std::uint8_t> serializeBundle(const Bundle &bundle) {
  std::ostringstream stream(std::ios::binary);
  {
    cereal::BinaryOutputArchive archive(stream);
    archive(bundle);
  }
  std::string bytes = std::move(stream).str();
  return std::vector<std::uint8_t>(bytes.begin(), bytes.end());
}

Expected<Bundle> deserializeBundle(std::span<const std::uint8_t> payload) {
  Bundle bundle;
  try {
    BoundedBinaryInputArchive archive(payload);
    archive(bundle);
    if (archive.remaining() != 0)
      return Status::error("the payload has " +
                           std::to_string(archive.remaining()) +
                           " bytes after the bundle");
  } catch (const std::exception &error) {
    return Status::error(std::string("the payload is not a bundle: ") +
                         error.what());
  }
  return bundle;
}

std::string bundleToJson(const Bundle &bundle) {
  std::ostringstream stream;
  {
    cereal::JSONOutputArchive archive(stream);
    archive(cereal::make_nvp("bundle", bundle));
  }
  return std::move(stream).str();
}

} // namespace fuse
