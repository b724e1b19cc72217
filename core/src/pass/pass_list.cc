#include "rxt/pass/pass_list.h"

#include <algorithm>
#include <cctype>

#include "rxt/ir/parser.h"
#include "rxt/pass/pass_registry.h"
#include "rxt/support/dtype.h"
#include "rxt/support/error.h"
#include "rxt/support/message_text.h"

namespace rxt {
namespace {

bool IsWordStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '%'; }
bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '%' || c == '.'; }

/// The option text with every bare word in value position quoted ("w1" for w1), so the
/// attribute parser reads it; keywords (true, false, none, inf, nan) and dtype names stay.
std::string QuoteBareWords(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c == '"') {  // a string: copied whole, escapes included
      size_t end = i + 1;
      while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, text.size());
      out.append(text.substr(i, end - i));
      i = end;
      continue;
    }
    if (!IsWordStart(c)) {
      out += c;
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && IsWordChar(text[end])) ++end;
    std::string word(text.substr(i, end - i));
    size_t next = end;
    while (next < text.size() && std::isspace(static_cast<unsigned char>(text[next]))) ++next;
    bool key = next < text.size() && text[next] == '=';
    bool keyword = word == "true" || word == "false" || word == "none" || word == "inf" || word == "nan" ||
                   word == "unknown" || ParseDType(word).has_value();
    out += key || keyword ? word : "\"" + word + "\"";
    i = end;
  }
  return out;
}

}  // namespace

std::vector<PassInvocation> ParsePassList(std::string_view text, const std::string& what) {
  std::vector<PassInvocation> passes;
  size_t i = 0;
  auto skip_space = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  auto fail = [&](const std::string& problem) {
    Throw(ErrorCode::kInvalidArgument, what, " ", Quoted(text), ": ", problem, " at character ", i + 1);
  };
  for (;;) {
    skip_space();
    size_t start = i;
    while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
    if (i == start) fail(i == text.size() ? "expected a pass name at the end" : "expected a pass name");
    PassInvocation pass{std::string(text.substr(start, i - start)), {}};
    skip_space();
    if (i < text.size() && text[i] == '(') {
      size_t open = ++i;
      int depth = 1;
      bool in_string = false;
      for (; i < text.size() && depth > 0; ++i) {
        char c = text[i];
        if (in_string) {
          if (c == '\\') ++i;
          else if (c == '"') in_string = false;
        } else if (c == '"') {
          in_string = true;
        } else if (c == '(' || c == '[') {
          ++depth;
        } else if (c == ')' || c == ']') {
          --depth;
        }
      }
      if (depth != 0) fail(StrCat("the options of ", pass.name, " are not closed"));
      std::string options = QuoteBareWords(text.substr(open, i - 1 - open));
      pass.options = ParseAttrList(options, StrCat("options of pass ", pass.name));
      skip_space();
    }
    passes.push_back(std::move(pass));
    if (i == text.size()) break;
    if (text[i] != ',') fail("expected ',' between passes");
    ++i;
  }
  return passes;
}

AttrValue ParsePassOptionValue(std::string_view text, const std::string& what) {
  Attrs parsed = ParseAttrList(StrCat("value=", QuoteBareWords(text)), what);
  const AttrValue* value = parsed.Find("value");
  if (parsed.entries().size() != 1 || value == nullptr) {
    Throw(ErrorCode::kInvalidArgument, what, ": ", Quoted(text), " is not one value");
  }
  return *value;
}

PassInvocation PassOptionFromKey(const std::string& full_key, std::string_view value) {
  size_t dot = full_key.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == full_key.size()) {
    Throw(ErrorCode::kInvalidArgument, "pass option ", Quoted(full_key),
          ": expected <PassName>.<option> (e.g. Gradient.require_grads)");
  }
  PassInvocation pass{full_key.substr(0, dot), {}};
  pass.options.Set(full_key.substr(dot + 1), ParsePassOptionValue(value, StrCat("pass option ", full_key)));
  return pass;
}

void AddPassOptions(const std::vector<PassInvocation>& passes, PassContext& context) {
  for (const PassInvocation& pass : passes) {
    const PassEntry& entry = PassRegistry::Global().Entry(pass.name);
    std::vector<std::string> known;
    for (const PassOptionSpec& option : entry.options) known.push_back(option.name);
    for (const auto& [key, value] : pass.options.entries()) {
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        std::string closest = ClosestName(key, known, 3);
        Throw(ErrorCode::kInvalidArgument, "pass ", pass.name, " has no option ", Quoted(key),
              closest.empty() ? "" : StrCat(" (did you mean '", closest, "'?)"),
              known.empty() ? " (it takes none)" : StrCat("; its options: ", JoinNames(known)));
      }
      std::string full = pass.name + "." + key;
      if (context.options.count(full) != 0) {
        Throw(ErrorCode::kInvalidArgument, "pass ", pass.name, " is given option ", Quoted(key),
              " twice (run the pass in two steps to use two values)");
      }
      context.options[full] = value;
    }
  }
}

}  // namespace rxt
