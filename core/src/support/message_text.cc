#include "rxt/support/message_text.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

namespace rxt {
namespace {

constexpr char kHex[] = "0123456789abcdef";

/// Length of the valid UTF-8 sequence starting at |pos| (2 to 4), or 0 if there is none.
size_t Utf8SequenceLength(std::string_view text, size_t pos) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(pos);
  size_t length = lead >= 0xC2 && lead <= 0xDF ? 2 : lead >= 0xE0 && lead <= 0xEF ? 3 : lead >= 0xF0 && lead <= 0xF4 ? 4 : 0;
  if (length == 0 || pos + length > text.size()) return 0;
  for (size_t i = 1; i < length; ++i) {
    if ((byte(pos + i) & 0xC0) != 0x80) return 0;
  }
  return length;
}

/// The printable form of the character at |pos| and how many bytes of |text| it took.
std::pair<std::string, size_t> NextUnit(std::string_view text, size_t pos) {
  unsigned char c = static_cast<unsigned char>(text[pos]);
  switch (c) {
    case '\n': return {"\\n", 1};
    case '\r': return {"\\r", 1};
    case '\t': return {"\\t", 1};
    case '\\': return {"\\\\", 1};
    default: break;
  }
  if (c >= 0x20 && c < 0x7F) return {std::string(1, static_cast<char>(c)), 1};
  if (size_t length = c >= 0x80 ? Utf8SequenceLength(text, pos) : 0; length > 0) {
    return {std::string(text.substr(pos, length)), length};
  }
  return {std::string{'\\', 'x', kHex[c >> 4], kHex[c & 15]}, 1};
}

}  // namespace

std::string MessageText(std::string_view text, size_t max_chars) {
  // The head: characters from the start while they fit in the budget.
  std::string head;
  size_t chars = 0, pos = 0;
  while (pos < text.size() && chars < max_chars) {
    auto [unit, taken] = NextUnit(text, pos);
    head += unit;
    pos += taken;
    ++chars;
  }
  if (pos == text.size()) return head;

  // Too long: keep about two thirds of the budget from the start and a third from the end.
  size_t head_chars = max_chars * 2 / 3, tail_chars = max_chars - head_chars;
  head.clear();
  pos = 0;
  for (size_t i = 0; i < head_chars && pos < text.size(); ++i) {
    auto [unit, taken] = NextUnit(text, pos);
    head += unit;
    pos += taken;
  }
  // The tail starts at a character boundary among the last bytes (at most 4 per character).
  size_t tail_start = text.size() - std::min(text.size() - pos, tail_chars * 4);
  while (tail_start < text.size() && tail_start > pos &&
         (static_cast<unsigned char>(text[tail_start]) & 0xC0) == 0x80) {
    ++tail_start;
  }
  std::vector<std::pair<std::string, size_t>> units;
  for (size_t at = tail_start; at < text.size();) {
    units.push_back(NextUnit(text, at));
    at += units.back().second;
  }
  size_t first = units.size() > tail_chars ? units.size() - tail_chars : 0;
  std::string tail;
  size_t tail_bytes = 0;
  for (size_t i = first; i < units.size(); ++i) {
    tail += units[i].first;
    tail_bytes += units[i].second;
  }
  size_t skipped = text.size() - pos - tail_bytes;
  return head + " … (" + std::to_string(skipped) + " more bytes) … " + tail;
}

bool IsPrintableText(std::string_view text) {
  for (size_t pos = 0; pos < text.size();) {
    auto [unit, taken] = NextUnit(text, pos);
    if (unit.size() > 1 && unit[0] == '\\' && unit != "\\\\") return false;  // a control or a stray byte
    pos += taken;
  }
  return true;
}

std::string Quoted(std::string_view text, size_t max_chars) { return "'" + MessageText(text, max_chars) + "'"; }

std::string JoinForMessage(const std::vector<std::string>& items, size_t max_items) {
  std::string text;
  for (size_t i = 0; i < items.size() && i < max_items; ++i) text += (i == 0 ? "" : "; ") + MessageText(items[i], 400);
  if (items.size() > max_items) text += "; … and " + std::to_string(items.size() - max_items) + " more";
  return text;
}

std::string ShapeText(const int64_t* dims, size_t ndim) {
  constexpr size_t kEnds = 6;  // dims shown at each end of a long shape
  std::string text = "(";
  for (size_t i = 0; i < ndim; ++i) {
    if (ndim > 2 * kEnds + 1 && i == kEnds) {
      text += "… (" + std::to_string(ndim) + " dims) …, ";
      i = ndim - kEnds - 1;
      continue;
    }
    text += std::to_string(dims[i]);
    if (i + 1 < ndim) text += ", ";
  }
  return text + (ndim == 1 ? ",)" : ")");
}

size_t EditDistance(std::string_view a, std::string_view b, bool ignore_case) {
  auto same = [ignore_case](char x, char y) {
    if (!ignore_case) return x == y;
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  };
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string ClosestName(std::string_view name, const std::vector<std::string>& candidates, size_t max_distance,
                        bool ignore_case) {
  std::string best;
  size_t best_distance = max_distance + 1;
  for (const std::string& candidate : candidates) {
    size_t distance = EditDistance(name, candidate, ignore_case);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace rxt
