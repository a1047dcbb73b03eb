//===- BundleFile.cpp - The on-disk form of one cache entry ---------------===//

#include "runtime/cache/BundleFile.h"

#include "runtime/cache/BundleSerialization.h"
#include "runtime/ir/GraphHash.h"
#include "runtime/ir/Sha256.h"
#include "runtime/ir/Verifier.h"

#include <algorithm>
#include <cstring>
#include <optional>

namespace fuse {

namespace {
enum HeaderOffset : std::size_t {
  kMagicOffset = 0,
  kVersionOffset = 8,
  kKeyLengthOffset = 12,
  kPayloadLengthOffset = 16,
  kKeyDigestOffset = 24,
  kPayloadDigestOffset = 56,
  kHeaderCheckOffset = 88,
};
} // namespace

static void storeLE(std::uint8_t *out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out[i] = std::uint8_t(value >> (8 * i));
}

static std::uint64_t loadLE(const std::uint8_t *in, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i)
    value |= std::uint64_t(in[i]) << (8 * i);
  return value;
}

static Sha256::Digest headerCheck(std::span<const std::uint8_t> fixed,
                                  std::span<const std::uint8_t> keyRecord) {
  Sha256 hasher;
  hasher.update(fixed.first(kHeaderCheckOffset));
  hasher.update(keyRecord);
  return hasher.finish();
}

static Sha256::Digest sha256(std::span<const std::uint8_t> bytes) {
  Sha256 hasher;
  hasher.update(bytes);
  return hasher.finish();
}

std::vector<std::uint8_t> encodeBundleFile(const BundleKey &key,
                                           const Bundle &bundle) {
  std::vector<std::uint8_t> keyRecord = key.encode();
  std::vector<std::uint8_t> payload = serializeBundle(bundle);
  std::vector<std::uint8_t> file(kBundleHeaderSize);
  std::memcpy(file.data() + kMagicOffset, kBundleMagic, sizeof(kBundleMagic));
  storeLE(file.data() + kVersionOffset, kBundleFormatVersion, 4);
  storeLE(file.data() + kKeyLengthOffset, keyRecord.size(), 4);
  storeLE(file.data() + kPayloadLengthOffset, payload.size(), 8);
  Sha256::Digest keyDigest = key.digest();
  std::copy(keyDigest.begin(), keyDigest.end(),
            file.begin() + kKeyDigestOffset);
  Sha256::Digest payloadDigest = sha256(payload);
  std::copy(payloadDigest.begin(), payloadDigest.end(),
            file.begin() + kPayloadDigestOffset);
  Sha256::Digest check = headerCheck(file, keyRecord);
  std::copy(check.begin(), check.begin() + 8,
            file.begin() + kHeaderCheckOffset);
  file.insert(file.end(), keyRecord.begin(), keyRecord.end());
  file.insert(file.end(), payload.begin(), payload.end());
  return file;
}

Expected<BundleFileContents>
decodeBundleFile(std::span<const std::uint8_t> bytes) {
  if (bytes.empty())
    return Status::error("the file is empty, not a bundle");
  if (bytes.size() < sizeof(kBundleMagic) ||
      !std::equal(std::begin(kBundleMagic), std::end(kBundleMagic),
                  bytes.begin()))
    return Status::error("the file is not a Fuse bundle (no FUSEBNDL magic)");
  if (bytes.size() < kBundleHeaderSize)
    return Status::error(
        "the file is truncated: " + std::to_string(bytes.size()) +
        " bytes, shorter than the " + std::to_string(kBundleHeaderSize) +
        "-byte header");
  std::uint32_t version = std::uint32_t(loadLE(&bytes[kVersionOffset], 4));
  if (version != kBundleFormatVersion)
    return Status::error("the file has bundle format version " +
                         std::to_string(version) + "; this runtime reads " +
                         std::to_string(kBundleFormatVersion));
  std::uint64_t keyLength = loadLE(&bytes[kKeyLengthOffset], 4);
  std::uint64_t payloadLength = loadLE(&bytes[kPayloadLengthOffset], 8);
  if (keyLength > kMaxKeyRecordLength)
    return Status::error("the header is damaged: a key record of " +
                         std::to_string(keyLength) + " bytes (at most " +
                         std::to_string(kMaxKeyRecordLength) + ")");
  std::uint64_t available = bytes.size() - kBundleHeaderSize;
  if (keyLength > available)
    return Status::error("the file is truncated: it ends inside the key "
                         "record");
  std::span<const std::uint8_t> keyRecord =
      bytes.subspan(kBundleHeaderSize, keyLength);
  Sha256::Digest check = headerCheck(bytes.first(kBundleHeaderSize), keyRecord);
  if (!std::equal(check.begin(), check.begin() + 8,
                  bytes.begin() + kHeaderCheckOffset))
    return Status::error("the header is damaged (its checksum does not "
                         "match)");
  if (payloadLength != available - keyLength)
    return Status::error(
        "the file's size does not match its header (truncated or extended): "
        "the header announces a " +
        std::to_string(payloadLength) + "-byte payload, the file holds " +
        std::to_string(available - keyLength));
  std::span<const std::uint8_t> payload =
      bytes.subspan(kBundleHeaderSize + keyLength);
  Sha256::Digest payloadDigest = sha256(payload);
  if (!std::equal(payloadDigest.begin(), payloadDigest.end(),
                  bytes.begin() + kPayloadDigestOffset))
    return Status::error("the payload is damaged (its SHA-256 does not match "
                         "the header)");
  Expected<BundleKey> key = BundleKey::decode(keyRecord);
  if (!key.ok())
    return key.status();
  BundleKey::Digest keyDigest = key->digest();
  if (!std::equal(keyDigest.begin(), keyDigest.end(),
                  bytes.begin() + kKeyDigestOffset))
    return Status::error("the key record does not match the key in the "
                         "header");
  Expected<Bundle> bundle = deserializeBundle(payload);
  if (!bundle.ok())
    return bundle.status();
  return BundleFileContents{key.take(), bundle.take()};
}

Status checkBundleMatchesKey(const Bundle &bundle, const BundleKey &key) {
  if (bundle.versionId != key.versionId)
    return Status::error("the bundle was made by version " + bundle.versionId +
                         ", its key names version " + key.versionId);
  if (bundle.target != key.target)
    return Status::error("the bundle is for target '" + bundle.target +
                         "', its key names '" + key.target + "'");
  if (Status valid = validate(bundle.graph); !valid.ok())
    return Status::error("the bundle's graph is invalid: " + valid.message());
  // A rewritten graph (sourceGraphHash) is checked by the hash of the graph
  // it was rewritten from.
  std::optional<Hash128> named = bundle.sourceGraphHash.empty()
                                     ? std::optional(hashGraph(bundle.graph))
                                     : Hash128::fromHex(bundle.sourceGraphHash);
  if (!named)
    return Status::error("the bundle's source graph hash '" +
                         bundle.sourceGraphHash + "' is not 32 hex digits");
  if (*named != key.graphHash)
    return Status::error("the bundle's graph is not the graph its key names");
  return verifyBundle(bundle);
}

std::vector<std::uint8_t> encodeKernelFile(const std::string &keyHex,
                                           const std::string &versionId,
                                           const KernelFile &kernel) {
  std::vector<std::uint8_t> payload(4);
  storeLE(payload.data(), kernel.symbols.size(), 4);
  for (const std::string &symbol : kernel.symbols) {
    std::size_t at = payload.size();
    payload.resize(at + 4);
    storeLE(payload.data() + at, symbol.size(), 4);
    payload.insert(payload.end(), symbol.begin(), symbol.end());
  }
  payload.insert(payload.end(), kernel.object.begin(), kernel.object.end());

  std::vector<std::uint8_t> file(std::begin(kKernelMagic),
                                 std::end(kKernelMagic));
  file.resize(file.size() + 4);
  storeLE(file.data() + 8, versionId.size(), 4);
  file.insert(file.end(), versionId.begin(), versionId.end());
  file.insert(file.end(), keyHex.begin(), keyHex.end());
  std::size_t at = file.size();
  file.resize(at + 8);
  storeLE(file.data() + at, payload.size(), 8);
  Sha256::Digest digest = sha256(payload);
  file.insert(file.end(), digest.begin(), digest.end());
  file.insert(file.end(), payload.begin(), payload.end());
  return file;
}

/// The symbols and object of a kernel file's payload (its checksum
/// matched), or none where they do not parse.
static std::optional<KernelFile>
decodeKernelPayload(std::span<const std::uint8_t> payload) {
  std::size_t at = 0;
  auto readU32 = [&](std::uint64_t &value) {
    if (payload.size() - at < 4)
      return false;
    value = loadLE(payload.data() + at, 4);
    at += 4;
    return true;
  };
  KernelFile kernel;
  std::uint64_t count = 0;
  if (!readU32(count) || count == 0 || count > 4096)
    return std::nullopt;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t size = 0;
    if (!readU32(size) || size == 0 || payload.size() - at < size)
      return std::nullopt;
    kernel.symbols.emplace_back(payload.begin() + std::ptrdiff_t(at),
                                payload.begin() + std::ptrdiff_t(at + size));
    at += size;
  }
  if (at == payload.size())
    return std::nullopt;
  kernel.object.assign(payload.begin() + std::ptrdiff_t(at), payload.end());
  return kernel;
}

Expected<KernelFile> decodeKernelFile(std::span<const std::uint8_t> bytes,
                                      const std::string &keyHex,
                                      const std::string &versionId) {
  std::size_t header = sizeof(kKernelMagic) + 4;
  if (bytes.size() < header ||
      !std::equal(std::begin(kKernelMagic), std::end(kKernelMagic),
                  bytes.begin()))
    return Status::error("not a kernel file (no FUSEKRN1 header)");
  std::uint64_t versionBytes = loadLE(bytes.data() + 8, 4);
  if (versionBytes > 256 || bytes.size() < header + versionBytes + 64 + 8 + 32)
    return Status::error("the kernel file is truncated");
  std::string stored(bytes.begin() + std::ptrdiff_t(header),
                     bytes.begin() + std::ptrdiff_t(header + versionBytes));
  if (stored != versionId)
    return Status::error("the kernel was made by another version of Fuse "
                         "(version id " +
                         stored + "; this build is " + versionId + ")");
  std::size_t at = header + versionBytes;
  if (std::string(bytes.begin() + std::ptrdiff_t(at),
                  bytes.begin() + std::ptrdiff_t(at + 64)) != keyHex)
    return Status::error("the kernel file holds another key");
  at += 64;
  std::uint64_t payloadBytes = loadLE(bytes.data() + at, 8);
  at += 8 + 32;
  if (payloadBytes != bytes.size() - at)
    return Status::error(
        "the kernel file is truncated or has bytes after its end");
  std::span<const std::uint8_t> payload = bytes.subspan(at);
  Sha256::Digest digest = sha256(payload);
  if (!std::equal(digest.begin(), digest.end(),
                  bytes.begin() + std::ptrdiff_t(at - 32)))
    return Status::error("the kernel's checksum does not match its bytes");
  std::optional<KernelFile> kernel = decodeKernelPayload(payload);
  if (!kernel)
    return Status::error("the kernel file's symbols do not parse");
  return std::move(*kernel);
}

} // namespace fuse
