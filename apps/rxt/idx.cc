// IDX files (idx.h): zlib reads plain and gzip files alike; the header is checked against the
// data it announces.
#include "idx.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "rxt/support/error.h"

namespace rxt::cli {
namespace {

constexpr uint8_t kUnsignedByte = 0x08;
constexpr int64_t kMaxElements = int64_t{1} << 32;  // far above any data set we read

const char* TypeName(uint8_t code) {
  switch (code) {
    case 0x08: return "unsigned byte";
    case 0x09: return "signed byte";
    case 0x0B: return "short";
    case 0x0C: return "int";
    case 0x0D: return "float";
    case 0x0E: return "double";
    default: return nullptr;
  }
}

}  // namespace

IdxArray ParseIdx(const std::vector<uint8_t>& bytes, const std::string& source) {
  if (bytes.size() < 4 || bytes[0] != 0 || bytes[1] != 0) {
    Throw(ErrorCode::kDataLoss, source, ": not an IDX file (it must start with two zero bytes, a type and a rank)");
  }
  uint8_t type = bytes[2];
  int ndim = bytes[3];
  if (type != kUnsignedByte) {
    const char* name = TypeName(type);
    Throw(ErrorCode::kDataLoss, source, ": IDX element type ", name != nullptr ? name : "unknown", " (0x", std::hex,
          static_cast<int>(type), std::dec, ") is not supported (only unsigned bytes, 0x08)");
  }
  if (ndim < 1 || ndim > 4) Throw(ErrorCode::kDataLoss, source, ": IDX rank ", ndim, " is not between 1 and 4");
  size_t header = 4 + 4 * static_cast<size_t>(ndim);
  if (bytes.size() < header) {
    Throw(ErrorCode::kDataLoss, source, ": truncated IDX header (", bytes.size(), " bytes, the dims need ", header, ")");
  }
  IdxArray array;
  int64_t count = 1;
  for (int d = 0; d < ndim; ++d) {
    const uint8_t* p = bytes.data() + 4 + 4 * d;
    int64_t dim = (int64_t{p[0]} << 24) | (int64_t{p[1]} << 16) | (int64_t{p[2]} << 8) | int64_t{p[3]};
    array.dims.push_back(dim);
    if (dim != 0 && count > kMaxElements / dim) {  // checked before multiplying: no overflow
      Throw(ErrorCode::kDataLoss, source, ": IDX dims announce more than 2^32 elements");
    }
    count *= dim;
  }
  size_t available = bytes.size() - header;
  if (available != static_cast<size_t>(count)) {
    Throw(ErrorCode::kDataLoss, source, ": the IDX dims announce ", count, " bytes of data, the file has ", available,
          available < static_cast<size_t>(count) ? " (truncated)" : " (trailing bytes)");
  }
  array.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(header), bytes.end());
  return array;
}

IdxArray ReadIdxFile(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) {
    Throw(ErrorCode::kNotFound, "cannot read '", path, "': ", errno != 0 ? std::strerror(errno) : "cannot open");
  }
  std::unique_ptr<gzFile_s, int (*)(gzFile)> closer(file, gzclose);
  std::vector<uint8_t> bytes;
  constexpr size_t kChunk = 1 << 20;
  while (true) {
    size_t old_size = bytes.size();
    bytes.resize(old_size + kChunk);
    int n = gzread(file, bytes.data() + old_size, static_cast<unsigned>(kChunk));
    if (n < 0) {
      int code = 0;
      const char* message = gzerror(file, &code);
      Throw(ErrorCode::kDataLoss, path, ": corrupt gzip data (", message != nullptr ? message : "zlib error", ")");
    }
    bytes.resize(old_size + static_cast<size_t>(n));
    if (n == 0) break;
    if (bytes.size() > static_cast<size_t>(kMaxElements) + 64) {
      Throw(ErrorCode::kDataLoss, path, ": larger than any IDX file rxt reads (4 GiB)");
    }
  }
  // A gzip stream cut short reads as a clean end of file; zlib reports it only here.
  int code = 0;
  const char* message = gzerror(file, &code);
  if (code != Z_OK && code != Z_STREAM_END) {
    Throw(ErrorCode::kDataLoss, path, ": corrupt gzip data (", message != nullptr ? message : "zlib error", ")");
  }
  return ParseIdx(bytes, path);
}

}  // namespace rxt::cli
