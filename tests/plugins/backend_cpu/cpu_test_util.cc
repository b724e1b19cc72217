#include "cpu_test_util.h"

#include <cmath>
#include <cstring>
#include <map>
#include <random>

#include "half_float.h"
#include "rxt/runtime/thread_pool.h"

namespace rxt::backend_cpu::testing {

namespace ref = ::rxt::backend_reference;

JitCompiler& TestJit() {
  static JitCompiler* jit = new JitCompiler();
  return *jit;
}

const rxt_kernel_runtime_t* PoolRuntime(int threads) {
  static std::vector<std::unique_ptr<ThreadPool>>* pools = new std::vector<std::unique_ptr<ThreadPool>>();
  for (const auto& pool : *pools) {
    if (pool->num_threads() == threads) return &pool->runtime();
  }
  pools->push_back(std::make_unique<ThreadPool>(threads));
  return &pools->back()->runtime();
}

plugin_support::kernel_format::Kernel DecodeKernelText(const std::string& text, const std::string& name) {
  IRModule module = ParseModule(text, name + ".rxt");
  std::vector<uint8_t> bytes = EncodeKernel(module.GetKernel(name), name);
  plugin_support::kernel_format::DecodeResult r = plugin_support::kernel_format::DecodeKernel(bytes.data(), bytes.size());
  EXPECT_TRUE(r.ok()) << r.error;
  return r.kernel;
}

std::unique_ptr<CpuKernel> CompileCpu(const std::string& text, const std::string& name) {
  IRModule module = ParseModule(text, name + ".rxt");
  std::vector<uint8_t> bytes = EncodeKernel(module.GetKernel(name), name);
  return CpuKernel::Load(TestJit(), bytes.data(), bytes.size());
}

std::string CallCpu(CpuKernel& kernel, const std::vector<DLTensor*>& args, const rxt_kernel_runtime_t* runtime) {
  std::string error;
  rxt_code_t code = kernel.Call(args.data(), static_cast<int>(args.size()), runtime, error);
  return code == RXT_OK ? "" : error;
}

namespace {

/// A 0-d int64 or float64 tensor: how a scalar argument reaches a backend.
struct ScalarTensor {
  union {
    int64_t i;
    double f;
  } value{};
  DLTensor tensor{};
  explicit ScalarTensor(const ArgSpec& spec) {
    tensor.device = {kDLCPU, 0};
    tensor.ndim = 0;
    if (spec.kind == ArgSpec::Kind::kFloat) {
      value.f = spec.float_value;
      tensor.dtype = {kDLFloat, 64, 1};
    } else {
      value.i = spec.int_value;
      tensor.dtype = {kDLInt, 64, 1};
    }
    tensor.data = &value;
  }
};

void Fill(HostTensor& t, const DLDataType& dtype, std::mt19937& rng, const AgreeOptions& o) {
  std::uniform_real_distribution<double> real(o.lo, o.hi);
  const double specials[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0, 0.5};
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v = real(rng);
    if (o.special_floats && rng() % 4 == 0) v = specials[rng() % 8];
    if (dtype.code == kDLFloat || dtype.code == kDLBfloat) {
      if (dtype.code == kDLBfloat) {
        t.flat<uint16_t>(i) = ref::FloatToBFloat16Bits(static_cast<float>(v));
      } else if (dtype.bits == 16) {
        t.flat<uint16_t>(i) = ref::FloatToHalfBits(static_cast<float>(v));
      } else if (dtype.bits == 32) {
        t.flat<float>(i) = static_cast<float>(v);
      } else {
        t.flat<double>(i) = v;
      }
      continue;
    }
    int64_t n = o.full_int_range ? static_cast<int64_t>(rng()) << 32 | rng() : static_cast<int64_t>(std::floor(v));
    switch (dtype.bits) {
      case 8: t.flat<uint8_t>(i) = static_cast<uint8_t>(n); break;
      case 16: t.flat<int16_t>(i) = static_cast<int16_t>(n); break;
      case 32: t.flat<int32_t>(i) = static_cast<int32_t>(n); break;
      default: t.flat<int64_t>(i) = n; break;
    }
  }
}

bool IsNanBits(const DLDataType& d, const uint8_t* p) {
  if (d.code == kDLBfloat) {
    uint16_t b;
    std::memcpy(&b, p, 2);
    return (b & 0x7f80) == 0x7f80 && (b & 0x7f) != 0;
  }
  if (d.code != kDLFloat) return false;
  if (d.bits == 16) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0;
  }
  if (d.bits == 32) {
    float f;
    std::memcpy(&f, p, 4);
    return std::isnan(f);
  }
  double x;
  std::memcpy(&x, p, 8);
  return std::isnan(x);
}

double AsDouble(const DLDataType& d, const uint8_t* p) {
  if (d.code == kDLBfloat) {
    uint16_t b;
    std::memcpy(&b, p, 2);
    return ref::BFloat16BitsToFloat(b);
  }
  if (d.code == kDLFloat && d.bits == 16) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return ref::HalfBitsToFloat(h);
  }
  if (d.code == kDLFloat && d.bits == 32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  if (d.code == kDLFloat) {
    double x;
    std::memcpy(&x, p, 8);
    return x;
  }
  int64_t v = 0;
  if (d.bits == 8) v = d.code == kDLUInt ? *p : static_cast<int8_t>(*p);
  if (d.bits == 16) v = *reinterpret_cast<const int16_t*>(p);
  if (d.bits == 32) v = *reinterpret_cast<const int32_t*>(p);
  if (d.bits == 64) v = *reinterpret_cast<const int64_t*>(p);
  return static_cast<double>(v);
}

// Offset (in elements) of element |e| in row-major order of |t|'s shape, through its strides.
int64_t ElementOffset(const DLTensor& t, int64_t e) {
  int64_t offset = 0;
  for (int dim = t.ndim; dim-- > 0;) {
    int64_t stride = 1;
    if (t.strides) {
      stride = t.strides[dim];
    } else {
      for (int k = dim + 1; k < t.ndim; ++k) stride *= t.shape[k];
    }
    offset += (e % t.shape[dim]) * stride;
    e /= t.shape[dim];
  }
  return offset;
}

// Every byte |from| spans (gaps between strided elements too) into |to| of the same layout.
void CopyBytes(const DLTensor& from, const DLTensor& to) {
  int64_t span = 1;
  for (int d = 0; d < from.ndim; ++d) {
    if (from.shape[d] == 0) return;
    span += (from.shape[d] - 1) * (from.strides ? from.strides[d] : 0);
  }
  if (!from.strides) {
    span = 1;
    for (int d = 0; d < from.ndim; ++d) span *= from.shape[d];
  }
  std::memcpy(to.data, from.data, static_cast<size_t>(span) * from.dtype.bits / 8);
}

}  // namespace

void ExpectAgree(const std::string& text, const std::string& name, const std::vector<ArgSpec>& args,
                 const AgreeOptions& options) {
  // Compiled once per kernel text: tests run the same kernel on many inputs.
  static auto* compiled = new std::map<std::string, std::pair<ref::ReferenceInterpreter, std::unique_ptr<CpuKernel>>>();
  auto it = compiled->find(name + "\n" + text);
  if (it == compiled->end()) {
    it = compiled->emplace(name + "\n" + text, std::make_pair(ref::testing::Compile(text, name), CompileCpu(text, name))).first;
  }
  const ref::ReferenceInterpreter& reference = it->second.first;
  CpuKernel& cpu = *it->second.second;
  std::vector<std::unique_ptr<HostTensor>> ref_tensors, cpu_tensors;
  std::vector<std::unique_ptr<ScalarTensor>> scalars;
  std::vector<ref::KernelArg> ref_args;
  std::vector<DLTensor*> cpu_args;
  std::mt19937 rng(options.seed);
  for (const ArgSpec& a : args) {
    if (a.kind != ArgSpec::Kind::kTensor) {
      ref_args.push_back(a.kind == ArgSpec::Kind::kInt ? ref::KernelArg::Int(a.int_value)
                                                      : ref::KernelArg::Float(a.float_value));
      scalars.push_back(std::make_unique<ScalarTensor>(a));
      cpu_args.push_back(&scalars.back()->tensor);
      continue;
    }
    ref_tensors.push_back(std::make_unique<HostTensor>(a.shape, a.dtype, a.strides));
    cpu_tensors.push_back(std::make_unique<HostTensor>(a.shape, a.dtype, a.strides));
    Fill(*ref_tensors.back(), a.dtype, rng, options);
    CopyBytes(*ref_tensors.back()->dl(), *cpu_tensors.back()->dl());
    ref_args.push_back(ref_tensors.back()->arg());
    cpu_args.push_back(cpu_tensors.back()->dl());
  }

  std::string ref_error;
  try {
    reference.Run(ref_args);
  } catch (const ref::KernelError& e) {
    ref_error = e.what();
  }
  std::string cpu_error = CallCpu(cpu, cpu_args, PoolRuntime(options.threads));
  if (!ref_error.empty() || !cpu_error.empty()) {
    EXPECT_FALSE(ref_error.empty()) << "only the CPU backend failed: " << cpu_error;
    EXPECT_FALSE(cpu_error.empty()) << "only the reference failed: " << ref_error;
    EXPECT_NE(ref_error.find(cpu_error), std::string::npos) << "reference: " << ref_error << "\ncpu: " << cpu_error;
    return;
  }
  for (size_t i = 0; i < ref_tensors.size(); ++i) {
    const DLDataType d = ref_tensors[i]->dl()->dtype;
    const size_t bytes = d.bits / 8;
    int differences = 0;
    for (int64_t e = 0; e < ref_tensors[i]->numel(); ++e) {
      int64_t offset = ElementOffset(*ref_tensors[i]->dl(), e);
      const uint8_t* a = static_cast<const uint8_t*>(ref_tensors[i]->dl()->data) + offset * bytes;
      const uint8_t* b = static_cast<const uint8_t*>(cpu_tensors[i]->dl()->data) + offset * bytes;
      bool same = std::memcmp(a, b, bytes) == 0 || (IsNanBits(d, a) && IsNanBits(d, b));
      if (!same && differences++ < 8) {
        ADD_FAILURE() << "kernel " << name << ": tensor " << i << " element " << e << ": reference " << AsDouble(d, a)
                      << ", cpu " << AsDouble(d, b);
      }
    }
  }
}

}  // namespace rxt::backend_cpu::testing
