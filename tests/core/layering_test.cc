// The layer order of docs/architecture.md, enforced: every `#include "..."` of core/, abi/,
// apps/ and plugins/ that names a file of the repository must go to the including file's own
// layer or one below it. A cycle (ir -> op -> ir, pass -> transform -> pass) cannot come back.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace rxt {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = RXT_SOURCE_DIR;

/// The layers, bottom up (docs/architecture.md has the picture). A file may include its own
/// layer and every layer above it in this list.
const std::vector<std::string> kLayers = {
    "abi-spec",            // abi/include/rxt: the C headers (rxt.h, plugin.h...) and the plugin SDK's headers
    "support",             // errors, dtypes, files, message text
    "runtime",             // tensors, memory, thread pool, executables, the VM
    "train",               // the Trainer (runtime side: runs a compiled trainer module)
    "abi-runtime",         // abi/src/runtime, abi/src/runtime_alone: the C ABI's runtime half (librxt_runtime)
    "ir",                  // IR, text format, the op registry (ir/op.h)
    "op",                  // the core op definitions (struct-info inference)
    "pass",                // pass manager, instruments, passes by name
    "transform/index",     // transform/passes.h: every pass, one line each
    "transform/analysis",  // purity, op patterns, kernel stages, well-formedness
    "transform/rewrite",   // generic rewrites: normalize, DCE, bind params, dataflow, inlining
    "transform/legalize",  // ops -> kernels (compute definitions), library calls
    "transform/fusion",    // FuseOps, FuseKernels, ParallelizeLoops
    "transform/training",  // Gradient, AppendLoss, SetupTrainer, losses and optimizers
    "transform/init",      // the compiler's initialisation and the pass table
    "plugin",              // the plugin host and the providers it implements
    "exec",                // build session: pipelines, VM compiler, executables, trainers
    "abi",                 // abi/src: the C ABI (librxt)
    "apps",                // the rxt command
};

int Rank(const std::string& layer) {
  for (size_t i = 0; i < kLayers.size(); ++i) {
    if (kLayers[i] == layer) return static_cast<int>(i);
  }
  return -1;
}

/// The layer of a file (a path relative to the root); "plugins/<name>" for a plugin; nullopt
/// for files outside the layered tree.
std::optional<std::string> LayerOf(const fs::path& relative) {
  std::vector<std::string> parts;
  for (const fs::path& part : relative) parts.push_back(part.string());
  if (parts.size() < 2) return std::nullopt;
  if (parts[0] == "abi") {
    if (parts[1] == "src" && parts.size() > 3 && (parts[2] == "runtime" || parts[2] == "runtime_alone")) {
      return "abi-runtime";
    }
    return parts[1] == "include" ? "abi-spec" : parts[1] == "plugin_support" ? "plugin-sdk" : "abi";
  }
  if (parts[0] == "apps") return "apps";
  if (parts[0] == "plugins") return "plugins/" + parts[1];
  if (parts[0] != "core") return std::nullopt;
  // core/include/rxt/<layer>/... or core/src/<layer>/...
  size_t first = parts[1] == "include" ? 3 : 2;
  if (parts.size() <= first + 1) return std::nullopt;
  const std::string& layer = parts[first];
  if (layer != "transform") return layer;
  if (parts.size() == first + 2) return parts[1] == "include" ? "transform/index" : "transform/init";
  return "transform/" + parts[first + 1];
}

/// Where an `#include "name"` of |file| resolves to, relative to the root: next to the file,
/// then the include directories the builds use.
std::optional<fs::path> Resolve(const fs::path& file, const std::string& name) {
  std::vector<fs::path> bases = {file.parent_path(), "core/include", "core/src", "abi/include", "abi/src"};
  if (LayerOf(file).value_or("").rfind("plugins/", 0) == 0) bases.push_back("plugins");
  for (const fs::path& base : bases) {
    fs::path candidate = (base / name).lexically_normal();
    if (fs::is_regular_file(kRoot / candidate)) return candidate;
  }
  return std::nullopt;
}

/// Whether a file of layer |from| may include one of layer |to|.
bool MayInclude(const std::string& from, const std::string& to) {
  if (from == to) return true;
  // A plugin, and the plugin SDK it links, talk to rxt only through abi/include: the C headers
  // and the SDK's headers.
  if (from.rfind("plugins/", 0) == 0 || from == "plugin-sdk") return to == "abi-spec";
  if (to == "plugin-sdk") return false;  // its sources are linked into plugins, not included
  if (to.rfind("plugins/", 0) == 0) return false;  // the core names no plugin
  int from_rank = Rank(from), to_rank = Rank(to);
  return from_rank >= 0 && to_rank >= 0 && to_rank <= from_rank;
}

struct Violation {
  fs::path file;
  int line;
  std::string text;
};

std::vector<Violation> FindViolations() {
  const std::regex include_line(R"(^\s*#\s*include\s*"([^"]+)\")");
  std::vector<Violation> out;
  for (const char* top : {"core", "abi", "apps", "plugins"}) {
    for (const auto& entry : fs::recursive_directory_iterator(kRoot / top)) {
      std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cc" && ext != ".c" && ext != ".hpp")) continue;
      fs::path file = entry.path().lexically_relative(kRoot);
      std::optional<std::string> from = LayerOf(file);
      if (!from) continue;
      std::ifstream in(entry.path());
      std::string line;
      for (int number = 1; std::getline(in, line); ++number) {
        std::smatch match;
        if (!std::regex_search(line, match, include_line)) continue;
        std::optional<fs::path> target = Resolve(file, match[1]);
        if (!target) continue;  // a system or third-party header
        std::optional<std::string> to = LayerOf(*target);
        if (to && !MayInclude(*from, *to)) {
          out.push_back({file, number, *from + " -> " + *to + ": " + match[1].str()});
        }
      }
    }
  }
  return out;
}

TEST(Layering, EveryIncludeGoesToTheSameLayerOrOneBelow) {
  std::vector<Violation> violations = FindViolations();
  for (const Violation& v : violations) ADD_FAILURE() << v.file.string() << ":" << v.line << ": " << v.text;
  EXPECT_TRUE(violations.empty()) << violations.size() << " includes go up the layer order (docs/architecture.md)";
}

TEST(Layering, TheCheckSeesTheTreeAndCatchesAnUpwardInclude) {
  // The classifier knows the folders it must (a renamed folder would silently escape it).
  EXPECT_EQ(LayerOf("core/include/rxt/ir/op.h"), "ir");
  EXPECT_EQ(LayerOf("core/src/transform/legalize/legalize_ops.cc"), "transform/legalize");
  EXPECT_EQ(LayerOf("core/include/rxt/transform/passes.h"), "transform/index");
  EXPECT_EQ(LayerOf("core/src/transform/compiler_init.cc"), "transform/init");
  for (const char* folder : {"core/src", "core/include/rxt"}) {
    for (const auto& entry : fs::directory_iterator(kRoot / folder)) {
      if (!entry.is_directory()) continue;
      std::string layer = entry.path().filename().string();
      if (layer == "transform") continue;
      EXPECT_GE(Rank(layer), 0) << entry.path() << " is a folder no layer names (add it to kLayers and the docs)";
    }
  }
  for (const auto& entry : fs::directory_iterator(kRoot / "core/src/transform")) {
    if (!entry.is_directory()) continue;
    EXPECT_GE(Rank("transform/" + entry.path().filename().string()), 0) << entry.path();
  }
  // And the rule bites: these are the cycles this test exists to keep out.
  EXPECT_FALSE(MayInclude("ir", "op"));
  EXPECT_FALSE(MayInclude("pass", "transform/index"));
  EXPECT_FALSE(MayInclude("runtime", "ir"));
  EXPECT_FALSE(MayInclude("transform/training", "plugin"));
  EXPECT_FALSE(MayInclude("plugins/grad_std", "ir"));
  EXPECT_FALSE(MayInclude("plugin-sdk", "ir"));
  EXPECT_EQ(LayerOf("abi/plugin_support/rule.cc"), "plugin-sdk");
  EXPECT_FALSE(MayInclude("exec", "plugins/lib_dnnl"));
  EXPECT_TRUE(MayInclude("exec", "transform/training"));
}

}  // namespace
}  // namespace rxt
