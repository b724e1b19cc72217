#include "table.h"

#include <algorithm>

namespace rxt::cli {

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

void PrintTable(std::ostream& out, const std::vector<std::pair<std::string, std::string>>& rows,
                const std::string& indent) {
  size_t width = 0;
  for (const auto& row : rows) width = std::max(width, row.first.size());
  for (const auto& [name, summary] : rows) {
    out << indent << name;
    if (!summary.empty()) out << std::string(width - name.size() + 2, ' ') << summary;
    out << "\n";
  }
}

void PrintColumns(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      out << row[i];
      if (i + 1 < row.size()) out << std::string(widths[i] - row[i].size() + 2, ' ');
    }
    out << "\n";
  }
}

}  // namespace rxt::cli
