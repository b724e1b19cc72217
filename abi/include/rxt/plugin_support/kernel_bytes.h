// kernel_bytes.h (plugin SDK): the byte-level reader and writer of the portable kernel format
// (little-endian; varuint = unsigned LEB128; varint = zigzag LEB128), used by kernel_codec.h.
// The reader never reads past the end and keeps its first error.
#ifndef RXT_PLUGIN_SUPPORT_KERNEL_BYTES_H_
#define RXT_PLUGIN_SUPPORT_KERNEL_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "rxt/plugin_support/kernel_format.h"

namespace rxt::plugin_support::kernel_format {
namespace detail {

class ByteWriter {
 public:
  void U8(uint8_t v) { out_.push_back(v); }
  void U32(uint32_t v) {
    for (int i = 0; i < 4; ++i) U8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void VarUint(uint64_t v) {
    while (v >= 0x80) {
      U8(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    U8(static_cast<uint8_t>(v));
  }
  void VarInt(int64_t v) {
    uint64_t u = static_cast<uint64_t>(v);
    VarUint((u << 1) ^ (v < 0 ? ~uint64_t{0} : 0));
  }
  void F64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    for (int i = 0; i < 8; ++i) U8(static_cast<uint8_t>(bits >> (8 * i)));
  }
  void String(const std::string& s) {
    VarUint(s.size());
    out_.insert(out_.end(), s.begin(), s.end());
  }
  // An index is written as its 32-bit pattern: a negative (invalid) one stays invalid.
  void Index(int32_t i) { VarUint(static_cast<uint32_t>(i)); }
  // An optional statement index: 0 = none, otherwise index + 1.
  void OptionalIndex(int32_t i) { VarUint(i == kNone ? 0 : static_cast<uint32_t>(i) + uint64_t{1}); }
  void Indices(const std::vector<int32_t>& v) {
    VarUint(v.size());
    for (int32_t i : v) Index(i);
  }
  std::vector<uint8_t> Take() { return std::move(out_); }

 private:
  std::vector<uint8_t> out_;
};

/// Reads bytes, never past the end. The first failure is kept in error(); every later read
/// fails too, so a caller may check once at the end of a section.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(data ? size : 0) {}

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  size_t position() const { return pos_; }
  size_t remaining() const { return size_ - pos_; }
  /// What is being read, for error messages ("expression 12").
  void SetContext(std::string context) { context_ = std::move(context); }

  bool Fail(const std::string& message) {
    if (!failed()) {
      error_ = "byte " + std::to_string(pos_) + (context_.empty() ? "" : " (" + context_ + ")") + ": " + message;
    }
    return false;
  }
  bool U8(uint8_t* v) {
    if (failed()) return false;
    if (pos_ >= size_) return Fail("unexpected end of data");
    *v = data_[pos_++];
    return true;
  }
  bool U32(uint32_t* v) {
    *v = 0;
    for (int i = 0; i < 4; ++i) {
      uint8_t b = 0;
      if (!U8(&b)) return false;
      *v |= uint32_t{b} << (8 * i);
    }
    return true;
  }
  bool VarUint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      uint8_t b = 0;
      if (!U8(&b)) return false;
      if (shift == 63 && b > 1) return Fail("variable-length integer overflows 64 bits");
      *v |= uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) return true;
    }
    return Fail("variable-length integer overflows 64 bits");
  }
  bool VarInt(int64_t* v) {
    uint64_t u = 0;
    if (!VarUint(&u)) return false;
    *v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
    return true;
  }
  bool F64(double* v) {
    uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) {
      uint8_t b = 0;
      if (!U8(&b)) return false;
      bits |= uint64_t{b} << (8 * i);
    }
    std::memcpy(v, &bits, sizeof bits);
    return true;
  }
  /// A count of items that take at least one byte each: more than the bytes left is corrupt.
  bool Count(size_t* n, const char* what) {
    uint64_t v = 0;
    if (!VarUint(&v)) return false;
    if (v > remaining()) return Fail(std::string("count of ") + what + " (" + std::to_string(v) + ") exceeds the data");
    *n = static_cast<size_t>(v);
    return true;
  }
  bool Bytes(size_t n, const uint8_t** out) {
    if (failed()) return false;
    if (n > remaining()) return Fail("unexpected end of data");
    *out = data_ + pos_;
    pos_ += n;
    return true;
  }
  bool String(std::string* s) {
    size_t n = 0;
    const uint8_t* bytes = nullptr;
    if (!Count(&n, "string bytes") || !Bytes(n, &bytes)) return false;
    s->assign(reinterpret_cast<const char*>(bytes), n);
    return true;
  }
  /// An index; its range is checked by the validator, which knows the table sizes.
  bool Index(int32_t* i) {
    uint64_t v = 0;
    if (!VarUint(&v)) return false;
    if (v > 0x7fffffffu) return Fail("index " + std::to_string(v) + " is out of range");
    *i = static_cast<int32_t>(v);
    return true;
  }
  bool OptionalIndex(int32_t* i) {
    uint64_t v = 0;
    if (!VarUint(&v)) return false;
    if (v > 0x80000000u) return Fail("index " + std::to_string(v - 1) + " is out of range");
    *i = v == 0 ? kNone : static_cast<int32_t>(v - 1);
    return true;
  }
  bool Indices(std::vector<int32_t>* v, const char* what) {
    size_t n = 0;
    if (!Count(&n, what)) return false;
    v->resize(n);
    for (size_t k = 0; k < n; ++k) {
      if (!Index(&(*v)[k])) return false;
    }
    return true;
  }
  template <typename Enum>
  bool Enum8(Enum* e, int count, const char* what) {
    uint8_t b = 0;
    if (!U8(&b)) return false;
    if (b >= count) return Fail(std::string("invalid ") + what + " " + std::to_string(b));
    *e = static_cast<Enum>(b);
    return true;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  std::string error_;
  std::string context_;
};


}  // namespace detail
}  // namespace rxt::plugin_support::kernel_format

#endif  // RXT_PLUGIN_SUPPORT_KERNEL_BYTES_H_
