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

/// "x:batch;1;28;28" or "batch;1;28;28".
InputShape ParseShape(const std::string& value) {
  InputShape shape;
  std::string dims = value;
  if (const size_t colon = value.find(':'); colon != std::string::npos) {
    shape.input = Trim(value.substr(0, colon));
    dims = value.substr(colon + 1);
  }
  std::stringstream in(dims);
  std::string dim;
  while (std::getline(in, dim, ';')) {
    dim = Trim(dim);
    bool number = !dim.empty() && dim.size() <= 12;
    for (char c : dim) number = number && std::isdigit(static_cast<unsigned char>(c));
    if (!number && !IsName(dim)) {
      throw ImportError("option shape: '" + dim + "' in '" + value + "' is neither a size nor a symbol (e.g. shape=x:batch;1;28;28)");
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
      if (value != "true" && value != "false") throw ImportError("option " + key + " takes true or false, got '" + value + "'");
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
