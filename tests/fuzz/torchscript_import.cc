// Fuzz target torchscript_import: the torchscript importer (importers/torchscript) from a .pt
// file's bytes to the backbone's text: libtorch's loader (zip reading, unpickling, compiling the
// module's code), the graph walk and the converters (ours), with one input of shape (2, 3, 6, 6),
// without decoding the nodes' source locations (below).
// Any bytes give text or an ImportError; the text parses as an rxt module or is refused with an
// rxt::Error, never a crash.
#include <sstream>
#include <string>

#include "fuzz_util.h"
#include "options.h"
#include "rxt/ir/parser.h"
#include "rxt/support/error.h"
#include "torchscript_module.h"

// libtorch 1.13 leaks a few hundred bytes loading some malformed files (finding_1.pt: blocks
// allocated inside libtorch_cpu, no frame of ours): LeakSanitizer ignores what is allocated there.
extern "C" const char* __lsan_default_suppressions() { return "leak:libtorch_cpu.so\n"; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rxt::import_torchscript;
  ImportOptions options;
  options.shapes.push_back({"", {"2", "3", "6", "6"}, ""});
  // libtorch's decoding of malformed debug info frees a pointer it did not allocate
  // (finding_2.pt): not ours to fix, and it would stop every run; the rest is fuzzed.
  options.source_locations = false;
  ImportedModule imported;
  try {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    imported = ImportTorchScript(in, options);
  } catch (const ImportError&) {
    return 0;  // the expected outcome for most inputs
  }
  try {
    rxt::ParseModule(imported.text, "imported.rxt");
  } catch (const rxt::Error&) {
  }
  return 0;
}
