// Reading input files and formatting errors, shared by the subcommands.
#include <fstream>
#include <regex>
#include <sstream>

#include "command.h"
#include "rxt/ir/parser.h"

namespace rxt::cli {

std::string ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) Throw(ErrorCode::kNotFound, "cannot read '", path, "': no such file or not readable");
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) Throw(ErrorCode::kDataLoss, "error while reading '", path, "'");
  return text.str();
}

IRModule ParseFile(const std::string& path) { return ParseModule(ReadFile(path), path); }

std::string FormatError(const std::string& message) {
  static const std::regex diagnostic(R"(^([^\s:][^\n]*?:\d+:\d+): error: )");
  return "rxt: error: " + std::regex_replace(message, diagnostic, "$1: ", std::regex_constants::format_first_only);
}

}  // namespace rxt::cli
