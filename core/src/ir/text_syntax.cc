#include "text_syntax.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "rxt/ir/op.h"
#include "rxt/support/error.h"
#include "rxt/support/message_text.h"

namespace rxt::text {
namespace {

constexpr std::string_view kReservedWords[] = {
    // literals
    "true", "false", "none", "inf", "nan",
    // kernel statements
    "for", "in", "range", "if", "else", "alloc", "block", "init", "reduce",
};

constexpr DType kAllDTypes[] = {DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64,
                                DType::kInt8,    DType::kInt16,    DType::kInt32,   DType::kInt64,
                                DType::kUInt8,   DType::kBool};

// "inf_f32", "nan_bf16": the special float spellings of scalar expressions. The parser reads
// every word starting "inf_" or "nan_" there as one (an unknown suffix is an error), so no bare
// name may start so.
bool IsSpecialFloatWord(std::string_view word) { return word.substr(0, 4) == "inf_" || word.substr(0, 4) == "nan_"; }

template <typename Float>
std::string FormatShortest(Float value) {
  if (std::isnan(value)) return std::signbit(value) ? "-nan" : "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  std::array<char, 64> buf;
  auto result = std::to_chars(buf.data(), buf.data() + buf.size(), value);
  return std::string(buf.data(), result.ptr);
}

template <typename T>
T ReadRaw(const Tensor& t, int64_t index) {
  T value;
  std::memcpy(&value, static_cast<const char*>(t.data()) + index * sizeof(T), sizeof(T));
  return value;
}

template <typename T>
void WriteRaw(Tensor& t, int64_t index, T value) {
  std::memcpy(static_cast<char*>(t.data()) + index * sizeof(T), &value, sizeof(T));
}

// Integer range of an integer dtype.
void IntRange(DType dtype, int64_t* lo, uint64_t* hi) {
  switch (dtype) {
    case DType::kInt8: *lo = INT8_MIN; *hi = INT8_MAX; return;
    case DType::kInt16: *lo = INT16_MIN; *hi = INT16_MAX; return;
    case DType::kInt32: *lo = INT32_MIN; *hi = INT32_MAX; return;
    case DType::kUInt8: *lo = 0; *hi = UINT8_MAX; return;
    default: *lo = INT64_MIN; *hi = INT64_MAX; return;
  }
}

constexpr char kBase64Chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

double MaxFinite(DType dtype) {
  switch (dtype) {
    case DType::kFloat16: return 65504.0;
    case DType::kBFloat16: return 3.3895313892515355e38;
    case DType::kFloat32: return std::numeric_limits<float>::max();
    default: return std::numeric_limits<double>::max();
  }
}

std::string ParseIntText(std::string_view digits, bool negative, DType dtype, int64_t* value) {
  uint64_t magnitude = 0;
  auto result = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
  int64_t lo;
  uint64_t hi;
  IntRange(dtype, &lo, &hi);
  const uint64_t limit = negative ? static_cast<uint64_t>(-(lo + 1)) + 1 : hi;
  if (result.ec != std::errc() || result.ptr != digits.data() + digits.size() || magnitude > limit) {
    return StrCat(negative ? "-" : "", digits, " is out of range for ", DTypeName(dtype));
  }
  *value = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return "";
}

bool IsReservedWord(std::string_view word) {
  for (std::string_view reserved : kReservedWords) {
    if (word == reserved) return true;
  }
  for (DType t : kAllDTypes) {
    if (word == DTypeName(t)) return true;
  }
  return IsSpecialFloatWord(word);
}

bool IsBareName(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

bool IsDottedName(std::string_view name) {
  for (size_t start = 0;;) {
    const size_t dot = name.find('.', start);
    if (!IsBareName(name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start))) {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

std::string SanitizeName(std::string_view hint, bool bare) {
  std::string name;
  for (char c : hint) name += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (name.empty()) return "v";
  if (bare && std::isdigit(static_cast<unsigned char>(name[0]))) name = "v" + name;
  // No suffix makes "inf_x" a name (it reads as a special float): a prefix does. "inf" and
  // "nan" get it too, since the printer's "_1", "_2"... would never make them free.
  if (bare && (IsSpecialFloatWord(name) || IsSpecialFloatWord(name + "_"))) name = "v" + name;
  return name;
}

std::string LocalName(std::string_view name) {
  bool plain = !name.empty();
  for (char c : name) plain &= std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  return "%" + (plain ? std::string(name) : QuoteString(name));
}

std::string QuoteString(std::string_view value) {
  std::string out = "\"";
  for (char c : value) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          constexpr char kHex[] = "0123456789abcdef";
          out += "\\x";
          out += kHex[(static_cast<unsigned char>(c) >> 4) & 0xf];
          out += kHex[static_cast<unsigned char>(c) & 0xf];
        } else {
          out += c;  // bytes >= 0x80 (UTF-8) pass through
        }
    }
  }
  return out + "\"";
}

std::string FormatDouble(double value, bool force_float_syntax) {
  std::string text = FormatShortest(value);
  if (force_float_syntax && text.find_first_of(".ein") == std::string::npos) text += ".0";
  return text;
}

std::string FormatFloat(float value) { return FormatShortest(value); }

std::string FormatFloatLiteral(double value, DType dtype) {
  std::string suffix = DTypeSuffix(dtype);
  if (std::isnan(value)) return std::string(std::signbit(value) ? "-" : "") + "nan_" + suffix;
  if (std::isinf(value)) return std::string(value < 0 ? "-" : "") + "inf_" + suffix;
  return FormatShortest(value) + suffix;
}

std::string FormatIntLiteral(int64_t value, DType dtype) {
  if (dtype == DType::kBool) return value ? "true" : "false";
  return std::to_string(value) + (dtype == DType::kInt64 ? "" : DTypeSuffix(dtype));
}

std::optional<double> ReadDouble(std::string_view text) {
  double value = 0;
  auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ptr != text.data() + text.size()) return std::nullopt;
  if (result.ec == std::errc::result_out_of_range) {
    // Too small for a double rounds to zero; too large is an error.
    if (text.find("e-") == std::string_view::npos && text.find("E-") == std::string_view::npos) return std::nullopt;
    return 0.0;
  }
  if (result.ec != std::errc()) return std::nullopt;
  return value;
}

std::optional<double> ParseFloatText(std::string_view text, DType dtype, bool negative) {
  double value;
  if (text == "inf") {
    value = std::numeric_limits<double>::infinity();
  } else if (text == "nan") {
    value = std::numeric_limits<double>::quiet_NaN();
  } else if (dtype == DType::kFloat64) {
    std::optional<double> read = ReadDouble(text);
    if (!read) return std::nullopt;
    value = *read;
  } else {
    // Rounded once, to float (float16 and bfloat16 round again when stored).
    float f;
    auto result = std::from_chars(text.data(), text.data() + text.size(), f);
    if (result.ptr != text.data() + text.size()) return std::nullopt;
    if (result.ec == std::errc::result_out_of_range) {
      std::optional<double> read = ReadDouble(text);
      if (!read || std::fabs(*read) > std::numeric_limits<float>::max()) return std::nullopt;
      f = static_cast<float>(*read);  // an underflow: zero or a subnormal
    } else if (result.ec != std::errc()) {
      return std::nullopt;
    }
    value = f;
    if (std::fabs(value) > MaxFinite(dtype)) return std::nullopt;
  }
  return negative ? -value : value;
}

std::string FormatElement(const Tensor& t, int64_t index) {
  switch (t.dtype()) {
    case DType::kBool: return ReadRaw<uint8_t>(t, index) ? "true" : "false";
    case DType::kInt8: return std::to_string(ReadRaw<int8_t>(t, index));
    case DType::kInt16: return std::to_string(ReadRaw<int16_t>(t, index));
    case DType::kInt32: return std::to_string(ReadRaw<int32_t>(t, index));
    case DType::kInt64: return std::to_string(ReadRaw<int64_t>(t, index));
    case DType::kUInt8: return std::to_string(ReadRaw<uint8_t>(t, index));
    case DType::kFloat32: return FormatFloat(ReadRaw<float>(t, index));
    case DType::kFloat64: return FormatDouble(ReadRaw<double>(t, index), false);
    case DType::kFloat16:
    case DType::kBFloat16: return FormatFloat(static_cast<float>(t.GetAsDouble(index)));
    case DType::kUnknown: break;
  }
  return "?";
}

std::string StoreElement(Tensor& t, int64_t index, std::string_view text, bool is_float_text, bool negative) {
  const DType dtype = t.dtype();
  const bool is_word = text == "true" || text == "false";
  const bool is_special = text == "inf" || text == "nan";
  if (dtype == DType::kBool) {
    if (negative || !(is_word || text == "0" || text == "1")) {
      return StrCat("expected true or false but found '", negative ? "-" : "", text, "'");
    }
    WriteRaw<uint8_t>(t, index, text == "true" || text == "1");
    return "";
  }
  if (is_word) return StrCat("expected a number of type ", DTypeName(dtype), " but found '", text, "'");
  if (IsInt(dtype)) {
    if (is_float_text || is_special) {
      return StrCat("expected an integer of type ", DTypeName(dtype), " but found '", negative ? "-" : "", text, "'");
    }
    int64_t value = 0;
    std::string error = ParseIntText(text, negative, dtype, &value);
    if (!error.empty()) return error;
    switch (dtype) {
      case DType::kInt8: WriteRaw<int8_t>(t, index, static_cast<int8_t>(value)); break;
      case DType::kInt16: WriteRaw<int16_t>(t, index, static_cast<int16_t>(value)); break;
      case DType::kInt32: WriteRaw<int32_t>(t, index, static_cast<int32_t>(value)); break;
      case DType::kUInt8: WriteRaw<uint8_t>(t, index, static_cast<uint8_t>(value)); break;
      default: WriteRaw<int64_t>(t, index, value); break;
    }
    return "";
  }
  if (!IsFloat(dtype)) return StrCat("constants of type ", DTypeName(dtype), " cannot be written");
  std::optional<double> value = ParseFloatText(text, dtype, negative);
  if (!value) return StrCat(negative ? "-" : "", text, " is out of range for ", DTypeName(dtype));
  if (dtype == DType::kFloat32) {
    float f = static_cast<float>(*value);
    if (text == "nan") f = negative ? -std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::quiet_NaN();
    WriteRaw<float>(t, index, f);
  } else if (dtype == DType::kFloat64) {
    WriteRaw<double>(t, index, *value);
  } else {
    t.SetFromDouble(index, *value);
  }
  return "";
}

bool InlineRoundTrips(const Tensor& t) {
  if (t.dtype() == DType::kUnknown) return false;
  const size_t element_size = static_cast<size_t>(DTypeBytes(t.dtype()));
  Tensor scratch = Tensor::Empty({1}, t.dtype());
  for (int64_t i = 0; i < t.numel(); ++i) {
    std::string element = FormatElement(t, i);
    const bool negative = !element.empty() && element[0] == '-';
    std::string_view body = std::string_view(element).substr(negative ? 1 : 0);
    const bool is_float_text = body.find_first_of(".e") != std::string_view::npos;
    if (!StoreElement(scratch, 0, body, is_float_text, negative).empty()) return false;
    if (std::memcmp(scratch.data(), static_cast<const char*>(t.data()) + i * element_size, element_size) != 0) {
      return false;
    }
  }
  return true;
}

std::string SuggestName(const std::string& name, const std::vector<std::string>& candidates, const char* prefix) {
  std::string best = ClosestName(name, candidates);
  return best.empty() ? "" : StrCat("; did you mean '", prefix, best, "'?");
}

std::string UnknownAttributeMessage(const OpDef& op, const std::string& key) {
  std::vector<std::string> known;
  for (const AttrSpec& spec : op.attrs()) known.push_back(spec.name);
  if (known.empty()) return StrCat(op.name(), " has no attribute ", Quoted(key), " (it takes none)");
  std::string list;
  for (const std::string& name : known) list += (list.empty() ? "" : ", ") + name;
  std::string suggestion = SuggestName(key, known, "");
  // An abbreviation ("eps" for "epsilon") is far in edits but plain to see.
  for (const std::string& name : known) {
    if (suggestion.empty() && key.size() >= 2 && name.rfind(key, 0) == 0) suggestion = "; did you mean '" + name + "'?";
  }
  return StrCat(op.name(), " has no attribute ", Quoted(key), suggestion, " (its attributes: ", list, "; rxt ops ",
                op.name(), " shows them)");
}

std::string EncodeBase64(const void* data, size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= size; i += 3) {
    uint32_t v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += kBase64Chars[(v >> 18) & 63];
    out += kBase64Chars[(v >> 12) & 63];
    out += kBase64Chars[(v >> 6) & 63];
    out += kBase64Chars[v & 63];
  }
  if (i < size) {
    uint32_t v = bytes[i] << 16;
    if (i + 1 < size) v |= bytes[i + 1] << 8;
    out += kBase64Chars[(v >> 18) & 63];
    out += kBase64Chars[(v >> 12) & 63];
    out += i + 1 < size ? kBase64Chars[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> DecodeBase64(std::string_view text, size_t* error_offset) {
  if (text.size() % 4 != 0) {
    *error_offset = text.size();
    return std::nullopt;
  }
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    int values[4];
    int padding = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + k];
      if (c == '=' && last && k >= 2 && (k == 3 || text[i + 3] == '=')) {
        values[k] = 0;
        ++padding;
        continue;
      }
      values[k] = Base64Value(c);
      if (values[k] < 0 || padding > 0) {
        *error_offset = i + k;
        return std::nullopt;
      }
    }
    const uint32_t v = (values[0] << 18) | (values[1] << 12) | (values[2] << 6) | values[3];
    out += static_cast<char>((v >> 16) & 0xff);
    if (padding < 2) out += static_cast<char>((v >> 8) & 0xff);
    if (padding < 1) out += static_cast<char>(v & 0xff);
  }
  return out;
}

}  // namespace rxt::text
