#include "rxt/runtime/safetensors.h"
#include "rxt/runtime/memory_limit.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "rxt/support/checked_math.h"
#include "rxt/support/error.h"
#include "rxt/support/message_text.h"
#include "rxt/support/file_io.h"

namespace rxt {
namespace {

using json = nlohmann::json;

// The safetensors dtype names of ours.
const char* SafetensorsDType(DType t) {
  switch (t) {
    case DType::kFloat16: return "F16";
    case DType::kBFloat16: return "BF16";
    case DType::kFloat32: return "F32";
    case DType::kFloat64: return "F64";
    case DType::kInt8: return "I8";
    case DType::kInt16: return "I16";
    case DType::kInt32: return "I32";
    case DType::kInt64: return "I64";
    case DType::kUInt8: return "U8";
    case DType::kBool: return "BOOL";
    case DType::kUnknown: break;
  }
  Throw(ErrorCode::kInvalidArgument, "safetensors: a tensor of unknown dtype cannot be saved");
}

bool FromSafetensorsDType(const std::string& name, DType* out) {
  for (DType t : {DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64, DType::kInt8, DType::kInt16,
                  DType::kInt32, DType::kInt64, DType::kUInt8, DType::kBool}) {
    if (name == SafetensorsDType(t)) {
      *out = t;
      return true;
    }
  }
  return false;
}

// Header and data start are padded to 8 bytes (as the reference writer does) so data is aligned.
constexpr size_t kAlignment = 8;
// A header larger than this is corrupt, not a checkpoint (the reference reader uses 100 MB).
constexpr uint64_t kMaxHeaderBytes = 100u << 20;

/// A JSON value from the file for a message: a string quoted, a number as written, anything
/// else by its kind (never dumped: it may be huge or deeply nested).
std::string JsonText(const json& value) {
  if (value.is_string()) return Quoted(value.get<std::string>());
  if (value.is_number() || value.is_boolean() || value.is_null()) return value.dump();
  return StrCat("a JSON ", value.type_name());
}

}  // namespace

const Tensor* TensorFile::Find(const std::string& name) const {
  for (const auto& [n, t] : tensors) {
    if (n == name) return &t;
  }
  return nullptr;
}

std::vector<uint8_t> SerializeSafetensors(const TensorFile& file) {
  json header = json::object();
  std::set<std::string> names;
  size_t offset = 0;
  for (const auto& [name, tensor] : file.tensors) {
    if (name.empty() || name == "__metadata__") Throw(ErrorCode::kInvalidArgument, "safetensors: bad tensor name '", name, "'");
    if (!names.insert(name).second) Throw(ErrorCode::kInvalidArgument, "safetensors: tensor name '", name, "' used twice");
    size_t bytes = tensor.nbytes();
    header[name] = {{"dtype", SafetensorsDType(tensor.dtype())}, {"shape", tensor.shape()},
                    {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  if (!file.metadata.empty()) header["__metadata__"] = file.metadata;
  std::string text;
  try {
    text = header.dump();
  } catch (const json::exception&) {  // JSON strings are UTF-8; names and metadata are ours to check
    Throw(ErrorCode::kInvalidArgument, "safetensors: tensor names and metadata must be valid UTF-8");
  }
  text.append((kAlignment - text.size() % kAlignment) % kAlignment, ' ');
  std::vector<uint8_t> out(8 + text.size() + offset);
  uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(n >> (8 * i));
  std::memcpy(out.data() + 8, text.data(), text.size());
  uint8_t* data = out.data() + 8 + text.size();
  for (const auto& [name, tensor] : file.tensors) {
    if (tensor.nbytes() > 0) std::memcpy(data, tensor.data(), tensor.nbytes());
    data += tensor.nbytes();
  }
  return out;
}

TensorFile ParseSafetensors(const uint8_t* data, size_t size, const std::string& source) {
  auto fail = [&](auto&&... parts) -> void { Throw(ErrorCode::kDataLoss, "safetensors ", Quoted(source), ": ", parts...); };
  if (size < 8) fail("truncated: ", size, " bytes, not even the 8-byte header length");
  uint64_t header_size = 0;
  for (int i = 0; i < 8; ++i) header_size |= uint64_t{data[i]} << (8 * i);
  if (header_size > kMaxHeaderBytes || header_size > size - 8) {
    fail("the header claims ", header_size, " bytes but the file has ", size - 8, " after the length");
  }
  json header;
  try {
    header = json::parse(data + 8, data + 8 + header_size);
  } catch (const json::parse_error& e) {  // e.byte counts from 1; the header starts at byte 8
    fail("the header is not valid JSON (at byte ", 8 + (e.byte > 0 ? e.byte - 1 : 0), " of the file)");
  } catch (const json::out_of_range&) {  // a number past double's range: 1e999
    fail("the header holds a number out of range");
  } catch (const json::exception&) {
    fail("the header is not valid JSON");
  }
  if (!header.is_object()) fail("the header is not a JSON object");
  const uint8_t* payload = data + 8 + header_size;
  size_t payload_size = size - 8 - header_size;

  TensorFile file;
  struct Range {
    uint64_t begin, end;
    std::string name;
  };
  std::vector<Range> ranges;
  std::vector<std::pair<std::string, Tensor>> by_name;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const json& entry = it.value();
    if (name == "__metadata__") {
      if (!entry.is_object()) fail("__metadata__ is not an object");
      for (auto m = entry.begin(); m != entry.end(); ++m) {
        if (!m.value().is_string()) fail("__metadata__ entry ", Quoted(m.key()), " is not a string");
        file.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    const std::string tensor = "tensor " + Quoted(name);
    if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") || !entry.contains("data_offsets")) {
      fail(tensor, " needs dtype, shape and data_offsets");
    }
    const json& dtype = entry["dtype"];
    const json& shape = entry["shape"];
    const json& offsets = entry["data_offsets"];
    DType t = DType::kUnknown;
    if (!dtype.is_string() || !FromSafetensorsDType(dtype.get<std::string>(), &t)) {
      fail(tensor, " has unsupported dtype ", JsonText(dtype), " (supported: F16, BF16, F32, F64, I8, I16, I32, I64, U8, BOOL)");
    }
    if (!shape.is_array()) fail(tensor, ": shape is not an array");
    std::vector<int64_t> dims;
    for (const json& d : shape) {
      if (!d.is_number_unsigned() || d.get<uint64_t>() > (uint64_t{1} << 40)) {
        fail(tensor, ": dim ", dims.size(), " is ", JsonText(d), ", not a size (0 to 2^40)");
      }
      dims.push_back(static_cast<int64_t>(d.get<uint64_t>()));
    }
    // Checked: dims may each be large; the bytes must also match the data present (below).
    int64_t expected = 0;
    if (!CheckedByteSize(dims.data(), dims.size(), DTypeBytes(t), int64_t{1} << 62, &expected)) {
      fail(tensor, ": shape ", ShapeText(dims.data(), dims.size()), " has more than 2^62 bytes");
    }
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
        !offsets[1].is_number_unsigned()) {
      fail(tensor, ": data_offsets must be two unsigned integers");
    }
    uint64_t begin = offsets[0].get<uint64_t>(), end = offsets[1].get<uint64_t>();
    if (begin > end || end > payload_size) {
      fail(tensor, ": data_offsets [", begin, ", ", end, "] out of the data's ", payload_size, " bytes");
    }
    if (end - begin != static_cast<uint64_t>(expected)) {
      fail(tensor, ": ", end - begin, " bytes of data for shape and dtype needing ", expected);
    }
    ranges.push_back({begin, end, name});
    by_name.emplace_back(name, Tensor::FromBytes(dims, t, payload + begin, end - begin));
  }
  // The data must be covered exactly: no overlap, no hole, nothing after the last tensor.
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.begin < b.begin; });
  uint64_t at = 0;
  for (const Range& r : ranges) {
    if (r.begin != at) {
      fail(r.begin < at ? "tensor " + Quoted(r.name) + " overlaps another"
                        : "a hole in the data before tensor " + Quoted(r.name));
    }
    at = r.end;
  }
  if (at != payload_size) fail(payload_size - at, " bytes after the last tensor");
  // Tensors in the order of their data (the order the writer used).
  std::sort(by_name.begin(), by_name.end(), [&](const auto& a, const auto& b) { return a.first < b.first; });
  for (const Range& r : ranges) {
    auto it = std::lower_bound(by_name.begin(), by_name.end(), r.name,
                               [](const auto& entry, const std::string& name) { return entry.first < name; });
    file.tensors.emplace_back(it->first, std::move(it->second));
  }
  return file;
}

void SaveSafetensors(const std::string& path, const TensorFile& file) {
  std::vector<uint8_t> bytes = SerializeSafetensors(file);
  WriteFileAtomically(path, bytes.data(), bytes.size(), "safetensors");
}

TensorFile LoadSafetensors(const std::string& path) {
  std::vector<uint8_t> bytes = ReadFileWithinMemoryLimit(path, "safetensors");
  return ParseSafetensors(bytes.data(), bytes.size(), path);
}

}  // namespace rxt
