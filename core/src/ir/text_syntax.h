// Spelling rules of the IR text format shared by the printer and the parser: which words
// are reserved, how names, strings, numbers and tensor elements are written, base64.
// Keeping them in one place is what makes print -> parse -> print stable.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rxt/runtime/tensor.h"
#include "rxt/support/dtype.h"

namespace rxt {
class OpDef;
}

namespace rxt::text {

/// Words that a bare (un-prefixed) name may not be spelled as: keywords, dtype names,
/// `true`/`false`/`none`, and the special float spellings (`inf_f32`, `nan`...).
bool IsReservedWord(std::string_view word);

/// [A-Za-z_][A-Za-z0-9_]*: a name the lexer reads as one identifier.
bool IsBareName(std::string_view name);

/// Bare names joined by single dots (tir.noalias, nn.relu): one identifier token.
bool IsDottedName(std::string_view name);

/// A printable stand-in for |hint|: characters outside [A-Za-z0-9_] become '_'; an empty
/// hint becomes "v"; with |bare|, a leading digit or "inf_" / "nan_" gets a "v" prefix.
std::string SanitizeName(std::string_view hint, bool bare);

/// A Relax variable's name as written: %name when it is [A-Za-z0-9_]+, else %"name" quoted
/// (names an importer keeps verbatim: %"conv1.weight").
std::string LocalName(std::string_view name);

/// "text" with \" \\ \n \t \r and \xHH escapes.
std::string QuoteString(std::string_view value);

/// The shortest text that reads back to exactly |value| ("0.1", "1e-05", "inf", "-inf",
/// "nan"). With |force_float_syntax| a '.0' is appended when the text would read as an int.
std::string FormatDouble(double value, bool force_float_syntax);
/// Same for a float32 value (shortest text at float precision).
std::string FormatFloat(float value);

/// The spelling of a float immediate of |dtype| ("1.5f32", "inf_f32", "nan_f64");
/// a negative value starts with '-'.
std::string FormatFloatLiteral(double value, DType dtype);
/// The spelling of an integer or bool immediate ("3", "3i32", "1u8", "true").
std::string FormatIntLiteral(int64_t value, DType dtype);

/// Reads decimal float text as a double; a value too small for a double reads as 0.
/// nullopt on overflow or malformed text.
std::optional<double> ReadDouble(std::string_view text);

/// Parses a float written at |dtype|'s precision (float32: rounded once to float).
/// |text| is digits[.digits][e[+-]digits], "inf" or "nan". nullopt when out of range.
std::optional<double> ParseFloatText(std::string_view text, DType dtype, bool negative);

/// Parses an integer literal's digits for |dtype| (an integer type); |negative| when a '-'
/// precedes them. Returns an error message ("300 is out of range for uint8"), or "".
std::string ParseIntText(std::string_view digits, bool negative, DType dtype, int64_t* value);
/// The largest finite value of a float dtype.
double MaxFinite(DType dtype);

/// The text of element |index| of |t| as it appears in an inline constant.
std::string FormatElement(const Tensor& t, int64_t index);
/// Writes element |index| of |t| from its text (a number, "inf", "nan", "true", "false"),
/// |negative| when a '-' precedes it. Returns an error message, or "" on success.
std::string StoreElement(Tensor& t, int64_t index, std::string_view text, bool is_float_text, bool negative);

/// True when every element of |t| reads back bit-exactly from its inline text (false
/// e.g. for NaNs with a payload), so it may be printed inline.
bool InlineRoundTrips(const Tensor& t);

/// "; did you mean '<prefix><best>'?" for the candidate closest to |name| (within an edit
/// distance of 2), or "" when none is close.
std::string SuggestName(const std::string& name, const std::vector<std::string>& candidates, const char* prefix);

/// "nn.batch_norm has no attribute 'eps'; did you mean 'epsilon'? (its attributes: axis,
/// epsilon, ...; rxt ops nn.batch_norm shows them)", or "... (it takes none)".
std::string UnknownAttributeMessage(const OpDef& op, const std::string& key);

std::string EncodeBase64(const void* data, size_t size);
/// Decodes standard base64 (with '=' padding). nullopt on a bad character or length;
/// |error_offset| receives the offending character's offset.
std::optional<std::string> DecodeBase64(std::string_view text, size_t* error_offset);

}  // namespace rxt::text
