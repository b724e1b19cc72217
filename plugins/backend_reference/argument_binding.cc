// Binding a call's arguments to the kernel's parameters, like TVM's match_buffer, with the rules
// (and messages) every backend shares: rxt/plugin_support/kernel_binding.h, which the compiled backends and the
// AOT runtime use too, so a bad argument fails the same way on each. Here the KernelArgs become
// the DLTensors the binder takes (a scalar: a 0-d int64 or float64 tensor), and the bound values
// fill the interpreter's frame.
#include "reference_interpreter.h"

namespace rxt::backend_reference {

void ReferenceInterpreter::BindArguments(const std::vector<KernelArg>& args, Frame& frame) const {
  const size_t n = args.size();
  std::vector<DLTensor> scalars(n);
  std::vector<int64_t> ints(n);
  std::vector<double> floats(n);
  std::vector<const DLTensor*> tensors(n, nullptr);
  for (size_t i = 0; i < n; ++i) {
    const KernelArg& arg = args[i];
    bool scalar_param = i < kernel_.params.size() && kernel_.params[i].kind == kf::ParamKind::kScalar;
    if (arg.kind == KernelArg::Kind::kTensor) {
      if (scalar_param) {
        const kf::Var& var = kernel_.vars[kernel_.params[i].index];
        throw KernelError("parameter " + std::to_string(i) + " (" + var.name + ": " + kf::DTypeName(var.dtype) +
                          "): expected a scalar but got a tensor");
      }
      tensors[i] = arg.tensor;
      if (arg.tensor == nullptr && i < kernel_.params.size()) {
        throw KernelError(binder_.BufferWhat(static_cast<int32_t>(i)) + ": expected a tensor");
      }
      continue;
    }
    if (!scalar_param && i < kernel_.params.size()) {
      throw KernelError(binder_.BufferWhat(static_cast<int32_t>(i)) + ": expected a tensor");
    }
    DLTensor& t = scalars[i];
    t.device = {kDLCPU, 0};
    t.ndim = 0;
    if (arg.kind == KernelArg::Kind::kInt) {
      ints[i] = arg.int_value;
      t.data = &ints[i];
      t.dtype = {kDLInt, 64, 1};
    } else {
      floats[i] = arg.float_value;
      t.data = &floats[i];
      t.dtype = {kDLFloat, 64, 1};
    }
    tensors[i] = &t;
  }

  plugin_support::kernel_binding::BoundCall call = binder_.NewCall();
  std::string error;
  if (!binder_.Bind(tensors.data(), static_cast<int>(n), call, error)) throw KernelError(error);

  for (size_t v = 0; v < kernel_.vars.size(); ++v) {
    kf::DType dtype = kernel_.vars[v].dtype;
    frame.vars[v] = kf::IsFloat(dtype) ? MakeFloat(dtype, call.float_vars[v]) : MakeInt(dtype, call.int_vars[v]);
  }
  for (const kf::Param& param : kernel_.params) {
    if (param.kind != kf::ParamKind::kBuffer) continue;
    const DLTensor& t = *tensors[&param - kernel_.params.data()];
    BufferView view;
    view.data = static_cast<uint8_t*>(call.buffers[param.index]);
    view.shape.assign(t.shape, t.shape + t.ndim);
    view.strides.resize(t.ndim);
    for (int d = t.ndim; d-- > 0;) {
      view.strides[d] = t.strides ? t.strides[d] : (d + 1 == t.ndim ? 1 : view.strides[d + 1] * view.shape[d + 1]);
    }
    frame.buffers[param.index] = std::move(view);
  }
}

}  // namespace rxt::backend_reference
