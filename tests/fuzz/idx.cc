// Fuzz target idx: `rxt train`'s IDX reader (apps/rxt/idx.cc), plain and gzip-compressed:
// the bytes of a file as ReadIdxFile reads them, decompressed, then parsed. Any bytes give an
// array or an rxt::Error; an array has 1 to 4 dims and exactly as many bytes as they announce,
// and gzip data compressed again decompresses to the same bytes.
#include <zlib.h>

#include <string>
#include <vector>

#include "fuzz_util.h"
#include "rxt/support/error.h"
#include "idx.h"

namespace {

// |bytes| as one gzip member, as gzip(1) writes it.
std::vector<uint8_t> Gzip(const std::vector<uint8_t>& bytes) {
  z_stream stream{};
  FUZZ_CHECK(deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK,
             "deflateInit2 failed");
  std::vector<uint8_t> out(deflateBound(&stream, bytes.size()) + 32);
  stream.next_in = const_cast<uint8_t*>(bytes.data());
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = out.data();
  stream.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  FUZZ_CHECK(rc == Z_STREAM_END, "deflate did not finish");
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> stored(data, data + size);
  bool compressed = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  std::vector<uint8_t> bytes;
  try {
    bytes = rxt::cli::GunzipIfCompressed(stored, "fuzz.idx.gz");
  } catch (const rxt::Error&) {
    return 0;  // a corrupt gzip stream
  }
  if (!compressed) FUZZ_CHECK(bytes == stored, "plain bytes were changed");
  if (compressed) {
    FUZZ_CHECK(rxt::cli::GunzipIfCompressed(Gzip(bytes), "again.gz") == bytes,
               "gzip data compressed again decompresses to other bytes");
  }

  rxt::cli::IdxArray array;
  try {
    array = rxt::cli::ParseIdx(bytes, "fuzz.idx");
  } catch (const rxt::Error&) {
    return 0;  // the expected outcome for most inputs
  }
  FUZZ_CHECK(!array.dims.empty() && array.dims.size() <= 4, "an IDX array of " + std::to_string(array.dims.size()) + " dims");
  uint64_t count = 1;
  for (int64_t d : array.dims) count *= static_cast<uint64_t>(d);
  FUZZ_CHECK(array.data.size() == count, "the data has " + std::to_string(array.data.size()) + " bytes, the dims announce " +
                                             std::to_string(count));
  return 0;
}
