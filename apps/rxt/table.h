// Two-column listings (name, summary) for rxt ops / passes / plugins.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace rxt::cli {

/// The first line of a description.
std::string FirstLine(const std::string& text);
/// "name   summary" rows with the summaries aligned.
void PrintTable(std::ostream& out, const std::vector<std::pair<std::string, std::string>>& rows,
                const std::string& indent = "");

}  // namespace rxt::cli
