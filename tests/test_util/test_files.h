// Reading test data files: shared by the tests that walk tests/data and examples/.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace rxt::test {

/// The whole file as bytes; empty if it cannot be read (the test then fails on content).
inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Files directly in |dir| whose extension is |extension| (".rxt"), sorted by name.
inline std::vector<std::filesystem::path> FilesWithExtension(const std::filesystem::path& dir,
                                                             const std::string& extension) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == extension) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace rxt::test
