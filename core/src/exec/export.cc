// ExportModel: the function prepared for an exporter plugin, the graph it reads, the sink it
// writes to.
#include "rxt/exec/export.h"

#include <optional>

#include "file_extensions.h"
#include "rxt/ir/printer.h"
#include "rxt/plugin/ir_builder_host.h"
#include "rxt/runtime/dlpack.h"
#include "rxt/support/c_status.h"
#include "rxt/support/error.h"
#include "rxt/support/message_text.h"
#include "rxt/train/trainer.h"
#include "rxt/transform/passes.h"
#include "rxt/transform/training/setup_trainer.h"
#include "transform/rewrite/function_inliner.h"
#include "transform/training/trainer_backbone.h"
#include "transform/training/trainer_functions.h"

// The host side of rxt_export_sink_t: the bytes written so far.
struct rxt_export_sink_s {
  std::string bytes;
};

namespace rxt {
namespace {

std::optional<PluginItem> Match(const PluginHost& host, const std::string& format, const std::string& path) {
  for (const PluginItem& item : host.Items(PluginItemKind::kExporter)) {
    if (format.empty() ? PathHasExtension(path, item.exporter->extensions) : item.name == format) return item;
  }
  return std::nullopt;
}

rxt_status_t Write(rxt_export_sink_t* sink, const void* data, size_t size) noexcept {
  if (sink == nullptr || (data == nullptr && size > 0)) {
    return MakeCStatus(ErrorCode::kInvalidArgument, "write: null sink or data");
  }
  try {
    sink->bytes.append(static_cast<const char*>(data), size);
    return nullptr;
  } catch (const std::exception& e) {
    return MakeCStatus(ErrorCode::kResourceExhausted, StrCat("write: ", e.what()));
  }
}

bool IsBackbone(const IRModule& module) {
  return module.FindFunction(trainer_module::kBackbone) != nullptr && module.attrs.Find(trainer_module::kParamNum);
}

/// |module|'s function to export when none is named: @backbone, else the only function.
std::string DefaultFunction(const IRModule& module) {
  if (module.FindFunction(trainer_module::kBackbone) != nullptr) return trainer_module::kBackbone;
  std::vector<std::string> names;
  for (const auto& entry : module.entries()) {
    if (entry.function) names.push_back(entry.name);
  }
  if (names.size() == 1) return names[0];
  Throw(ErrorCode::kInvalidArgument, "the module has no @backbone and ", names.size(),
        " functions: name the one to export (functions: ", JoinNames(names), ")");
}

/// The value |name| for parameter |param|, checked against its struct info.
const Tensor* ValueFor(const Var& param, const std::map<std::string, Tensor>& values) {
  auto it = values.find(param->name);
  if (it == values.end()) return nullptr;
  const Tensor& value = it->second;
  const auto* tensor = param->struct_info->As<TensorSINode>();
  bool fits = tensor != nullptr && (tensor->dtype == DType::kUnknown || tensor->dtype == value.dtype()) &&
              (tensor->ndim < 0 || tensor->ndim == static_cast<int>(value.shape().size()));
  if (fits && tensor->shape) {
    for (size_t i = 0; i < value.shape().size(); ++i) {
      const auto* dim = (*tensor->shape)[i]->As<IntImmNode>();
      if (dim != nullptr && dim->value != value.shape()[i]) fits = false;
    }
  }
  if (!fits) {
    Throw(ErrorCode::kInvalidArgument, "the value of '", param->name, "' is ", DTypeName(value.dtype()), " ",
          ShapeText(value.shape().data(), value.shape().size()), ", the parameter is ", ToString(param->struct_info));
  }
  return &value;
}

/// Appends |binding| to the last block of |blocks|, or to a new one like |like| if the last
/// block is of the other kind.
void Append(std::vector<BindingBlock>& blocks, const Binding& binding, bool is_dataflow) {
  if (blocks.empty() || blocks.back().is_dataflow != is_dataflow) blocks.push_back(BindingBlock{{}, is_dataflow});
  blocks.back().bindings.push_back(binding);
}

/// |blocks| with every call of one of |module|'s functions replaced by its body (recursively):
/// an exported graph has ops only.
std::vector<BindingBlock> InlineCalls(const std::vector<BindingBlock>& blocks, const IRModule& module, int depth) {
  constexpr int kMaxDepth = 64;
  std::vector<BindingBlock> out;
  for (const BindingBlock& block : blocks) {
    for (const Binding& binding : block.bindings) {
      const auto* call = binding.value->As<CallNode>();
      const auto* callee_var = call != nullptr ? call->callee->As<GlobalVarNode>() : nullptr;
      Function callee = callee_var != nullptr ? module.FindFunction(callee_var->name) : nullptr;
      if (callee == nullptr || binding.is_match_cast()) {
        Append(out, binding, block.is_dataflow);
        continue;
      }
      if (depth >= kMaxDepth) {
        Throw(ErrorCode::kInvalidArgument, "calls of @", callee_var->name, " nest deeper than ", kMaxDepth,
              " (a recursion cannot be exported)");
      }
      training::InlinedBody body = training::InlineBody(callee, call->args, &module);
      training::AppendBlocks(out, InlineCalls(body.blocks, module, depth + 1));
      Append(out, Binding{binding.var, body.result, nullptr}, block.is_dataflow);
    }
  }
  return out;
}

}  // namespace

PluginItem FindExporter(const PluginHost& host, const std::string& format, const std::string& path) {
  if (std::optional<PluginItem> item = Match(host, format, path)) return *item;
  std::vector<std::string> known;
  for (const PluginItem& item : host.Items(PluginItemKind::kExporter)) {
    known.push_back(StrCat(item.name, " (", item.exporter->extensions, ")"));
  }
  std::string what = format.empty() ? StrCat("no exporter writes ", Quoted(path)) : StrCat("no exporter ", Quoted(format));
  Throw(ErrorCode::kNotFound, what,
        known.empty() ? " (no exporter is loaded: load exporters/onnx, e.g. with --plugin or RXT_PLUGIN_PATH)"
                      : StrCat("; exporters: ", JoinNames(known)));
}

bool IsExportable(const PluginHost& host, const std::string& format, const std::string& path) {
  return Match(host, format, path).has_value();
}

Function PrepareForExport(const IRModule& module, const std::string& function, std::string* chosen) {
  std::string name = function.empty() ? DefaultFunction(module) : function;
  Function original = module.FindFunction(name);
  if (original == nullptr) Throw(ErrorCode::kNotFound, "the module has no function @", name);
  Function prepared;
  if (name == trainer_module::kBackbone && IsBackbone(module)) {
    prepared = training::BuildPredict(training::CheckBackbone(module, /*trainable=*/false), module);
  } else {
    std::vector<Var> params;
    std::vector<Expr> args;
    for (const Var& p : original->params) {
      params.push_back(training::FreshParam(p));
      args.push_back(params.back());
    }
    training::InlinedBody body = training::InlineBody(original, args, &module);
    prepared = training::MakeInlinedFunction(std::move(params), InlineCalls(body.blocks, module, 0), body.result,
                                             original->is_pure, &module);
  }
  // The graph's outputs are tensors: a result that is a tuple becomes a tuple of its fields.
  if (GetStructInfo(prepared->body->body)->As<TupleSINode>() != nullptr) {
    std::vector<BindingBlock> blocks = prepared->body->blocks;
    Expr result = training::MakeTupleOf(training::Fields(blocks, prepared->body->body, "output"));
    prepared = training::MakeInlinedFunction(prepared->params, std::move(blocks), result, prepared->is_pure, &module);
  }
  IRModule alone;
  alone.Add(name, prepared);
  // No CanonicalizeBindings: `%prediction = %logits` would become `%prediction = add(...)`,
  // and the exported output would lose the model's name for it.
  alone = DeadCodeElimination()(alone);
  if (chosen != nullptr) *chosen = name;
  return alone.GetFunction(name);
}

ExportedModel ExportModel(const PluginHost& host, const IRModule& module, const std::map<std::string, Tensor>& values,
                          const ExportRequest& request) {
  PluginItem item = FindExporter(host, request.format, request.path);
  ExportedModel exported;
  exported.format = item.name;
  Function function = PrepareForExport(module, request.function, &exported.function);
  const bool backbone = exported.function == trainer_module::kBackbone && IsBackbone(module);
  const int input_num = backbone ? training::CheckBackbone(module, /*trainable=*/false).input_num : 0;

  IRModule scope;
  scope.Add(exported.function, function);
  BlockBuilder builder(&scope);
  IRBuilderHost reader(builder, {.read_only = true});

  std::vector<rxt_ir_expr_t> inputs;
  std::vector<const DLTensor*> input_values;
  std::vector<DLTensor> tensors(function->params.size());
  for (size_t i = 0; i < function->params.size(); ++i) {
    const Var& param = function->params[i];
    inputs.push_back(reader.Wrap(param));
    const Tensor* value = ValueFor(param, values);
    if (value == nullptr && backbone && static_cast<int>(i) >= input_num) {
      Throw(ErrorCode::kNotFound, "no value for '", param->name, "', a parameter or state of the backbone (",
            values.empty() ? "no values were given" : StrCat(values.size(), " values were given"), ")");
    }
    if (value == nullptr) {
      input_values.push_back(nullptr);
      ++exported.num_inputs;
      continue;
    }
    tensors[i] = DLTensor{};
    tensors[i].data = const_cast<void*>(value->data());
    tensors[i].device = {kDLCPU, 0};
    tensors[i].ndim = static_cast<int32_t>(value->shape().size());
    tensors[i].dtype = ToDLDataType(value->dtype());
    tensors[i].shape = const_cast<int64_t*>(value->shape().data());
    input_values.push_back(&tensors[i]);
    ++exported.num_values;
  }
  std::vector<rxt_ir_expr_t> vars, bound;
  for (const BindingBlock& block : function->body->blocks) {
    for (const Binding& binding : block.bindings) {
      if (binding.value->kind == ExprKind::kIf) {
        Throw(ErrorCode::kUnimplemented, exported.function, ": '", binding.var->name,
              "' is bound to an if: control flow is not exported");
      }
      vars.push_back(reader.Wrap(binding.var));
      bound.push_back(reader.Wrap(binding.value));
    }
  }
  rxt_export_graph_t graph{};
  graph.struct_size = sizeof(rxt_export_graph_t);
  graph.name = exported.function.c_str();
  graph.num_inputs = static_cast<int>(inputs.size());
  graph.inputs = inputs.data();
  graph.values = input_values.data();
  graph.num_bindings = static_cast<int>(vars.size());
  graph.vars = vars.data();
  graph.bound = bound.data();
  graph.output = reader.Wrap(function->body->body);

  const rxt_exporter_t& exporter = *item.exporter;
  rxt_export_sink_api_t api{sizeof(rxt_export_sink_api_t), &Write};
  rxt_export_sink_s sink;
  rxt_status_t status = exporter.export_graph(exporter.state, IRBuilderHost::Api(), reader.handle(), &graph,
                                              request.options.c_str(), &api, &sink);
  ThrowIfFailed(status, StrCat("@", exported.function, ": ", item.name, " exporter"));
  if (reader.failed()) {
    Throw(ErrorCode::kInternal, "@", exported.function, ": ", item.name, " exporter: ", reader.error());
  }
  exported.bytes = std::move(sink.bytes);
  return exported;
}

std::map<std::string, Tensor> ExportValues(const TensorFile& file) {
  std::map<std::string, Tensor> values;
  const bool checkpoint = file.metadata.count(Trainer::kCheckpointStepKey) != 0;
  for (const auto& [name, tensor] : file.tensors) {
    if (!checkpoint) values.emplace(name, tensor);
    else if (name.rfind("param/", 0) == 0 || name.rfind("state/", 0) == 0) values.emplace(name.substr(6), tensor);
  }
  return values;
}

}  // namespace rxt
