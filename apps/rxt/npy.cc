#include "npy.h"

#include <bit>
#include <cctype>
#include <cstring>
#include <optional>
#include <vector>

#include "command.h"
#include "rxt/support/error.h"
#include "rxt/support/file_io.h"
#include "rxt/support/message_text.h"

namespace rxt::cli {
namespace {

static_assert(std::endian::native == std::endian::little, "the .npy reader assumes a little-endian host");

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kMaxDims = 64;

struct DescrEntry {
  std::string_view descr;
  DType dtype;
};
// The descrs written by NumPy on a little-endian machine ('|' = byte order not applicable).
constexpr DescrEntry kDescrs[] = {
    {"<f4", DType::kFloat32}, {"<f8", DType::kFloat64}, {"<i4", DType::kInt32}, {"<i8", DType::kInt64},
    {"|u1", DType::kUInt8},   {"<u1", DType::kUInt8},   {"|b1", DType::kBool},    {"|i1", DType::kInt8},
    {"<i1", DType::kInt8},    {"<i2", DType::kInt16},   {"<f2", DType::kFloat16},
};

// A cursor over the header, a Python dict literal:
//   {'descr': '<f4', 'fortran_order': False, 'shape': (1, 20), }
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  void Expect(char c) {
    SkipSpace();
    if (pos_ >= text_.size() || text_[pos_] != c) Fail(StrCat("expected '", c, "'"));
    ++pos_;
  }
  bool Accept(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string String() {
    SkipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) Fail("expected a string");
    char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) Fail("unterminated string");
    std::string s(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }
  bool Bool() {
    SkipSpace();
    for (auto [word, value] : {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return value;
      }
    }
    Fail("expected True or False");
  }
  std::vector<int64_t> Shape() {
    Expect('(');
    std::vector<int64_t> shape;
    while (!Accept(')')) {
      SkipSpace();
      if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_]))) Fail("bad shape");
      int64_t dim = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        if (dim > (int64_t{1} << 40)) Fail("shape dim too large");
        dim = dim * 10 + (text_[pos_++] - '0');
      }
      shape.push_back(dim);
      if (shape.size() > kMaxDims) Fail(StrCat("more than ", kMaxDims, " dims (NumPy's own limit)"));
      if (!Accept(',')) {
        Expect(')');
        break;
      }
    }
    return shape;
  }
  [[noreturn]] void Fail(const std::string& what) const {
    Throw(ErrorCode::kInvalidArgument, source_, ": bad .npy header: ", what, " at offset ", pos_, " of the header ",
          Quoted(text_));
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  std::string_view text_;
  const std::string& source_;
  size_t pos_ = 0;
};

std::optional<DType> DTypeOfDescr(std::string_view descr) {
  for (const DescrEntry& e : kDescrs) {
    if (e.descr == descr) return e.dtype;
  }
  return std::nullopt;
}

std::string_view DescrOf(DType dtype) {
  for (const DescrEntry& e : kDescrs) {
    if (e.dtype == dtype) return e.descr;
  }
  Throw(ErrorCode::kInvalidArgument, "cannot write a ", DTypeName(dtype),
        " tensor to .npy (supported: float16, float32, float64, int8, int16, int32, int64, uint8, bool)");
}

uint32_t ReadLittleEndian(std::string_view bytes, size_t offset, size_t width) {
  uint32_t value = 0;
  for (size_t i = 0; i < width; ++i) value |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[offset + i])) << (8 * i);
  return value;
}

}  // namespace

Tensor ParseNpy(std::string_view bytes, const std::string& source) {
  if (bytes.size() < 10 || bytes.substr(0, kMagic.size()) != kMagic) {
    Throw(ErrorCode::kInvalidArgument, source, ": not an .npy file (no \\x93NUMPY magic)");
  }
  uint8_t major = static_cast<uint8_t>(bytes[6]);
  if (major < 1 || major > 3) Throw(ErrorCode::kInvalidArgument, source, ": unsupported .npy format version ", int{major});
  size_t len_width = major == 1 ? 2 : 4;
  size_t header_start = 8 + len_width;
  if (bytes.size() < header_start) Throw(ErrorCode::kDataLoss, source, ": truncated .npy header");
  size_t header_len = ReadLittleEndian(bytes, 8, len_width);
  if (bytes.size() < header_start + header_len) Throw(ErrorCode::kDataLoss, source, ": truncated .npy header");
  HeaderParser parser(bytes.substr(header_start, header_len), source);

  std::optional<std::string> descr;
  std::optional<bool> fortran_order;
  std::optional<std::vector<int64_t>> shape;
  parser.Expect('{');
  while (!parser.Accept('}')) {
    std::string key = parser.String();
    parser.Expect(':');
    if (key == "descr") {
      descr = parser.String();
    } else if (key == "fortran_order") {
      fortran_order = parser.Bool();
    } else if (key == "shape") {
      shape = parser.Shape();
    } else {
      parser.Fail("unknown key " + Quoted(key));
    }
    if (!parser.Accept(',')) {
      parser.Expect('}');
      break;
    }
  }
  if (!descr || !fortran_order || !shape) parser.Fail("needs 'descr', 'fortran_order' and 'shape'");
  if (*fortran_order) Throw(ErrorCode::kInvalidArgument, source, ": Fortran-order arrays are not supported (save a C-order copy)");
  if (!descr->empty() && (*descr)[0] == '>') {
    Throw(ErrorCode::kInvalidArgument, source, ": big-endian data (", Quoted(*descr), ") is not supported");
  }
  std::optional<DType> dtype = DTypeOfDescr(*descr);
  if (!dtype) {
    Throw(ErrorCode::kInvalidArgument, source, ": unsupported dtype ", Quoted(*descr),
          " (supported: float16, float32, float64, int8, int16, int32, int64, uint8, bool)");
  }
  size_t count = 1;
  for (int64_t dim : *shape) {
    if (dim != 0 && count > (size_t{1} << 40) / static_cast<size_t>(dim)) {
      Throw(ErrorCode::kInvalidArgument, source, ": array too large: the shape ", ShapeText(shape->data(), shape->size()),
            " has more than 2^40 elements");
    }
    count *= static_cast<size_t>(dim);
  }
  size_t nbytes = count * static_cast<size_t>(DTypeBytes(*dtype));
  size_t data_start = header_start + header_len;
  if (bytes.size() - data_start != nbytes) {
    Throw(ErrorCode::kDataLoss, source, ": ", bytes.size() < data_start + nbytes ? "truncated" : "trailing",
          " data: the header promises ", nbytes, " bytes, the file has ", bytes.size() - data_start);
  }
  try {
    return Tensor::FromBytes(*shape, *dtype, bytes.data() + data_start, nbytes);
  } catch (const Error& e) {  // over the memory limit
    throw Error(e.code(), StrCat(source, ": ", e.what()));
  }
}

std::string SerializeNpy(const Tensor& tensor) {
  std::string header = StrCat("{'descr': '", DescrOf(tensor.dtype()), "', 'fortran_order': False, 'shape': (");
  for (size_t i = 0; i < tensor.shape().size(); ++i) {
    header += StrCat(tensor.shape()[i], tensor.shape().size() == 1 || i + 1 < tensor.shape().size() ? ", " : "");
  }
  if (tensor.shape().size() == 1) header.pop_back();  // "(3,)"
  header += "), }";
  // The data starts at a multiple of 64 bytes; the header ends with a newline.
  size_t total = kMagic.size() + 4 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(static_cast<const char*>(tensor.data()), tensor.nbytes());
  return out;
}

Tensor ReadNpy(const std::string& path) { return ParseNpy(ReadFile(path), path); }

void WriteNpy(const std::string& path, const Tensor& tensor) {
  std::string bytes = SerializeNpy(tensor);
  WriteFileAtomically(path, bytes.data(), bytes.size(), ".npy");
}

}  // namespace rxt::cli
