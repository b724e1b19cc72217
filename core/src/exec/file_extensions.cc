#include "file_extensions.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace rxt {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

std::vector<std::string> ExtensionList(const char* list) {
  std::vector<std::string> out;
  std::stringstream stream(list != nullptr ? list : "");
  for (std::string each; std::getline(stream, each, ',');) {
    each.erase(0, each.find_first_not_of(' '));
    each.erase(each.find_last_not_of(' ') + 1);
    if (!each.empty()) out.push_back(Lower(each));
  }
  return out;
}

bool PathHasExtension(const std::string& path, const char* list) {
  std::string lower = Lower(path);
  for (const std::string& extension : ExtensionList(list)) {
    if (lower.ends_with(extension)) return true;
  }
  return false;
}

}  // namespace rxt
