// lion_check LION_PLUGIN: trains y = x w + b under MSE (sum) with the Lion plugin through an
// installed librxt (rxt.hpp) and checks every update against Lion's formula computed here in
// double precision:
//   c = beta1 m + (1 - beta1) g;  p' = p - lr (sign(c) + weight_decay p);  m' = beta2 m + (1 - beta2) g
// Also: the optimizer state's layout (lr, weight_decay, step, exp_avg.<i>), the learning rate
// as runtime state, the default options, option errors, and the plugin's side of the ABI
// version handshake (it declines a host older than plugin ABI 3). Prints what differs and
// exits 1.
#include <dlfcn.h>
#include <rxt/plugin.h>
#include <rxt/rxt.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int kRows = 4, kIn = 3, kOut = 2;

const char kBackbone[] = R"(attributes {param_num = 2, state_num = 0}
def @backbone(%x: Tensor((4, 3), float32), %w: Tensor((3, 2), float32), %b: Tensor((2,), float32))
    -> Tensor((4, 2), float32) {
  dataflow {
    %h = matmul(%x, %w)
    %out = add(%h, %b)
    output %out
  }
  return %out
})";

int failures = 0;

void Expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
    ++failures;
  }
}

/// A borrowed float32 view of |data|.
struct View {
  View(std::vector<float>& data, std::vector<int64_t> dims) : shape(std::move(dims)) {
    managed.dl_tensor.data = data.data();
    managed.dl_tensor.device = {kDLCPU, 0};
    managed.dl_tensor.ndim = static_cast<int32_t>(shape.size());
    managed.dl_tensor.dtype = {kDLFloat, 32, 1};
    managed.dl_tensor.shape = shape.data();
  }
  std::vector<int64_t> shape;
  DLManagedTensor managed{};
};

/// The elements of a contiguous float32 or int64 tensor, as doubles.
std::vector<double> Values(const rxt::abi::ManagedTensor& t) {
  const DLTensor& d = t->dl_tensor;
  int64_t n = 1;
  for (int i = 0; i < d.ndim; ++i) n *= d.shape[i];
  std::vector<double> out;
  for (int64_t i = 0; i < n; ++i) {
    if (d.dtype.code == kDLFloat && d.dtype.bits == 32) {
      out.push_back(static_cast<const float*>(d.data)[i]);
    } else if (d.dtype.code == kDLInt && d.dtype.bits == 64) {
      out.push_back(static_cast<double>(static_cast<const int64_t*>(d.data)[i]));
    } else {
      Expect(false, "unexpected dtype");
      return {};
    }
  }
  return out;
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  if (got.size() != want.size()) {
    Expect(false, what + ": " + std::to_string(got.size()) + " values, expected " + std::to_string(want.size()));
    return;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::fabs(got[i] - want[i]) > 1e-5 * (1 + std::fabs(want[i]))) {
      Expect(false, what + "[" + std::to_string(i) + "] = " + std::to_string(got[i]) + ", expected " +
                        std::to_string(want[i]));
    }
  }
}

struct Hyper {
  double lr, weight_decay, beta1, beta2;
};

/// The model and Lion's state in double precision.
struct Reference {
  std::vector<double> w, b, mw, mb;

  /// The loss before the update, after which the parameters and momenta are updated.
  double Step(const std::vector<float>& x, const std::vector<float>& t, const Hyper& h) {
    std::vector<double> dy(kRows * kOut), gw(kIn * kOut, 0), gb(kOut, 0);
    double loss = 0;
    for (int r = 0; r < kRows; ++r) {
      for (int o = 0; o < kOut; ++o) {
        double y = b[o];
        for (int i = 0; i < kIn; ++i) y += x[r * kIn + i] * w[i * kOut + o];
        double d = y - t[r * kOut + o];
        loss += d * d;
        dy[r * kOut + o] = 2 * d;  // d/dy of sum((y - t)^2)
      }
    }
    for (int r = 0; r < kRows; ++r) {
      for (int o = 0; o < kOut; ++o) {
        gb[o] += dy[r * kOut + o];
        for (int i = 0; i < kIn; ++i) gw[i * kOut + o] += x[r * kIn + i] * dy[r * kOut + o];
      }
    }
    Lion(w, mw, gw, h);
    Lion(b, mb, gb, h);
    return loss;
  }

  static void Lion(std::vector<double>& p, std::vector<double>& m, const std::vector<double>& g, const Hyper& h) {
    for (size_t i = 0; i < p.size(); ++i) {
      double c = h.beta1 * m[i] + (1 - h.beta1) * g[i];
      // float32 rounding must not flip a sign: the data keeps every c clear of 0.
      Expect(std::fabs(c) > 1e-4, "test data: c = " + std::to_string(c) + " is too close to 0");
      double sign = c > 0 ? 1 : -1;
      p[i] -= h.lr * (sign + h.weight_decay * p[i]);
      m[i] = h.beta2 * m[i] + (1 - h.beta2) * g[i];
    }
  }
};

std::vector<float> Floats(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

rxt::abi::TrainerOptions LionOptions(const std::string& options) {
  rxt::abi::TrainerOptions o;
  o.loss = "mse";
  o.loss_options = "reduction=\"sum\"";
  o.optimizer = "lion";
  o.optimizer_options = options;
  return o;
}

/// Every value of optimizer state |name|.
std::vector<double> OptimizerState(const rxt::abi::Trainer& trainer, const std::string& name) {
  return Values(trainer.Get(RXT_TRAINER_OPTIMIZER_STATE, name));
}

/// Steps with explicit options, a changed learning rate, and the state's layout.
void CheckUpdates(const rxt::abi::Module& module, std::vector<float>& x, std::vector<float>& t) {
  Hyper h{0.05, 0.5, 0.8, 0.95};
  rxt::abi::Trainer trainer = rxt::abi::Trainer::Create(module, LionOptions("lr=0.05, weight_decay=0.5, betas=[0.8, 0.95]"));

  std::vector<std::string> names;
  for (size_t i = 0; i < trainer.Count(RXT_TRAINER_OPTIMIZER_STATE); ++i) {
    names.push_back(trainer.Name(RXT_TRAINER_OPTIMIZER_STATE, i));
  }
  std::string layout;
  for (const std::string& n : names) layout += (layout.empty() ? "" : ", ") + n;
  Expect(layout == "lr, weight_decay, step, exp_avg.0, exp_avg.1", "optimizer state layout: " + layout);

  Reference ref{{0.1, -0.2, 0.3, 0.05, -0.15, 0.25}, {0.02, -0.01}, std::vector<double>(6, 0), std::vector<double>(2, 0)};
  std::vector<float> w = Floats(ref.w), b = Floats(ref.b);
  View wv(w, {kIn, kOut}), bv(b, {kOut}), xv(x, {kRows, kIn}), tv(t, {kRows, kOut});
  trainer.Set(RXT_TRAINER_PARAMS, "w", &wv.managed);
  trainer.Set(RXT_TRAINER_PARAMS, "b", &bv.managed);

  for (int step = 1; step <= 4; ++step) {
    if (step == 4) {  // the learning rate is runtime state: no rebuild, the next step uses it
      trainer.SetLearningRate(0.02);
      h.lr = 0.02;
    }
    std::string at = " after step " + std::to_string(step);
    double want_loss = ref.Step(x, t, h);
    double loss = trainer.Update({&xv.managed}, {&tv.managed});
    ExpectNear({loss}, {want_loss}, "loss" + at);
    ExpectNear(Values(trainer.Get(RXT_TRAINER_PARAMS, "w")), ref.w, "w" + at);
    ExpectNear(Values(trainer.Get(RXT_TRAINER_PARAMS, "b")), ref.b, "b" + at);
    ExpectNear(OptimizerState(trainer, "exp_avg.0"), ref.mw, "exp_avg.0" + at);
    ExpectNear(OptimizerState(trainer, "exp_avg.1"), ref.mb, "exp_avg.1" + at);
    ExpectNear(OptimizerState(trainer, "step"), {static_cast<double>(step)}, "state 'step'" + at);
  }
  ExpectNear(OptimizerState(trainer, "weight_decay"), {0.5}, "state 'weight_decay'");
}

/// Without options: lr 1e-4, weight decay 0, betas (0.9, 0.99).
void CheckDefaults(const rxt::abi::Module& module, std::vector<float>& x, std::vector<float>& t) {
  rxt::abi::Trainer trainer = rxt::abi::Trainer::Create(module, LionOptions(""));
  ExpectNear({trainer.LearningRate()}, {1e-4}, "default lr");
  ExpectNear(OptimizerState(trainer, "weight_decay"), {0}, "default weight_decay");
  Reference ref{{0.1, -0.2, 0.3, 0.05, -0.15, 0.25}, {0.02, -0.01}, std::vector<double>(6, 0), std::vector<double>(2, 0)};
  std::vector<float> w = Floats(ref.w), b = Floats(ref.b);
  View wv(w, {kIn, kOut}), bv(b, {kOut}), xv(x, {kRows, kIn}), tv(t, {kRows, kOut});
  trainer.Set(RXT_TRAINER_PARAMS, "w", &wv.managed);
  trainer.Set(RXT_TRAINER_PARAMS, "b", &bv.managed);
  Hyper h{1e-4, 0, 0.9, 0.99};
  for (int step = 1; step <= 2; ++step) {
    ref.Step(x, t, h);
    trainer.Update({&xv.managed}, {&tv.managed});
  }
  ExpectNear(Values(trainer.Get(RXT_TRAINER_PARAMS, "w")), ref.w, "w with default options");
  ExpectNear(OptimizerState(trainer, "exp_avg.0"), ref.mw, "exp_avg.0 with default options");
}

void ExpectOptionError(const rxt::abi::Module& module, const std::string& options, const std::string& message) {
  try {
    rxt::abi::Trainer::Create(module, LionOptions(options));
    Expect(false, "options '" + options + "' were accepted");
  } catch (const rxt::abi::Error& e) {
    Expect(std::string(e.what()).find(message) != std::string::npos,
           "options '" + options + "': message '" + e.what() + "' lacks '" + message + "'");
  }
}

std::string last_log;  // what the plugin logged through FakeHost

void FakeLog(rxt_host_t*, rxt_log_level_t, const char* message) { last_log = message; }

/// Calls the plugin's entry point as hosts of several plugin ABI versions would: a version-2
/// host is declined with a reason, version-3 and later hosts get a version-3 descriptor. The
/// fake host's status functions are the C ABI's, whose statuses are the same type.
void CheckAbiHandshake(const char* path) {
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  Expect(library != nullptr, std::string("dlopen: ") + (library == nullptr ? dlerror() : ""));
  if (library == nullptr) return;
  auto entry = reinterpret_cast<rxt_plugin_entry_fn_t>(dlsym(library, RXT_PLUGIN_ENTRY_SYMBOL));
  Expect(entry != nullptr, "no rxt_plugin_entry");
  if (entry != nullptr) {
    rxt_host_api_t host{};
    host.struct_size = sizeof(host);
    host.log = FakeLog;
    host.status_create = rxt_status_create;
    host.status_code = rxt_status_code;
    host.status_message = rxt_status_message;
    host.status_free = rxt_status_free;
    host.abi_version = 2;
    Expect(entry(2, &host) == nullptr, "the plugin accepted a host of plugin ABI version 2");
    Expect(last_log.find("plugin ABI version 3") != std::string::npos, "the reason to decline: '" + last_log + "'");
    for (uint32_t version : {3u, 4u}) {
      host.abi_version = version;
      const rxt_plugin_descriptor_t* d = entry(version, &host);
      Expect(d != nullptr && d->abi_version == 3 && std::string(d->name) == "lion" && d->num_optimizers == 1 &&
                 std::string(d->optimizers[0]->name) == "lion" && d->optimizers[0]->build != nullptr &&
                 d->num_losses == 0,
             "descriptor for a host of plugin ABI version " + std::to_string(version));
    }
  }
  dlclose(library);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: lion_check LION_PLUGIN.so\n");
    return 2;
  }
  try {
    rxt::abi::LoadPlugin(argv[1]);
    rxt::abi::Module module = rxt::abi::Module::Parse(kBackbone, "linear.rxt");
    std::vector<float> x = {0.5f, -1.2f, 0.3f, 0.8f, 0.1f, -0.7f, -0.4f, 0.9f, 1.1f, 0.2f, -0.3f, 0.6f};
    std::vector<float> t = {0.8f, 0.9f, 0.9f, 0.1f, -1.0f, -0.9f, 0.5f, 0.9f};  // keeps every |c| > 0.1
    CheckUpdates(module, x, t);
    CheckDefaults(module, x, t);
    ExpectOptionError(module, "betas=[0.9]", "option 'betas' must hold 2 numbers, got 1");
    ExpectOptionError(module, "lr=-1.0", "option 'lr' must be at least 0");
    ExpectOptionError(module, "nesterov=true", "nesterov");
    CheckAbiHandshake(argv[1]);
  } catch (const rxt::abi::Error& e) {
    std::fprintf(stderr, "FAILED: %s\n", e.what());
    return 1;
  }
  if (failures > 0) return 1;
  std::printf("lion_check: every update matches Lion's formula\n");
  return 0;
}
