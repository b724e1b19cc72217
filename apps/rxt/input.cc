// Reading input files and formatting errors, shared by the subcommands.
#include <cctype>
#include <fstream>
#include <sstream>
#include <string_view>

#include "command.h"
#include "rxt/ir/parser.h"

namespace rxt::cli {
namespace {

// A message printed in full at most this long; longer ones (no rxt message should be) are cut.
constexpr size_t kMaxMessageBytes = 16384;

/// The length of "file:line:col" if |line| starts with "file:line:col: error: ", else 0.
/// Scans each character at most twice, whatever the message's length.
size_t DiagnosticPrefixLength(std::string_view line) {
  constexpr std::string_view kMarker = ": error: ";
  size_t marker = line.find(kMarker);
  if (marker == std::string_view::npos || marker == 0) return 0;
  if (std::isspace(static_cast<unsigned char>(line[0])) || line[0] == ':') return 0;
  // Before the marker: ":<digits>:<digits>".
  size_t pos = marker;
  for (int field = 0; field < 2; ++field) {
    size_t digits_end = pos;
    while (pos > 0 && std::isdigit(static_cast<unsigned char>(line[pos - 1]))) --pos;
    if (pos == digits_end || pos == 0 || line[pos - 1] != ':') return 0;
    --pos;
  }
  return pos == 0 ? 0 : marker;
}

}  // namespace

std::string ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) Throw(ErrorCode::kNotFound, "cannot read '", path, "': no such file or not readable");
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) Throw(ErrorCode::kDataLoss, "error while reading '", path, "'");
  return text.str();
}

IRModule ParseFile(const std::string& path, Session* session) {
  // A model of another format, where an importer plugin reads it (its values are not needed here).
  if (!path.ends_with(".rxt") && session != nullptr && session->CanImport(path)) {
    return NamingFileInErrors(path, [&] { return session->Import(path).module; });
  }
  std::string text = ReadFile(path);
  return session != nullptr ? session->Parse(text, path) : ParseModule(text, path);
}

std::string FormatError(const std::string& message) {
  std::string_view text = message;
  std::string cut;
  if (text.size() > kMaxMessageBytes) {
    cut = StrCat(text.substr(0, kMaxMessageBytes), " … (", text.size() - kMaxMessageBytes, " more bytes)");
    text = cut;
  }
  std::string_view first_line = text.substr(0, text.find('\n'));
  size_t prefix = DiagnosticPrefixLength(first_line);
  if (prefix == 0) return StrCat("rxt: error: ", text);
  return StrCat("rxt: error: ", text.substr(0, prefix), ": ", text.substr(prefix + std::string_view(": error: ").size()));
}

}  // namespace rxt::cli
