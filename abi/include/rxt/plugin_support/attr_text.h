// attr_text.h (plugin SDK): values written in the IR text format's syntax, for the attributes of
// op calls ("axes=[0, 2]", "epsilon=1e-05", "data_layout=\"NCHW\"").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rxt::plugin_support {

/// |bytes| in base64 (RFC 4648, padded): a constant's data in the text format (base64"...").
std::string Base64(const std::string& bytes);

/// "[1, 2]".
std::string IntsText(const std::vector<int64_t>& values);
/// The shortest text that reads back as the same double, and stays a float ("1.0", not "1";
/// "nan", "inf", "-inf").
std::string FloatText(double value);
/// "\"text\"" (|text| must not hold a quote).
std::string Quoted(const std::string& text);

}  // namespace rxt::plugin_support
