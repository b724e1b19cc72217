// The extensions importers and exporters declare (".onnx, .ort"): parsed and matched the same
// way for both.
#pragma once

#include <string>
#include <vector>

namespace rxt {

/// The comma-separated extensions of |list|, lower case, trimmed, each as written (with its dot).
std::vector<std::string> ExtensionList(const char* list);

/// Whether |path| ends (case-insensitively) with one of the extensions of |list|.
bool PathHasExtension(const std::string& path, const char* list);

}  // namespace rxt
