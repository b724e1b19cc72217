#include "options.h"

#include <cctype>
#include <regex>
#include <sstream>

namespace rxt::import_torchscript {
namespace {

std::string Trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(0, 1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

bool IsName(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

/// "x:batch;1;28;28", "batch;1;28;28" or "ids:batch;16:int64".
InputShape ParseShape(const std::string& value) {
  static const char* kDTypes[] = {"float32", "float64", "float16", "bfloat16", "int64",
                                  "int32",   "int16",   "int8",    "uint8",    "bool"};
  InputShape shape;
  std::vector<std::string> parts;
  std::stringstream fields(value);
  for (std::string part; std::getline(fields, part, ':');) parts.push_back(Trim(part));
  if (parts.empty() || parts.size() > 3)
    throw ImportError("option shape: '" + value + "' is not [INPUT:]D;D;...[:DTYPE]");
  auto is_dtype = [](const std::string& s) {
    for (const char* d : kDTypes) {
      if (s == d) return true;
    }
    return false;
  };
  // INPUT:DIMS:DTYPE, INPUT:DIMS, DIMS:DTYPE or DIMS.
  if (parts.size() == 3 || (parts.size() == 2 && IsName(parts[0]) && !is_dtype(parts[1]))) shape.input = parts[0];
  const std::string dims = shape.input.empty() ? parts[0] : parts[1];
  if (parts.size() == 3 || (parts.size() == 2 && shape.input.empty())) {
    shape.dtype = parts.back();
    if (!is_dtype(shape.dtype))
      throw ImportError("option shape: unknown dtype '" + shape.dtype + "' in '" + value + "'");
  }
  std::stringstream in(dims);
  std::string dim;
  while (std::getline(in, dim, ';')) {
    dim = Trim(dim);
    bool number = !dim.empty() && dim.size() <= 10;
    for (char c : dim) number = number && std::isdigit(static_cast<unsigned char>(c));
    if (!number && !IsName(dim)) {
      throw ImportError("option shape: '" + dim + "' in '" + value +
                        "' is neither a size nor a symbol (e.g. shape=x:batch;1;28;28)");
    }
    shape.dims.push_back(dim);
  }
  return shape;
}

}  // namespace

ImportOptions ParseImportOptions(const std::string& text) {
  ImportOptions options;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    item = Trim(item);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    const std::string key = Trim(item.substr(0, eq)), value = eq == std::string::npos ? "" : Trim(item.substr(eq + 1));
    if (key == "training" || key == "dropout") {
      if (value != "true" && value != "false")
        throw ImportError("option " + key + " takes true or false, got '" + value + "'");
      (key == "training" ? options.training : options.dropout) = value == "true";
    } else if (key == "freeze") {
      try {
        std::regex check(value);
      } catch (const std::regex_error& e) {
        throw ImportError("option freeze: '" + value + "' is not a regular expression (" + e.what() + ")");
      }
      options.freeze.push_back(value);
    } else if (key == "shape") {
      options.shapes.push_back(ParseShape(value));
    } else {
      throw ImportError("unknown option '" + key +
                        "' (the torchscript importer takes: shape=[INPUT:]D;D;..., training=true|false, "
                        "dropout=true|false, freeze=REGEX)");
    }
  }
  return options;
}

}  // namespace rxt::import_torchscript
