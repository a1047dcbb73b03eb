//===- ReplayMain.cpp - Runs a fuzz target over files, deterministically --===//
//
// The main of every fuzz target where libFuzzer is not linked (GCC builds,
// CI): each file given, or each file in each folder given, goes through
// LLVMFuzzerTestOneInput as it is, then as `--mutations N` byte-level
// mutations of it (flips, overwrites with boundary bytes, truncations,
// duplicated and deleted ranges) drawn from a fixed seed, so that a run is
// the same on every machine and a failure reproduces. A crash is the
// sanitizer's report; the driver prints what it ran.
//
//   fuzz-onnx [--mutations N] [--seed S] PATH...
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data,
                                      std::size_t size);

namespace {

/// SplitMix64: small, fast and the same everywhere.
struct Random {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n ? next() % n : 0; }
};

std::vector<std::uint8_t> mutate(std::vector<std::uint8_t> bytes,
                                 Random &random) {
  static const std::uint8_t boundary[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0xfe};
  unsigned edits = 1 + unsigned(random.below(4));
  for (unsigned e = 0; e < edits; ++e) {
    std::size_t size = bytes.size();
    switch (random.below(6)) {
    case 0: // flip a bit
      if (size)
        bytes[random.below(size)] ^= std::uint8_t(1u << random.below(8));
      break;
    case 1: // a boundary byte
      if (size)
        bytes[random.below(size)] = boundary[random.below(sizeof(boundary))];
      break;
    case 2: // a random byte
      if (size)
        bytes[random.below(size)] = std::uint8_t(random.next());
      break;
    case 3: // truncate
      bytes.resize(random.below(size + 1));
      break;
    case 4: { // duplicate a range in place
      if (!size)
        break;
      std::size_t begin = random.below(size);
      std::size_t length =
          1 + random.below(std::min<std::size_t>(64, size - begin));
      std::vector<std::uint8_t> range(bytes.begin() + begin,
                                      bytes.begin() + begin + length);
      bytes.insert(bytes.begin() + begin, range.begin(), range.end());
      break;
    }
    default: { // delete a range
      if (!size)
        break;
      std::size_t begin = random.below(size);
      std::size_t length =
          1 + random.below(std::min<std::size_t>(64, size - begin));
      bytes.erase(bytes.begin() + begin, bytes.begin() + begin + length);
      break;
    }
    }
  }
  return bytes;
}

std::uint64_t fnv1a(const std::string &text) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (char c : text)
    hash = (hash ^ std::uint8_t(c)) * 0x100000001b3ull;
  return hash;
}

bool readFile(const std::filesystem::path &path,
              std::vector<std::uint8_t> &bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  bytes.assign(std::istreambuf_iterator<char>(in),
               std::istreambuf_iterator<char>());
  return true;
}

} // namespace

int main(int argc, char **argv) {
  unsigned mutations = 0;
  std::uint64_t seed = 1;
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if ((arg == "--mutations" || arg == "--seed") && i + 1 < argc) {
      char *end = nullptr;
      unsigned long long value = std::strtoull(argv[++i], &end, 10);
      if (!end || *end) {
        std::fprintf(stderr, "replay: %s wants a number\n", arg.c_str());
        return 2;
      }
      if (arg == "--seed")
        seed = value;
      else
        mutations = unsigned(value);
      continue;
    }
    std::error_code ec;
    if (std::filesystem::is_directory(arg, ec)) {
      std::vector<std::filesystem::path> inFolder;
      for (const auto &entry : std::filesystem::directory_iterator(arg, ec))
        if (entry.is_regular_file())
          inFolder.push_back(entry.path());
      std::sort(inFolder.begin(), inFolder.end());
      files.insert(files.end(), inFolder.begin(), inFolder.end());
    } else if (std::filesystem::is_regular_file(arg, ec)) {
      files.push_back(arg);
    } else {
      std::fprintf(stderr, "replay: '%s' is neither a file nor a folder\n",
                   arg.c_str());
      return 2;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "replay: no input files\n");
    return 2;
  }
  std::size_t runs = 0;
  for (const std::filesystem::path &path : files) {
    std::vector<std::uint8_t> bytes;
    if (!readFile(path, bytes)) {
      std::fprintf(stderr, "replay: cannot read '%s'\n", path.c_str());
      return 2;
    }
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    ++runs;
    // One stream per file, so that adding a file changes no other's
    // mutations.
    Random random{seed ^ fnv1a(path.filename().string())};
    for (unsigned m = 0; m < mutations; ++m) {
      std::vector<std::uint8_t> mutated = mutate(bytes, random);
      LLVMFuzzerTestOneInput(mutated.data(), mutated.size());
      ++runs;
    }
  }
  std::printf("replay: %zu files, %zu inputs, no crash\n", files.size(), runs);
  return 0;
}
