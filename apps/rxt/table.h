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
/// Rows of cells with every column but the last padded to its widest cell.
void PrintColumns(std::ostream& out, const std::vector<std::vector<std::string>>& rows);

}  // namespace rxt::cli
