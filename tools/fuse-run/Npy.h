//===- Npy.h - NumPy .npy files for fuse-run --------------------*- C++ -*-===//
//
// A small reader and writer of NumPy's `.npy` format (versions 1.0, 2.0 and
// 3.0), enough for the inputs and outputs of a model: little-endian f16, f32,
// f64, i8, i16, i32, i64, u8, u16, u32, u64 (Fuse's ui types) and bool, C
// order. Anything else (Fortran order, big endian, other dtypes, a truncated
// file) is an error that says what was found and what is accepted.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_TOOLS_FUSE_RUN_NPY_H
#define FUSE_TOOLS_FUSE_RUN_NPY_H

#include "runtime/ir/Graph.h"
#include "runtime/ir/Status.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace fuse::npy {

struct Array {
  TensorType type;
  /// Row-major, little-endian, in the element type's storage.
  std::vector<std::uint8_t> bytes;
};

/// The `descr` of an element type (`<f4`, `|u1`, `|b1`, ...), or empty for a
/// type .npy cannot hold (bf16, the 8-, 4- and 2-bit formats).
std::string descrFor(ElementType type);

/// Parses the bytes of a whole .npy file.
Expected<Array> parse(std::span<const std::uint8_t> file);
/// Reads and parses `path`: a regular file (RegularFile), its header first,
/// then exactly the data the header describes once the file's size agrees;
/// never reads more. Errors name the path.
Expected<Array> read(const std::string &path);
/// Writes `array` to `path` (format version 1.0). A type without a descr is
/// widened to one that holds its values exactly: bf16, f8 and f4 to f32 (<f4),
/// i4 and i2 to int8 (|i1), ui4 and ui2 to uint8 (|u1). Reading them back
/// gives those types: .npy has no dtype for the narrow ones (ml_dtypes saves
/// its arrays of them as untyped bytes, '<V1', which parse() refuses with a
/// message that says so).
Status write(const std::string &path, const Array &array);

/// The file names (NAME.npy, no folder) of outputs with these names, each a
/// plain name inside the output folder whatever the model calls its output:
/// bytes other than letters, digits, '_', '-' and '.' are written %XX (a
/// '/', a NUL, '%' itself), as is a leading '.' (no "..", no hidden file);
/// a name longer than 200 bytes is cut and ends in "~INDEX"; two outputs
/// whose names escape alike get "~INDEX" too, so no file is written twice.
std::vector<std::string> outputFileNames(const std::vector<std::string> &names);

} // namespace fuse::npy

#endif // FUSE_TOOLS_FUSE_RUN_NPY_H
