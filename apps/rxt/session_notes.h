// What the build session tells the user (exec/session.h), the way every command says it.
#pragma once

#include <string>
#include <vector>

#include "rxt/exec/session.h"

namespace rxt::cli {

/// Prints each of the session's notes as "rxt: note: ..." on stderr.
void PrintNotes(const Session& session);

/// Repeated --library values as one list ("dnnl", "x,y" -> "dnnl,x,y").
std::string JoinLibraries(const std::vector<std::string>& values);

}  // namespace rxt::cli
