// IDX files (idx.h): gzip data is inflated with zlib as it is read, into a buffer sized from
// the gzip trailer; the header is checked against the data it announces.
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

IdxArray ParseIdx(std::vector<uint8_t> bytes, const std::string& source) {
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
  // In place: a data set is tens of megabytes, and a copy would double the peak memory.
  bytes.erase(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(header));
  array.data = std::move(bytes);
  return array;
}

namespace {

bool IsGzip(const uint8_t* bytes, size_t size) { return size >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b; }

// What the output probably needs: gzip's trailer ends with the (last member's) size mod 2^32.
// A hint only, so it is taken within what the data could hold (deflate expands at most ~1032
// times) and within the memory limit: a lying trailer allocates nothing large.
size_t SizeHint(const uint8_t* last4, size_t compressed_size) {
  uint64_t size = uint64_t{last4[0]} | uint64_t{last4[1]} << 8 | uint64_t{last4[2]} << 16 | uint64_t{last4[3]} << 24;
  uint64_t bound = std::min<uint64_t>(compressed_size, uint64_t{1} << 40) * 1032 + 64;
  return static_cast<size_t>(std::min<uint64_t>({size, bound, static_cast<uint64_t>(MemoryLimit())}));
}

// Inflates the gzip members whose |total| bytes |next| hands out in pieces (it fills
// |piece| and returns its size; 0 once all were given), into one buffer.
template <typename NextPiece>
std::vector<uint8_t> Inflate(NextPiece&& next, size_t total, size_t size_hint, const std::string& source) {
  auto corrupt = [&](const auto&... why) { Throw(ErrorCode::kDataLoss, source, ": corrupt gzip data (", why..., ")"); };
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) Throw(ErrorCode::kInternal, source, ": zlib cannot start");
  std::unique_ptr<z_stream, int (*)(z_streamp)> ender(&stream, inflateEnd);
  size_t handed = 0;              // bytes given to zlib so far
  size_t after_member = SIZE_MAX;  // bytes left when the last member ended, until the next one starts
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
      // The hint first (exact for one member); past it, modest geometric steps: growing is a
      // copy, and the new part is written (zeroed) at once.
      size_t grown = produced < size_hint ? size_hint : produced + std::max<size_t>(1 << 16, produced / 4);
      out.resize(std::min(grown, static_cast<size_t>(kMaxElements) + 65));
    }
    if (stream.avail_in == 0 && handed < total) {
      size_t n = next(&stream.next_in);
      stream.avail_in = static_cast<uInt>(n);
      handed += n;
    }
    stream.next_out = out.data() + produced;
    stream.avail_out = static_cast<uInt>(std::min<size_t>(out.size() - produced, UINT32_MAX));
    int rc = inflate(&stream, Z_NO_FLUSH);
    produced = static_cast<size_t>(stream.next_out - out.data());
    if (rc == Z_STREAM_END) {
      size_t rest = stream.avail_in + (total - handed);
      if (rest == 0) break;
      // Another gzip member follows (as gzip itself writes when appending), or garbage.
      after_member = rest;
      inflateReset(&stream);
    } else if (rc == Z_OK) {
      after_member = SIZE_MAX;  // a next member has started
    } else if (after_member != SIZE_MAX) {
      corrupt(after_member, " bytes after the end of the gzip stream");
    } else if (rc == Z_BUF_ERROR) {
      corrupt("unexpected end of file");  // no progress with room to write: the input is used up
    } else {
      corrupt(stream.msg != nullptr ? stream.msg : zError(rc));
    }
  }
  out.resize(produced);
  return out;
}

}  // namespace

std::vector<uint8_t> GunzipIfCompressed(std::vector<uint8_t> bytes, const std::string& source) {
  if (!IsGzip(bytes.data(), bytes.size())) return bytes;  // plain: as it is
  size_t offset = 0;
  auto next = [&](Bytef** piece) {  // zlib's counts are 32-bit: pieces of at most 4 GiB
    size_t n = std::min<size_t>(bytes.size() - offset, UINT32_MAX);
    *piece = bytes.data() + offset;
    offset += n;
    return n;
  };
  size_t hint = bytes.size() >= 4 ? SizeHint(bytes.data() + bytes.size() - 4, bytes.size()) : 0;
  return Inflate(next, bytes.size(), hint, source);
}

IdxArray ReadIdxFile(const std::string& path) {
  errno = 0;
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) {
    Throw(ErrorCode::kNotFound, "cannot read '", path, "': ", errno != 0 ? std::strerror(errno) : "cannot open");
  }
  const std::streamoff size = file.tellg();
  uint8_t head[2] = {0, 0}, tail[4] = {0, 0, 0, 0};
  file.seekg(0);
  file.read(reinterpret_cast<char*>(head), size >= 2 ? 2 : 0);
  if (!file || size < 0) Throw(ErrorCode::kDataLoss, "cannot read '", path, "'");
  if (!IsGzip(head, static_cast<size_t>(size))) {
    return ParseIdx(ReadFileWithinMemoryLimit(path, "the IDX file"), path);
  }
  // gzip: inflated as it is read, so the compressed bytes never sit whole in memory.
  if (size >= 4) {
    file.seekg(size - 4);
    file.read(reinterpret_cast<char*>(tail), 4);
  }
  file.seekg(0);
  std::vector<uint8_t> buffer(1 << 20);
  auto next = [&](Bytef** piece) {
    file.read(reinterpret_cast<char*>(buffer.data()), static_cast<std::streamsize>(buffer.size()));
    if (file.bad()) Throw(ErrorCode::kDataLoss, "cannot read '", path, "'");
    file.clear();  // a short last read sets eof and fail
    *piece = buffer.data();
    return static_cast<size_t>(file.gcount());
  };
  size_t hint = size >= 4 ? SizeHint(tail, static_cast<size_t>(size)) : 0;
  return ParseIdx(Inflate(next, static_cast<size_t>(size), hint, path), path);
}

}  // namespace rxt::cli
