// Fuzz target ir_text: the IR text format (core/src/ir/parse_*.cc, printer.cc). Any text gives
// a module or an rxt::Error; a module prints to text that parses back to a structurally equal
// module, and printing that gives the same text (docs/ir.md: printing is canonical).
#include <string>
#include <string_view>

#include "fuzz_util.h"
#include "rxt/support/error.h"
#include "rxt/ir/equality.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/well_formed.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  rxt::IRModule module;
  try {
    module = rxt::ParseModule(text, "fuzz.rxt");
  } catch (const rxt::Error&) {
    return 0;  // the expected outcome for most inputs
  }
  rxt::CheckWellFormed(module);  // `rxt check`: diagnostics, never a crash

  std::string printed = rxt::PrintModule(module);
  rxt::IRModule again;
  try {
    again = rxt::ParseModule(printed, "printed.rxt");
  } catch (const rxt::Error& e) {
    FUZZ_CHECK(false, std::string("the printed module does not parse: ") + e.what() + "\n" + printed);
  }
  FUZZ_CHECK(rxt::StructuralEqual(module, again), "the printed module parses to another module:\n" + printed);
  FUZZ_CHECK(rxt::PrintModule(again) == printed, "printing is not stable:\n" + printed);
  return 0;
}
