// ImportModel: the sink an importer plugin writes to, then parsing and checking its text.
#include "rxt/exec/import.h"

#include <optional>

#include "file_extensions.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/well_formed.h"
#include "rxt/runtime/dlpack.h"
#include "rxt/support/c_status.h"
#include "rxt/support/error.h"
#include "rxt/support/message_text.h"

// The host side of rxt_import_sink_t: what the importer wrote so far.
struct rxt_import_sink_s {
  std::string text;
  std::map<std::string, rxt::Tensor> values;
};

namespace rxt {
namespace {

std::optional<PluginItem> Match(const PluginHost& host, const std::string& path) {
  for (const PluginItem& item : host.Items(PluginItemKind::kImporter)) {
    if (PathHasExtension(path, item.importer->extensions)) return item;
  }
  return std::nullopt;
}

rxt_status_t WriteText(rxt_import_sink_t* sink, const char* text, size_t size) noexcept {
  if (sink == nullptr || (text == nullptr && size > 0)) {
    return MakeCStatus(ErrorCode::kInvalidArgument, "write_text: null sink or text");
  }
  try {
    sink->text.append(text, size);
    return nullptr;
  } catch (const std::exception& e) {
    return MakeCStatus(ErrorCode::kResourceExhausted, StrCat("write_text: ", e.what()));
  }
}

rxt_status_t AddValue(rxt_import_sink_t* sink, const char* name, const DLTensor* value) noexcept {
  if (sink == nullptr || name == nullptr || name[0] == '\0' || value == nullptr) {
    return MakeCStatus(ErrorCode::kInvalidArgument, "add_value: null sink, name or value");
  }
  try {
    if (sink->values.count(name) != 0) {
      return MakeCStatus(ErrorCode::kAlreadyExists, StrCat("add_value: '", name, "' has a value already"));
    }
    sink->values.emplace(name, CopyFromDLTensor(*value));
    return nullptr;
  } catch (const Error& e) {
    return MakeCStatus(e.code(), StrCat("add_value '", name, "': ", e.what()));
  } catch (const std::exception& e) {
    return MakeCStatus(ErrorCode::kResourceExhausted, StrCat("add_value '", name, "': ", e.what()));
  }
}

}  // namespace

PluginItem FindImporter(const PluginHost& host, const std::string& path) {
  if (std::optional<PluginItem> item = Match(host, path)) return *item;
  std::vector<std::string> known;
  for (const PluginItem& item : host.Items(PluginItemKind::kImporter)) {
    known.push_back(StrCat(item.name, " (", item.importer->extensions, ")"));
  }
  Throw(ErrorCode::kNotFound, "no importer reads ", Quoted(path),
        known.empty() ? " (no importer is loaded: load importers/onnx, e.g. with --plugin or RXT_PLUGIN_PATH)"
                      : StrCat("; importers: ", JoinNames(known)));
}

bool IsImportable(const PluginHost& host, const std::string& path) { return Match(host, path).has_value(); }

ImportedModel ImportModel(const PluginHost& host, const std::string& path, const std::string& options) {
  PluginItem item = FindImporter(host, path);
  const rxt_importer_t& importer = *item.importer;
  rxt_import_sink_api_t api{sizeof(rxt_import_sink_api_t), &WriteText, &AddValue};
  rxt_import_sink_s sink;
  rxt_status_t status = importer.import(importer.state, path.c_str(), options.c_str(), &api, &sink);
  ThrowIfFailed(status, StrCat(path, ": ", item.name, " importer"));
  ImportedModel model;
  model.format = item.name;
  try {
    model.module = ParseModule(sink.text, StrCat(path, " (as imported)"));
    VerifyWellFormed(model.module);
  } catch (const Error& e) {
    Throw(ErrorCode::kInternal, "the ", item.name, " importer (plugin '", item.plugin,
          "') wrote a module rxt cannot read: ", e.what());
  }
  model.values = std::move(sink.values);
  return model;
}

}  // namespace rxt
