#include "session_notes.h"

#include <iostream>

namespace rxt::cli {

void PrintNotes(const Session& session) {
  for (const std::string& note : session.notes()) std::cerr << "rxt: note: " << note << "\n";
}

std::string JoinLibraries(const std::vector<std::string>& values) {
  std::string joined;
  for (const std::string& value : values) joined += (joined.empty() ? "" : ",") + value;
  return joined;
}

}  // namespace rxt::cli
