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

}  // namespace rxt::cli
