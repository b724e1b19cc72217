// Text that goes into error messages. Anything taken from a file or from the user (names,
// headers, types, shapes) may be huge or hold bytes a terminal would interpret, so messages
// quote it through these: every message stays one line of bounded length.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rxt {

/// How many characters of one value (a type, a header, a name) a message shows at most.
inline constexpr size_t kMaxMessageValueChars = 200;

/// |text| made printable: ASCII controls, DEL and bytes that are not valid UTF-8 become
/// escapes (`\n`, `\t`, `\\`, `\xff`); then, if it is longer than |max_chars| characters,
/// its head and tail around " … (N more bytes) … " (the marker is part of the budget, so a
/// long value never prints longer than about |max_chars| + 30).
std::string MessageText(std::string_view text, size_t max_chars = kMaxMessageValueChars);

/// Whether |text| is valid UTF-8 without control characters: what a name read from a file
/// (a function, a kernel, a backend) must be, so that messages show it as it is.
bool IsPrintableText(std::string_view text);

/// MessageText in single quotes: 'name'.
std::string Quoted(std::string_view text, size_t max_chars = kMaxMessageValueChars);

/// Several problems in one line: the first |max_items| of |items| joined by "; ", then
/// "; … and N more" (a message stays one line, however many problems it reports).
std::string JoinForMessage(const std::vector<std::string>& items, size_t max_items = 5);

/// Names for a message: "a, b, c" (all of them: lists of options or parameters are short).
std::string JoinNames(const std::vector<std::string>& names);

/// Levenshtein distance between |a| and |b| (ASCII letters compared without case when
/// |ignore_case|): how "did you mean" hints pick the closest known name.
size_t EditDistance(std::string_view a, std::string_view b, bool ignore_case = false);

/// The name of |candidates| closest to |name| within |max_distance| edits, or "" if none is.
std::string ClosestName(std::string_view name, const std::vector<std::string>& candidates, size_t max_distance = 2,
                        bool ignore_case = false);

/// A shape for messages: "(2, 784)", "(3,)", "()"; a shape of many dims shows the first and
/// last few with "… (N dims) …" between them.
std::string ShapeText(const int64_t* dims, size_t ndim);

}  // namespace rxt
