//===- Npy.cpp - NumPy .npy files for fuse-run ----------------------------===//

#include "Npy.h"

#include "runtime/ir/Allocation.h"
#include "runtime/ir/CheckedInt.h"
#include "runtime/ir/Interpreter.h"
#include "runtime/ir/RegularFile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace fuse::npy {
namespace {

const char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLength = 6;

std::optional<ElementType> typeForDescr(const std::string &descr) {
  if (descr == "<f2")
    return ElementType::F16;
  if (descr == "<f4")
    return ElementType::F32;
  if (descr == "<f8")
    return ElementType::F64;
  if (descr == "|i1" || descr == "<i1")
    return ElementType::I8;
  if (descr == "<i2")
    return ElementType::I16;
  if (descr == "<i4")
    return ElementType::I32;
  if (descr == "<i8")
    return ElementType::I64;
  if (descr == "|u1" || descr == "<u1")
    return ElementType::UI8;
  if (descr == "<u2")
    return ElementType::UI16;
  if (descr == "<u4")
    return ElementType::UI32;
  if (descr == "<u8")
    return ElementType::UI64;
  if (descr == "|b1" || descr == "<b1")
    return ElementType::I1;
  return std::nullopt;
}

/// A tiny reader of the header's Python dict literal.
class HeaderParser {
public:
  explicit HeaderParser(std::string text) : text(std::move(text)) {}

  Status parse(std::string &descr, bool &fortranOrder,
               std::vector<std::int64_t> &shape) {
    bool sawDescr = false, sawOrder = false, sawShape = false;
    skipSpace();
    if (!consume('{'))
      return fail("expected '{'");
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key;
      if (!parseString(key))
        return fail("expected a quoted key");
      skipSpace();
      if (!consume(':'))
        return fail("expected ':' after '" + key + "'");
      skipSpace();
      if (key == "descr") {
        if (!parseString(descr))
          return fail("'descr' is not a string (structured dtypes are not "
                      "supported)");
        sawDescr = true;
      } else if (key == "fortran_order") {
        if (text.compare(pos, 4, "True") == 0) {
          fortranOrder = true;
          pos += 4;
        } else if (text.compare(pos, 5, "False") == 0) {
          fortranOrder = false;
          pos += 5;
        } else {
          return fail("'fortran_order' is not True or False");
        }
        sawOrder = true;
      } else if (key == "shape") {
        bool tooLong = false;
        if (!parseShape(shape, tooLong))
          return fail(tooLong ? "a dimension of 'shape' has more than 15 "
                                "digits, more than any tensor holds"
                              : "'shape' is not a tuple of integers");
        sawShape = true;
      } else {
        return fail("unexpected key '" + key + "'");
      }
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume('}'))
        break;
      return fail("expected ',' or '}'");
    }
    if (!sawDescr || !sawOrder || !sawShape)
      return fail("it needs 'descr', 'fortran_order' and 'shape'");
    return Status::success();
  }

private:
  Status fail(const std::string &what) {
    return Status::error("malformed .npy header (" + what + "): " + text);
  }
  void skipSpace() {
    while (pos < text.size() && std::isspace((unsigned char)text[pos]))
      ++pos;
  }
  bool consume(char c) {
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool parseString(std::string &out) {
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return false;
    char quote = text[pos++];
    std::size_t end = text.find(quote, pos);
    if (end == std::string::npos)
      return false;
    out = text.substr(pos, end - pos);
    pos = end + 1;
    return true;
  }
  bool parseShape(std::vector<std::int64_t> &shape, bool &tooLong) {
    if (!consume('('))
      return false;
    while (true) {
      skipSpace();
      if (consume(')'))
        return true;
      std::size_t start = pos;
      while (pos < text.size() && std::isdigit((unsigned char)text[pos]))
        ++pos;
      // Python 2 longs: `3L`.
      std::string digits = text.substr(start, pos - start);
      tooLong = digits.size() > 15;
      if (digits.empty() || tooLong)
        return false;
      consume('L');
      shape.push_back(std::stoll(digits));
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume(')'))
        return true;
      return false;
    }
  }

  std::string text;
  std::size_t pos = 0;
};

} // namespace

std::string descrFor(ElementType type) {
  switch (type) {
  case ElementType::F16:
    return "<f2";
  case ElementType::F32:
    return "<f4";
  case ElementType::F64:
    return "<f8";
  case ElementType::I8:
    return "|i1";
  case ElementType::I16:
    return "<i2";
  case ElementType::I32:
    return "<i4";
  case ElementType::I64:
    return "<i8";
  case ElementType::UI8:
    return "|u1";
  case ElementType::UI16:
    return "<u2";
  case ElementType::UI32:
    return "<u4";
  case ElementType::UI64:
    return "<u8";
  case ElementType::I1:
    return "|b1";
  default:
    return "";
  }
}

namespace {

/// Where the header text of a .npy file lies.
struct HeaderExtent {
  std::size_t start, length;
  std::size_t end() const { return start + length; }
};

/// NumPy itself refuses headers over 10000 bytes unless told otherwise.
constexpr std::size_t kMaxHeaderLength = std::size_t(1) << 20;
/// Enough for the magic, the version and the longest length field.
constexpr std::size_t kPrefixLength = 12;

/// The header's place, from the file's first kPrefixLength bytes (or all of
/// a shorter file).
Expected<HeaderExtent> headerExtent(std::span<const std::uint8_t> prefix) {
  if (prefix.size() < kMagicLength + 4 ||
      std::memcmp(prefix.data(), kMagic, kMagicLength) != 0)
    return Status::error("not a .npy file (no \\x93NUMPY magic)");
  unsigned major = prefix[6];
  HeaderExtent extent;
  if (major == 1) {
    extent.length = prefix[8] | (std::size_t(prefix[9]) << 8);
    extent.start = 10;
  } else if (major == 2 || major == 3) {
    if (prefix.size() < 12)
      return Status::error("truncated .npy header");
    extent.length = prefix[8] | (std::size_t(prefix[9]) << 8) |
                    (std::size_t(prefix[10]) << 16) |
                    (std::size_t(prefix[11]) << 24);
    extent.start = 12;
  } else {
    return Status::error(".npy format version " + std::to_string(major) +
                         " is not supported (1, 2 or 3)");
  }
  if (extent.length > kMaxHeaderLength)
    return Status::error("the .npy header claims " +
                         std::to_string(extent.length) + " bytes; at most " +
                         std::to_string(kMaxHeaderLength) + " are accepted");
  return extent;
}

/// The array's type from the header's text.
Expected<TensorType> parseHeaderText(const std::string &header) {
  std::string descr;
  bool fortranOrder = false;
  std::vector<std::int64_t> shape;
  if (Status status = HeaderParser(header).parse(descr, fortranOrder, shape);
      !status.ok())
    return status;
  if (fortranOrder)
    return Status::error("the array is in Fortran order; only C order is "
                         "supported (save it with np.ascontiguousarray)");
  std::optional<ElementType> type = typeForDescr(descr);
  if (!type && (descr == "<V1" || descr == "|V1"))
    return Status::error(
        "dtype '" + descr +
        "' is untyped bytes (how NumPy saves ml_dtypes' float8, float4, "
        "int4 and int2 arrays): .npy cannot say which of Fuse's f8, f4, i4, "
        "ui4, i2 or ui2 types they hold; expected little-endian f2, f4, f8, "
        "i1, i2, i4, i8, u1, u2, u4, u8 or b1");
  if (!type)
    return Status::error("dtype '" + descr +
                         "' is not supported; expected little-endian f2, f4, "
                         "f8, i1, i2, i4, i8, u1, u2, u4, u8 or b1");
  // A header can claim any shape: its byte count (8 bytes an element at
  // most) must fit an int64, counted with CheckedInt; a 0 dim empties the
  // array whatever the others hold.
  if (!(checkedElementCount(shape) * 8).ok())
    return Status::error("the shape in the header is too large");
  return TensorType{*type, shape};
}

Status checkDataSize(std::uint64_t have, const TensorType &type) {
  std::int64_t bytes = type.byteSize();
  if (have != std::uint64_t(bytes))
    return Status::error("the data holds " + std::to_string(have) +
                         " bytes; shape and dtype need " +
                         std::to_string(bytes));
  return Status::success();
}

} // namespace

Expected<Array> parse(std::span<const std::uint8_t> file) {
  Expected<HeaderExtent> extent =
      headerExtent(file.first(std::min(file.size(), kPrefixLength)));
  if (!extent.ok())
    return extent.status();
  if (file.size() < extent->end())
    return Status::error("truncated .npy header");
  Expected<TensorType> type = parseHeaderText(
      std::string(file.begin() + extent->start, file.begin() + extent->end()));
  if (!type.ok())
    return type.status();
  std::span<const std::uint8_t> data = file.subspan(extent->end());
  if (Status size = checkDataSize(data.size(), *type); !size.ok())
    return size;
  if (Status room = checkAllocatable(data.size(), "a " + type->toString());
      !room.ok())
    return room;
  Array array;
  array.type = *type;
  array.bytes.assign(data.begin(), data.end());
  return array;
}

Expected<Array> read(const std::string &path) {
  // The header first, then exactly the bytes it describes: the file's size
  // is checked before the data is allocated or read.
  Expected<RegularFile> file = RegularFile::open(path);
  if (!file.ok())
    return file.status();
  auto named = [&](const Status &status) {
    return Status::error("'" + path + "': " + status.message());
  };
  std::vector<std::uint8_t> prefix(
      std::size_t(std::min<std::uint64_t>(file->size(), kPrefixLength)));
  if (Status read = file->readAt(0, prefix); !read.ok())
    return read;
  Expected<HeaderExtent> extent = headerExtent(prefix);
  if (!extent.ok())
    return named(extent.status());
  if (file->size() < extent->end())
    return named(Status::error("truncated .npy header"));
  std::string header(extent->length, '\0');
  if (Status read = file->readAt(
          extent->start,
          {reinterpret_cast<std::uint8_t *>(header.data()), header.size()});
      !read.ok())
    return read;
  Expected<TensorType> type = parseHeaderText(header);
  if (!type.ok())
    return named(type.status());
  std::uint64_t dataBytes = file->size() - extent->end();
  if (Status size = checkDataSize(dataBytes, *type); !size.ok())
    return named(size);
  if (Status room = checkAllocatable(dataBytes, "a " + type->toString());
      !room.ok())
    return named(room);
  Array array;
  array.type = *type;
  array.bytes.resize(std::size_t(dataBytes));
  if (Status read = file->readAt(extent->end(), array.bytes); !read.ok())
    return read;
  return array;
}

namespace {

/// An output file, opened without following a link and without blocking (a
/// FIFO where an output goes would wait for a reader forever), and written
/// only if it is a regular file: an output never lands outside the output
/// folder or in a device, whatever the folder holds.
class OutputFile {
public:
  ~OutputFile() {
    if (fd >= 0)
      ::close(fd);
  }

  Status open(const std::string &filePath) {
    path = filePath;
    fd = ::open(path.c_str(),
                O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
                    O_NOCTTY,
                0666);
    if (fd < 0) {
      if (errno == ELOOP)
        return failure("it is a symbolic link, which is not followed");
      if (errno == ENXIO)
        return failure("it is a FIFO");
      if (errno == EISDIR)
        return failure("it is a directory");
      return failure(std::strerror(errno));
    }
    struct stat info;
    if (::fstat(fd, &info) != 0)
      return failure(std::strerror(errno));
    if (S_ISDIR(info.st_mode))
      return failure("it is a directory");
    if (!S_ISREG(info.st_mode))
      return failure("it is not a regular file");
    if (::ftruncate(fd, 0) != 0)
      return failure(std::strerror(errno));
    return Status::success();
  }

  Status write(const void *data, std::size_t size) {
    const char *next = static_cast<const char *>(data);
    while (size > 0) {
      ssize_t written = ::write(fd, next, size);
      if (written < 0 && errno == EINTR)
        continue;
      if (written <= 0)
        return failure(written < 0 ? std::strerror(errno) : "nothing written");
      next += written;
      size -= std::size_t(written);
    }
    return Status::success();
  }

private:
  Status failure(const std::string &why) const {
    return Status::error("cannot write '" + path + "': " + why);
  }

  std::string path;
  int fd = -1;
};

} // namespace

Status write(const std::string &path, const Array &array) {
  const Array *data = &array;
  Array widened;
  std::string descr = descrFor(array.type.elementType);
  const ElementType type = array.type.elementType;
  if (descr.empty() && isInteger(type)) {
    // i4 and i2 take a byte each, sign-extended: int8's layout; ui4 and ui2
    // zero-extended: uint8's.
    descr = isUnsignedInteger(type) ? "|u1" : "|i1";
  } else if (descr.empty()) {
    // bf16 and the f8/f4 types have no .npy dtype: widen to f32, which holds
    // each of their values exactly.
    HostTensorData source(array.type);
    source.bytes = array.bytes;
    TensorType f32Type{ElementType::F32, array.type.shape};
    std::vector<double> values = source.toDoubles();
    widened.type = f32Type;
    widened.bytes = HostTensorData::fromDoubles(f32Type, values).bytes;
    data = &widened;
    descr = "<f4";
  }
  std::ostringstream header;
  header << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
  const std::vector<std::int64_t> &shape = data->type.shape;
  for (std::size_t i = 0; i < shape.size(); ++i)
    header << (i ? ", " : "") << shape[i];
  // Python's tuples: `()`, `(5,)`, `(2, 3)`.
  header << (shape.size() == 1 ? ",)" : ")");
  std::string text = header.str();
  text += ", }";
  // Magic, version, length, header and newline padded to 64 bytes.
  std::size_t total = kMagicLength + 4 + text.size() + 1;
  text.append((64 - total % 64) % 64, ' ');
  text += '\n';
  std::string head(kMagic, kMagicLength);
  head += char(1);
  head += char(0);
  head += char(text.size() & 0xff);
  head += char(text.size() >> 8);
  head += text;
  OutputFile out;
  if (Status opened = out.open(path); !opened.ok())
    return opened;
  if (Status written = out.write(head.data(), head.size()); !written.ok())
    return written;
  return out.write(data->bytes.data(), data->bytes.size());
}

std::vector<std::string>
outputFileNames(const std::vector<std::string> &names) {
  constexpr std::size_t kMaxStem = 200;
  std::vector<std::string> files;
  std::set<std::string> taken;
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::string stem;
    for (std::size_t k = 0; k < names[i].size(); ++k) {
      unsigned char c = static_cast<unsigned char>(names[i][k]);
      bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                   (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                   (c == '.' && k != 0);
      if (plain) {
        stem += char(c);
      } else {
        static const char *hex = "0123456789ABCDEF";
        stem += '%';
        stem += hex[c >> 4];
        stem += hex[c & 15];
      }
    }
    if (stem.empty())
      stem = "out" + std::to_string(i);
    bool cut = stem.size() > kMaxStem;
    if (cut)
      stem.resize(kMaxStem);
    std::string file = stem + ".npy";
    if (cut || taken.count(file))
      file = stem + "~" + std::to_string(i) + ".npy";
    taken.insert(file);
    files.push_back(std::move(file));
  }
  return files;
}

} // namespace fuse::npy
