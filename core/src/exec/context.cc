#include "rxt/exec/context.h"

#include "rxt/support/error.h"

namespace rxt {

Context::Context(ContextOptions options) : options_(std::move(options)) {
  if (options_.num_threads < 0) {
    Throw(ErrorCode::kInvalidArgument, "context: num_threads is ", options_.num_threads,
          "; expected 0 (the process pool) or more");
  }
  if (options_.allocator && (options_.allocator->allocate == nullptr || options_.allocator->deallocate == nullptr)) {
    Throw(ErrorCode::kInvalidArgument, "context: an allocator needs both its allocate and deallocate functions");
  }
  own_host_ = std::make_unique<PluginHost>();
  host_ = own_host_.get();
  if (options_.log) host_->SetLogSink(options_.log);
  if (options_.num_threads > 0) pool_ = std::make_unique<ThreadPool>(options_.num_threads);
  for (const std::string& path : options_.plugins) host_->Load(path);
}

Context::Context(ProcessWide) : host_(&PluginHost::Global()) {}

Context& Context::Default() {
  static Context* context = new Context(ProcessWide{});  // never destroyed, like the global host
  return *context;
}

int Context::num_threads() const {
  return pool_ != nullptr ? pool_->num_threads() : ThreadPool::Current().num_threads();
}

void Context::Note(const std::string& message) const {
  if (!options_.log) return;
  try {
    options_.log(RXT_LOG_INFO, "rxt", message);
  } catch (...) {  // a failing log must not fail the build that noted something
  }
}

}  // namespace rxt
