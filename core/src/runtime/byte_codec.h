// The byte codec of rxt's binary files (executables, trainer files): little-endian scalars,
// length-prefixed strings and byte runs, an FNV-1a checksum. Reading never trusts the bytes:
// every length is checked against what is left, so a truncated or corrupt file is an error
// naming the file and the byte offset, never an out-of-bounds read. Internal to the runtime.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "rxt/support/error.h"
#include "rxt/support/message_text.h"

namespace rxt {

inline uint64_t Fnv1a64(const uint8_t* data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= data[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

class ByteWriter {
 public:
  void U8(uint8_t v) { bytes_.push_back(v); }
  void U32(uint32_t v) { Raw(&v, 4); }
  void I32(int32_t v) { Raw(&v, 4); }
  void I64(int64_t v) { Raw(&v, 8); }
  void U64(uint64_t v) { Raw(&v, 8); }
  void F64(double v) { Raw(&v, 8); }
  void Str(const std::string& s) {
    U32(static_cast<uint32_t>(s.size()));
    Raw(s.data(), s.size());
  }
  void Bytes(const std::vector<uint8_t>& b) {
    U64(b.size());
    Raw(b.data(), b.size());
  }
  void Raw(const void* p, size_t n) {  // the format is little-endian, like every host we build for
    const auto* b = static_cast<const uint8_t*>(p);
    bytes_.insert(bytes_.end(), b, b + n);
  }
  std::vector<uint8_t>& bytes() { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

class ByteReader {
 public:
  /// |what| begins messages ("executable"), |source| names the file, |base| is the offset of
  /// |data| in it (messages give file offsets).
  ByteReader(const uint8_t* data, size_t size, const char* what, const std::string& source, size_t base)
      : data_(data), size_(size), what_(what), source_(source), base_(base) {}

  template <typename... Args>
  [[noreturn]] void Fail(const Args&... args) const {
    Throw(ErrorCode::kDataLoss, what_, " ", Quoted(source_), ": ", args..., " (at byte ", base_ + pos_, ")");
  }

  const uint8_t* Take(size_t n, const char* what) {
    if (n > size_ - pos_) Fail("truncated while reading ", what);
    const uint8_t* p = data_ + pos_;
    pos_ += n;
    return p;
  }
  template <typename T>
  T Scalar(const char* what) {
    T v;
    std::memcpy(&v, Take(sizeof(T), what), sizeof(T));
    return v;
  }
  uint8_t U8(const char* what) { return Scalar<uint8_t>(what); }
  uint32_t U32(const char* what) { return Scalar<uint32_t>(what); }
  int32_t I32(const char* what) { return Scalar<int32_t>(what); }
  int64_t I64(const char* what) { return Scalar<int64_t>(what); }
  uint64_t U64(const char* what) { return Scalar<uint64_t>(what); }
  double F64(const char* what) { return Scalar<double>(what); }
  /// A count of items each at least |min_item_bytes| long: bounded by what is left, so that a
  /// corrupt count cannot make us reserve gigabytes.
  size_t Count(const char* what, size_t min_item_bytes = 1) {
    uint32_t n = U32(what);
    if (static_cast<uint64_t>(n) * min_item_bytes > size_ - pos_) Fail("count of ", what, " (", n, ") exceeds the data left");
    return n;
  }
  std::string Str(const char* what) {
    size_t n = U32(what);
    const uint8_t* p = Take(n, what);
    return std::string(reinterpret_cast<const char*>(p), n);
  }
  /// A string that messages will show (a name, a path, a type's text): printable UTF-8.
  std::string Name(const char* what) {
    size_t start = pos_;
    std::string s = Str(what);
    if (!IsPrintableText(s)) {
      pos_ = start;
      Fail(what, " ", Quoted(s), " is not printable text");
    }
    return s;
  }
  std::vector<uint8_t> Bytes(const char* what) {
    uint64_t n = U64(what);
    if (n > size_ - pos_) Fail("truncated while reading ", what);
    const uint8_t* p = Take(static_cast<size_t>(n), what);
    return std::vector<uint8_t>(p, p + n);
  }
  bool done() const { return pos_ == size_; }
  size_t pos() const { return pos_; }
  const std::string& source() const { return source_; }

 private:
  const uint8_t* data_;
  size_t size_;
  const char* what_;
  const std::string& source_;
  size_t base_;
  size_t pos_ = 0;
};

}  // namespace rxt
