// IDX files (idx.h): gzip data is inflated in memory with zlib; the header is checked against
// the data it announces.
#include "idx.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>

#include "rxt/runtime/memory_limit.h"
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

std::vector<uint8_t> GunzipIfCompressed(std::vector<uint8_t> bytes, const std::string& source) {
  if (bytes.size() < 2 || bytes[0] != 0x1f || bytes[1] != 0x8b) return bytes;  // plain: as it is
  auto corrupt = [&](const char* why) { Throw(ErrorCode::kDataLoss, source, ": corrupt gzip data (", why, ")"); };
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) Throw(ErrorCode::kInternal, source, ": zlib cannot start");
  std::unique_ptr<z_stream, int (*)(z_streamp)> ender(&stream, inflateEnd);
  stream.next_in = bytes.data();
  size_t unread = bytes.size();  // not yet handed to zlib, whose counts are 32-bit
  std::vector<uint8_t> out;
  size_t produced = 0;
  while (true) {
    if (produced == out.size()) {
      if (out.size() > static_cast<size_t>(kMaxElements) + 64) {
        Throw(ErrorCode::kDataLoss, source, ": larger than any IDX file rxt reads (4 GiB)");
      }
      // A small file may inflate to gigabytes: the output counts against the memory limit.
      if (static_cast<int64_t>(out.size()) >= MemoryLimit()) {
        CheckMemoryLimit(static_cast<int64_t>(out.size()) + 1, source + ": the decompressed data");
      }
      out.resize(std::min(std::max<size_t>(out.size() * 2, 1 << 16), static_cast<size_t>(kMaxElements) + 65));
    }
    if (stream.avail_in == 0) {
      stream.avail_in = static_cast<uInt>(std::min<size_t>(unread, UINT32_MAX));
      unread -= stream.avail_in;
    }
    stream.next_out = out.data() + produced;
    stream.avail_out = static_cast<uInt>(std::min<size_t>(out.size() - produced, UINT32_MAX));
    int rc = inflate(&stream, Z_NO_FLUSH);
    produced = static_cast<size_t>(stream.next_out - out.data());
    if (rc == Z_STREAM_END) {
      size_t rest = stream.avail_in + unread;
      if (rest == 0) break;
      // Another gzip member follows (as gzip itself writes when appending), or garbage.
      if (rest < 2 || stream.next_in[0] != 0x1f || stream.next_in[1] != 0x8b) {
        Throw(ErrorCode::kDataLoss, source, ": corrupt gzip data (", rest, " bytes after the end of the gzip stream)");
      }
      inflateReset(&stream);
    } else if (rc == Z_BUF_ERROR) {
      corrupt("unexpected end of file");  // no progress with room to write: the input is used up
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      corrupt(stream.msg != nullptr ? stream.msg : zError(rc));
    }
  }
  out.resize(produced);
  return out;
}

IdxArray ReadIdxFile(const std::string& path) {
  errno = 0;
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    Throw(ErrorCode::kNotFound, "cannot read '", path, "': ", errno != 0 ? std::strerror(errno) : "cannot open");
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  return ParseIdx(GunzipIfCompressed(std::move(bytes), path), path);
}

}  // namespace rxt::cli
