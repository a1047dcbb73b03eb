//===- BundleKey.cpp - The cache key of a compiled graph ------------------===//

#include "runtime/cache/BundleKey.h"

#include "runtime/Version.h"
#include "runtime/ir/Sha256.h"

#include <algorithm>
#include <limits>

namespace fuse {

// Bumped whenever encode() changes, so old and new keys never collide.
static constexpr std::string_view kKeyTag = "fuse-bundle-key-v3";

BundleKey BundleKey::make(const Graph &graph, std::string target,
                          const CompileOptions &options) {
  BundleKey key;
  key.graphHash = hashGraph(graph);
  key.target = std::move(target);
  key.versionId = fuse::versionId();
  key.options = options;
  return key;
}

static void putU64(std::vector<std::uint8_t> &out, std::uint64_t value) {
  for (int i = 0; i < 8; ++i)
    out.push_back(std::uint8_t(value >> (8 * i)));
}

static void putString(std::vector<std::uint8_t> &out, std::string_view text) {
  putU64(out, text.size());
  out.insert(out.end(), text.begin(), text.end());
}

std::vector<std::uint8_t> BundleKey::encode() const {
  std::vector<std::uint8_t> out(kKeyTag.begin(), kKeyTag.end());
  putU64(out, graphHash.high);
  putU64(out, graphHash.low);
  putString(out, target);
  putString(out, versionId);
  putU64(out, std::uint64_t(std::int64_t(options.optimizationLevel)));
  out.push_back(options.enableFusion ? 1 : 0);
  out.push_back(options.explain ? 1 : 0);
  out.push_back(options.tieredKernels ? 1 : 0);
  out.push_back(std::uint8_t(options.matmulPrecision));
  out.push_back(options.amxTiles ? 1 : 0);
  return out;
}

namespace {
/// Reads what encode() wrote; every read checks the bytes left.
class KeyReader {
public:
  explicit KeyReader(std::span<const std::uint8_t> bytes) : bytes(bytes) {}

  bool u64(std::uint64_t &value) {
    if (bytes.size() - pos < 8)
      return false;
    value = 0;
    for (int i = 0; i < 8; ++i)
      value |= std::uint64_t(bytes[pos + i]) << (8 * i);
    pos += 8;
    return true;
  }
  bool string(std::string &text) {
    std::uint64_t length;
    if (!u64(length) || length > BundleKey::kMaxPartLength ||
        length > bytes.size() - pos)
      return false;
    text.assign(bytes.begin() + pos, bytes.begin() + pos + length);
    pos += length;
    return true;
  }
  bool flag(bool &value) {
    if (pos >= bytes.size() || bytes[pos] > 1)
      return false;
    value = bytes[pos++] == 1;
    return true;
  }
  bool tag() {
    if (bytes.size() < kKeyTag.size() ||
        !std::equal(kKeyTag.begin(), kKeyTag.end(), bytes.begin()))
      return false;
    pos = kKeyTag.size();
    return true;
  }
  bool precision(MatmulPrecision &value) {
    if (pos >= bytes.size() || bytes[pos] > std::uint8_t(MatmulPrecision::Bf16))
      return false;
    value = MatmulPrecision(bytes[pos++]);
    return true;
  }
  bool atEnd() const { return pos == bytes.size(); }

private:
  std::span<const std::uint8_t> bytes;
  std::size_t pos = 0;
};
} // namespace

Expected<BundleKey> BundleKey::decode(std::span<const std::uint8_t> bytes) {
  KeyReader reader(bytes);
  BundleKey key;
  std::uint64_t level;
  if (!reader.tag())
    return Status::error("the key record does not start with '" +
                         std::string(kKeyTag) + "'");
  if (!reader.u64(key.graphHash.high) || !reader.u64(key.graphHash.low) ||
      !reader.string(key.target) || !reader.string(key.versionId) ||
      !reader.u64(level) || !reader.flag(key.options.enableFusion) ||
      !reader.flag(key.options.explain) ||
      !reader.flag(key.options.tieredKernels) ||
      !reader.precision(key.options.matmulPrecision) ||
      !reader.flag(key.options.amxTiles) || !reader.atEnd() ||
      std::int64_t(level) < std::numeric_limits<int>::min() ||
      std::int64_t(level) > std::numeric_limits<int>::max())
    return Status::error("the key record is malformed");
  key.options.optimizationLevel = int(level);
  return key;
}

BundleKey::Digest BundleKey::digest() const {
  Sha256 hasher;
  hasher.update(encode());
  return hasher.finish();
}

std::string BundleKey::toHex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (std::uint8_t byte : digest()) {
    hex.push_back(kDigits[byte >> 4]);
    hex.push_back(kDigits[byte & 15]);
  }
  return hex;
}

bool BundleKey::isKeyHex(std::string_view text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::string BundleKey::describe() const {
  return "graph " + graphHash.toHex() + " target " + target + " version " +
         versionId + " options O" + std::to_string(options.optimizationLevel) +
         " fusion=" + (options.enableFusion ? "on" : "off") +
         " explain=" + (options.explain ? "on" : "off") +
         " tiered=" + (options.tieredKernels ? "on" : "off") +
         " matmul=" + matmulPrecisionName(options.matmulPrecision) +
         (options.amxTiles ? " amx=on" : "");
}

} // namespace fuse
