// rxt.hpp: header-only C++ RAII over the C ABI (rxt.h). A status becomes an rxt::abi::Error
// exception, handles become move-only objects that release themselves, strings become
// std::string. It uses nothing but rxt.h, so it works against any librxt.so of the same ABI.
//
//   rxt::abi::Module m = rxt::abi::Module::Parse(text, "mlp.rxt");
//   int64_t params = m.GetInt("param_num");
//   rxt::abi::Module simplified = m.RunPasses({"DeadCodeElimination"});
//   std::cout << simplified.Print();
#pragma once

#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rxt/rxt.h"

namespace rxt::abi {

/// The error of a failed rxt call: its canonical code and message.
class Error : public std::runtime_error {
 public:
  Error(rxt_code_t code, const std::string& message) : std::runtime_error(message), code_(code) {}
  rxt_code_t code() const { return code_; }

 private:
  rxt_code_t code_;
};

/// Throws the status (freeing it) if it is not OK.
inline void Check(rxt_status_t status) {
  if (status == nullptr) return;
  Error error(rxt_status_code(status), rxt_status_message(status));
  rxt_status_free(status);
  throw error;
}

/// Takes ownership of a string returned by the ABI.
inline std::string TakeString(char* text) {
  std::string copy = text != nullptr ? text : "";
  rxt_string_free(text);
  return copy;
}

inline std::string Version() { return rxt_version(); }

struct NamedItem {
  std::string name;
  std::string summary;
};

struct PassOptions {
  int opt_level = 2;
  bool verify_each = false;
  std::vector<std::string> disabled;
  /// Pass options by "<PassName>.<option>", values in the grammar of --passes ("[w1, b1]").
  std::map<std::string, std::string> config;
};

namespace detail {

/// Collects a C listing into a vector; an exception in the visitor stops the listing and is
/// rethrown after it, so none unwinds through C frames.
struct NamedItemCollector {
  std::vector<NamedItem> items;
  std::exception_ptr error;
  static int Visit(void* self, const char* name, const char* summary) {
    auto* collector = static_cast<NamedItemCollector*>(self);
    try {
      collector->items.push_back({name, summary});
      return 0;
    } catch (...) {
      collector->error = std::current_exception();
      return 1;
    }
  }
  std::vector<NamedItem> Take() {
    if (error) std::rethrow_exception(error);
    return std::move(items);
  }
};

}  // namespace detail

/// An IR module handle. Move-only; Share() makes a second handle to the same module.
class Module {
 public:
  Module() = default;
  /// Takes over one reference of |handle|.
  static Module Adopt(rxt_module_t* handle) { return Module(handle); }
  static Module Parse(std::string_view text, const std::string& file_name = "<input>") {
    rxt_module_t* handle = nullptr;
    Check(rxt_module_parse(text.data(), text.size(), file_name.c_str(), &handle));
    return Module(handle);
  }

  /// A model of another format (".onnx") read by the importer plugin for its extension
  /// (rxt_module_import); the values it read go to |values_path| (safetensors) unless empty.
  static Module Import(const std::string& path, const std::string& options = "", const std::string& values_path = "",
                       rxt_context_t* context = nullptr) {
    rxt_module_t* handle = nullptr;
    Check(rxt_module_import(context, path.c_str(), options.c_str(), values_path.empty() ? nullptr : values_path.c_str(),
                            &handle));
    return Module(handle);
  }

  Module(Module&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Module& operator=(Module&& other) noexcept {
    if (this != &other) {
      rxt_module_release(handle_);
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module() { rxt_module_release(handle_); }

  /// A second handle to the same module (attribute changes are seen through both).
  Module Share() const { return Module(rxt_module_retain(handle_)); }
  rxt_module_t* get() const { return handle_; }
  /// Gives up ownership: the caller must release the returned handle.
  rxt_module_t* release() { return std::exchange(handle_, nullptr); }
  explicit operator bool() const { return handle_ != nullptr; }

  std::string Print() const {
    char* text = nullptr;
    Check(rxt_module_print(handle_, &text));
    return TakeString(text);
  }
  void Verify() const { Check(rxt_module_verify(handle_)); }
  /// Writes |function| (empty: a backbone's inference, else the only function) to |path| with the
  /// exporter plugin for its extension (rxt_module_export), values from |values_path| (empty: none).
  void Export(const std::string& path, const std::string& values_path = "", const std::string& function = "",
              const std::string& options = "", rxt_context_t* context = nullptr) const {
    Check(rxt_module_export(context, handle_, function.empty() ? nullptr : function.c_str(),
                            values_path.empty() ? nullptr : values_path.c_str(), path.c_str(), options.c_str()));
  }

  std::vector<std::string> AttrNames() const {
    size_t count = 0;
    Check(rxt_module_attr_count(handle_, &count));
    std::vector<std::string> names;
    for (size_t i = 0; i < count; ++i) {
      char* name = nullptr;
      Check(rxt_module_attr_name(handle_, i, &name));
      names.push_back(TakeString(name));
    }
    return names;
  }
  rxt_attr_kind_t AttrKind(const std::string& name) const {
    rxt_attr_kind_t kind = RXT_ATTR_NONE;
    Check(rxt_module_attr_kind(handle_, name.c_str(), &kind));
    return kind;
  }
  int64_t GetInt(const std::string& name) const {
    int64_t value = 0;
    Check(rxt_module_attr_get_int(handle_, name.c_str(), &value));
    return value;
  }
  double GetFloat(const std::string& name) const {
    double value = 0;
    Check(rxt_module_attr_get_float(handle_, name.c_str(), &value));
    return value;
  }
  std::string GetString(const std::string& name) const {
    char* value = nullptr;
    Check(rxt_module_attr_get_string(handle_, name.c_str(), &value));
    return TakeString(value);
  }
  void SetInt(const std::string& name, int64_t value) { Check(rxt_module_attr_set_int(handle_, name.c_str(), value)); }
  void SetFloat(const std::string& name, double value) {
    Check(rxt_module_attr_set_float(handle_, name.c_str(), value));
  }
  void SetString(const std::string& name, const std::string& value) {
    Check(rxt_module_attr_set_string(handle_, name.c_str(), value.c_str()));
  }

  /// Runs the named passes on a copy; this module is unchanged.
  Module RunPasses(const std::vector<std::string>& names, const PassOptions& options = {}) const {
    std::vector<const char*> name_ptrs, disabled_ptrs;
    for (const std::string& name : names) name_ptrs.push_back(name.c_str());
    for (const std::string& name : options.disabled) disabled_ptrs.push_back(name.c_str());
    rxt_pass_options_t c_options;
    rxt_pass_options_init(&c_options);
    c_options.opt_level = options.opt_level;
    c_options.verify_each = options.verify_each ? 1 : 0;
    c_options.disabled = disabled_ptrs.data();
    c_options.num_disabled = disabled_ptrs.size();
    std::vector<const char*> keys, values;
    for (const auto& [key, value] : options.config) {
      keys.push_back(key.c_str());
      values.push_back(value.c_str());
    }
    c_options.config_keys = keys.data();
    c_options.config_values = values.data();
    c_options.num_config = keys.size();
    rxt_module_t* result = nullptr;
    Check(rxt_module_run_passes(handle_, name_ptrs.data(), name_ptrs.size(), &c_options, &result));
    return Module(result);
  }

 private:
  explicit Module(rxt_module_t* handle) : handle_(handle) {}
  rxt_module_t* handle_ = nullptr;
};

inline std::vector<NamedItem> ListOps() {
  detail::NamedItemCollector collector;
  Check(rxt_ops_list(&detail::NamedItemCollector::Visit, &collector));
  return collector.Take();
}

inline std::vector<NamedItem> ListPasses() {
  detail::NamedItemCollector collector;
  Check(rxt_passes_list(&detail::NamedItemCollector::Visit, &collector));
  return collector.Take();
}

struct PluginInfo {
  std::string name, version, path;
  uint32_t abi_version = 0;
  size_t num_optimizers = 0, num_losses = 0, num_gradients = 0, num_backends = 0;
};

inline void LoadPlugin(const std::string& path) { Check(rxt_plugin_load(path.c_str())); }

inline std::vector<PluginInfo> ListPlugins() {
  struct Collector {
    std::vector<PluginInfo> plugins;
    std::exception_ptr error;
    static int Visit(void* self, const rxt_plugin_info_t* info) {
      auto* collector = static_cast<Collector*>(self);
      try {
        collector->plugins.push_back({info->name, info->version, info->path, info->abi_version,
                                      info->num_optimizers, info->num_losses, info->num_gradients,
                                      info->num_backends});
        return 0;
      } catch (...) {
        collector->error = std::current_exception();
        return 1;
      }
    }
  } collector;
  Check(rxt_plugins_list(&Collector::Visit, &collector));
  if (collector.error) std::rethrow_exception(collector.error);
  return std::move(collector.plugins);
}

inline std::vector<NamedItem> ListPluginItems(rxt_plugin_item_kind_t kind) {
  detail::NamedItemCollector collector;
  Check(rxt_plugin_items_list(kind, &detail::NamedItemCollector::Visit, &collector));
  return collector.Take();
}

/// Deletes a DLManagedTensor through its own deleter.
struct ManagedTensorDeleter {
  void operator()(DLManagedTensor* tensor) const {
    if (tensor != nullptr && tensor->deleter != nullptr) tensor->deleter(tensor);
  }
};
/// A tensor the VM handed out, owned.
using ManagedTensor = std::unique_ptr<DLManagedTensor, ManagedTensorDeleter>;

namespace detail {

/// A move-only owner of one reference of a C handle.
template <typename T, T* (*Retain)(T*), void (*Release)(T*)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(T* handle) : handle_(handle) {}
  Handle(Handle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      Release(handle_);
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { Release(handle_); }

  T* get() const { return handle_; }
  /// Gives up ownership: the caller must release the returned handle.
  T* release() { return std::exchange(handle_, nullptr); }
  explicit operator bool() const { return handle_ != nullptr; }

 protected:
  T* Retained() const { return Retain(handle_); }
  T* handle_ = nullptr;
};

}  // namespace detail

/// Options of Context::Create (see rxt_context_options_t).
struct ContextOptions {
  int num_threads = 0;  // 0: the process pool
  std::vector<std::string> plugins;
  bool search_path = true;
  rxt_log_fn_t log = nullptr;
  void* log_user_data = nullptr;
};

/// A context: plugins, kernel threads and log of its own (see rxt_context_t). Move-only; what
/// is made in it keeps it alive.
class Context : public detail::Handle<rxt_context_t, rxt_context_retain, rxt_context_release> {
 public:
  Context() = default;
  static Context Create(const ContextOptions& options = {}) {
    std::vector<const char*> plugins;
    for (const std::string& path : options.plugins) plugins.push_back(path.c_str());
    rxt_context_options_t c;
    rxt_context_options_init(&c);
    c.num_threads = options.num_threads;
    c.search_path = options.search_path ? 1 : 0;
    c.plugins = plugins.data();
    c.num_plugins = plugins.size();
    c.log = options.log;
    c.log_user_data = options.log_user_data;
    rxt_context_t* handle = nullptr;
    Check(rxt_context_create(&c, &handle));
    return Context(handle);
  }
  void LoadPlugin(const std::string& path) { Check(rxt_context_load_plugin(get(), path.c_str())); }
  int NumThreads() const {
    int32_t n = 0;
    Check(rxt_context_num_threads(get(), &n));
    return n;
  }

 private:
  explicit Context(rxt_context_t* handle) : Handle(handle) {}
};

/// An executable handle (VM bytecode built for one backend). Move-only.
class Executable : public detail::Handle<rxt_executable_t, rxt_executable_retain, rxt_executable_release> {
 public:
  Executable() = default;
  static Executable Adopt(rxt_executable_t* handle) { return Executable(handle); }
  /// Legalizes and compiles |module| for |backend|.
  static Executable Build(const Module& module, const std::string& backend = "reference") {
    rxt_executable_t* handle = nullptr;
    Check(rxt_executable_build(module.get(), backend.c_str(), &handle));
    return Executable(handle);
  }
  static Executable Load(const std::string& path) {
    rxt_executable_t* handle = nullptr;
    Check(rxt_executable_load(path.c_str(), &handle));
    return Executable(handle);
  }
  void Save(const std::string& path) const { Check(rxt_executable_save(get(), path.c_str())); }
  std::string Backend() const { return rxt_executable_backend(get()); }
  /// A second handle to the same executable.
  Executable Share() const { return Executable(Retained()); }

 private:
  explicit Executable(rxt_executable_t* handle) : Handle(handle) {}
};

/// A virtual machine over an executable. Move-only; one call at a time.
class Vm : public detail::Handle<rxt_vm_t, rxt_vm_retain, rxt_vm_release> {
 public:
  Vm() = default;
  /// |backend| empty: the executable's (or "reference").
  explicit Vm(const Executable& executable, const std::string& backend = "") {
    Check(rxt_vm_create(executable.get(), backend.empty() ? nullptr : backend.c_str(), &handle_));
  }
  /// A VM of |context|: its backends, extern functions, threads and allocator.
  Vm(const Context& context, const Executable& executable, const std::string& backend = "") {
    Check(rxt_vm_create_in_context(context.get(), executable.get(), backend.empty() ? nullptr : backend.c_str(),
                                   &handle_));
  }

  /// Calls |function| with borrowed inputs; one output per tensor of the result (a tuple gives
  /// several).
  std::vector<ManagedTensor> Invoke(const std::string& function, const std::vector<DLManagedTensor*>& inputs) {
    std::vector<DLManagedTensor*> outputs(1, nullptr);
    size_t count = 0;
    rxt_status_t status =
        rxt_vm_invoke(handle_, function.c_str(), inputs.data(), inputs.size(), outputs.data(), outputs.size(), &count);
    if (status != nullptr && rxt_status_code(status) == RXT_OUT_OF_RANGE && count > outputs.size()) {
      rxt_status_free(status);
      outputs.assign(count, nullptr);
      status = rxt_vm_invoke(handle_, function.c_str(), inputs.data(), inputs.size(), outputs.data(), outputs.size(),
                             &count);
    }
    Check(status);
    std::vector<ManagedTensor> results;
    for (size_t i = 0; i < count; ++i) results.emplace_back(outputs[i]);
    return results;
  }
  void SetProfiling(bool on) { Check(rxt_vm_set_profiling(handle_, on ? 1 : 0)); }
  std::string Profile() const {
    char* text = nullptr;
    Check(rxt_vm_profile(handle_, &text));
    return TakeString(text);
  }
};

/// Registers a C function as an external function (see rxt_extern_register).
inline void RegisterExtern(const std::string& name, rxt_extern_fn_t function, void* user_data = nullptr,
                           bool replace = false) {
  Check(rxt_extern_register(name.c_str(), function, user_data, replace ? 1 : 0));
}
inline void RemoveExtern(const std::string& name) { Check(rxt_extern_remove(name.c_str())); }

/// Options of Trainer::Create (see rxt_trainer_options_t).
struct TrainerOptions {
  std::string backend = "reference";
  std::string loss, loss_options;            // for a backbone module
  std::string optimizer, optimizer_options;  // for a backbone module
  int opt_level = 2;
  std::string libraries;  // "" : the backend's default; "none"; or "dnnl,..."
  const Context* context = nullptr;  // null: the default context
};

/// A trainer: parameters, states and optimizer state resident, one VM call per update.
/// Move-only. Tensors go in borrowed (copied) and come out owned.
class Trainer : public detail::Handle<rxt_trainer_t, rxt_trainer_retain, rxt_trainer_release> {
 public:
  Trainer() = default;
  static Trainer Create(const Module& module, const TrainerOptions& options = {}) {
    rxt_trainer_options_t c;
    rxt_trainer_options_init(&c);
    c.backend = options.backend.c_str();
    c.loss = options.loss.empty() ? nullptr : options.loss.c_str();
    c.loss_options = options.loss_options.c_str();
    c.optimizer = options.optimizer.empty() ? nullptr : options.optimizer.c_str();
    c.optimizer_options = options.optimizer_options.c_str();
    c.opt_level = options.opt_level;
    c.libraries = options.libraries.empty() ? nullptr : options.libraries.c_str();
    c.context = options.context != nullptr ? options.context->get() : nullptr;
    rxt_trainer_t* handle = nullptr;
    Check(rxt_trainer_create(module.get(), &c, &handle));
    return Trainer(handle);
  }

  size_t Count(rxt_trainer_tensors_t kind) const {
    size_t count = 0;
    Check(rxt_trainer_count(get(), kind, &count));
    return count;
  }
  std::string Name(rxt_trainer_tensors_t kind, size_t index) const {
    char* name = nullptr;
    Check(rxt_trainer_name(get(), kind, index, &name));
    return TakeString(name);
  }
  size_t Find(rxt_trainer_tensors_t kind, const std::string& name) const {
    size_t index = 0;
    Check(rxt_trainer_find(get(), kind, name.c_str(), &index));
    return index;
  }
  ManagedTensor Get(rxt_trainer_tensors_t kind, size_t index) const {
    DLManagedTensor* tensor = nullptr;
    Check(rxt_trainer_get(get(), kind, index, &tensor));
    return ManagedTensor(tensor);
  }
  ManagedTensor Get(rxt_trainer_tensors_t kind, const std::string& name) const {
    DLManagedTensor* tensor = nullptr;
    Check(rxt_trainer_get_by_name(get(), kind, name.c_str(), &tensor));
    return ManagedTensor(tensor);
  }
  void Set(rxt_trainer_tensors_t kind, size_t index, const DLManagedTensor* tensor) {
    Check(rxt_trainer_set(get(), kind, index, tensor));
  }
  void Set(rxt_trainer_tensors_t kind, const std::string& name, const DLManagedTensor* tensor) {
    Check(rxt_trainer_set_by_name(get(), kind, name.c_str(), tensor));
  }

  void InitXavierUniform(uint64_t seed) { Check(rxt_trainer_init_xavier_uniform(get(), seed)); }
  void InitZero(rxt_trainer_tensors_t kind) { Check(rxt_trainer_init_zero(get(), kind)); }

  std::vector<ManagedTensor> Predict(const std::vector<DLManagedTensor*>& inputs) {
    size_t count = 0;
    Check(rxt_trainer_num_outputs(get(), &count));
    std::vector<DLManagedTensor*> outputs(count, nullptr);
    Check(rxt_trainer_predict(get(), inputs.data(), inputs.size(), outputs.data(), outputs.size(), &count));
    std::vector<ManagedTensor> results;
    for (size_t i = 0; i < count; ++i) results.emplace_back(outputs[i]);
    return results;
  }
  double Update(const std::vector<DLManagedTensor*>& inputs, const std::vector<DLManagedTensor*>& targets) {
    double loss = 0;
    Check(rxt_trainer_update(get(), inputs.data(), inputs.size(), targets.data(), targets.size(), &loss));
    return loss;
  }
  double Evaluate(const std::vector<DLManagedTensor*>& inputs, const std::vector<DLManagedTensor*>& targets) {
    double loss = 0;
    Check(rxt_trainer_evaluate(get(), inputs.data(), inputs.size(), targets.data(), targets.size(), &loss));
    return loss;
  }
  int64_t Step() const {
    int64_t step = 0;
    Check(rxt_trainer_step(get(), &step));
    return step;
  }

  double LearningRate() const {
    double lr = 0;
    Check(rxt_trainer_learning_rate(get(), &lr));
    return lr;
  }
  void SetLearningRate(double lr) { Check(rxt_trainer_set_learning_rate(get(), lr)); }
  void SetSchedule(const std::string& schedule, double base_lr) {
    Check(rxt_trainer_set_schedule(get(), schedule.c_str(), base_lr));
  }

  void SaveCheckpoint(const std::string& path) const { Check(rxt_trainer_save_checkpoint(get(), path.c_str())); }
  void LoadCheckpoint(const std::string& path) { Check(rxt_trainer_load_checkpoint(get(), path.c_str())); }
  /// A trainer file (rxt_trainer_save / rxt_trainer_load).
  void Save(const std::string& path) const { Check(rxt_trainer_save(get(), path.c_str())); }
  static Trainer Load(const std::string& path, const Context* context = nullptr) {
    rxt_trainer_t* handle = nullptr;
    Check(rxt_trainer_load(path.c_str(), context != nullptr ? context->get() : nullptr, &handle));
    return Trainer(handle);
  }

  std::string ProfileStep(const std::vector<DLManagedTensor*>& inputs, const std::vector<DLManagedTensor*>& targets) {
    char* text = nullptr;
    Check(rxt_trainer_profile_step(get(), inputs.data(), inputs.size(), targets.data(), targets.size(), &text));
    return TakeString(text);
  }
  /// A second handle to the same trainer.
  Trainer Share() const { return Trainer(Retained()); }

 private:
  explicit Trainer(rxt_trainer_t* handle) : Handle(handle) {}
};

}  // namespace rxt::abi
