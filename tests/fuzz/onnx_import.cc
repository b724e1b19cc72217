// Fuzz target onnx_import: the onnx importer (importers/onnx) from the model's bytes to the
// backbone's text: protobuf parsing, ONNX's checker, the version converter and shape inference
// (ONNX's library), folding and the converters (ours). Any bytes give text or an ImportError;
// the text parses as an rxt module or is refused with an rxt::Error (an ONNX model whose
// shapes ONNX's inference let through but rxt's checks do not), never a crash.
#include <string>

#include "fuzz_util.h"
#include "graph_builder.h"
#include "onnx_model.h"
#include "static_folding.h"
#include "rxt/ir/parser.h"
#include "rxt/support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rxt::import_onnx;
  // External data is looked up in a directory that does not exist: the target reads no files.
  static const std::string kNoDirectory = "/nonexistent-rxt-fuzz";
  ImportedGraph graph;
  try {
    onnx::ModelProto model = FoldStaticShapes(ParseModel(data, size, kNoDirectory), ImportOptions{}, kNoDirectory);
    graph = GraphBuilder(model, ImportOptions{}, kNoDirectory).Build();
  } catch (const ImportError&) {
    return 0;  // the expected outcome for most inputs
  }
  try {
    rxt::ParseModule(graph.text, "imported.rxt");
  } catch (const rxt::Error&) {
  }
  return 0;
}
