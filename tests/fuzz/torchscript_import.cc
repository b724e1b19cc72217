// Fuzz target torchscript_import: the torchscript importer (importers/torchscript) from a .pt
// file's bytes to the backbone's text: libtorch's loader (zip reading, unpickling, compiling the
// module's code), the graph walk and the converters (ours), with one input of shape (2, 3, 6, 6).
// Any bytes give text or an ImportError; the text parses as an rxt module or is refused with an
// rxt::Error, never a crash.
#include <sstream>
#include <string>

#include "fuzz_util.h"
#include "options.h"
#include "rxt/ir/parser.h"
#include "rxt/support/error.h"
#include "torchscript_module.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rxt::import_torchscript;
  ImportOptions options;
  options.shapes.push_back({"", {"2", "3", "6", "6"}});
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
