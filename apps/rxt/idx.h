// IDX files (the MNIST format: big-endian header, then unsigned bytes), plain or gzip-compressed
// as Debian's dataset-fashion-mnist ships them. Only the unsigned-byte type (0x08) is read:
// that is what every MNIST-style data set uses.
//
//   IdxArray images = ReadIdxFile("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz");
//   // images.dims == {60000, 28, 28}
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rxt::cli {

struct IdxArray {
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;  // row-major, product of dims bytes
};

/// Parses the (decompressed) bytes of an IDX file; |source| names it in errors. Throws
/// kDataLoss for a bad magic number, an unsupported element type, zero or more than 4 dims, a
/// size that does not match the dims (truncated or with trailing bytes).
IdxArray ParseIdx(std::vector<uint8_t> bytes, const std::string& source);

/// The bytes of a file as stored, decompressed if they are gzip (they start with gzip's magic
/// bytes 1f 8b; one or more gzip members), else unchanged; |source| names them in errors.
/// kDataLoss for a corrupt or truncated gzip stream, bytes after its end that are not another
/// gzip member, or more than an IDX file rxt reads (4 GiB).
std::vector<uint8_t> GunzipIfCompressed(std::vector<uint8_t> bytes, const std::string& source);

/// Reads |path|, decompressing it if it is gzip-compressed (as it reads: the compressed bytes
/// are never all in memory). kNotFound if it cannot be opened,
/// kDataLoss as GunzipIfCompressed and ParseIdx.
IdxArray ReadIdxFile(const std::string& path);

}  // namespace rxt::cli
