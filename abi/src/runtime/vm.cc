// The VM across the ABI: create from an executable and a backend, invoke with DLPack tensors,
// profile.
#include "handles.h"
#include "rxt/runtime/dlpack.h"

namespace {

rxt::Value ToArgument(const std::string& function, size_t index, const DLManagedTensor* input) {
  if (input == nullptr) {
    rxt::Throw(rxt::ErrorCode::kInvalidArgument, function, ": argument ", index, " is NULL");
  }
  const DLTensor& dl = input->dl_tensor;
  if (dl.device.device_type != kDLCPU) {
    rxt::Throw(rxt::ErrorCode::kInvalidArgument, function, ": argument ", index,
               ": expected a CPU tensor (device type ", static_cast<int>(kDLCPU), "), got device type ",
               static_cast<int>(dl.device.device_type));
  }
  try {
    // Read in place when the layout allows: the call is synchronous and the VM never writes
    // its arguments (results are copied out below).
    return rxt::Value(rxt::BorrowFromDLTensor(dl));
  } catch (const rxt::Error& e) {
    rxt::Throw(e.code(), function, ": argument ", index, ": ", e.what());
  }
}

void Flatten(const rxt::Value& value, const std::string& function, std::vector<rxt::Tensor>& tensors) {
  if (value.is_tensor()) {
    tensors.push_back(value.tensor());
  } else if (value.is_tuple()) {
    for (const rxt::Value& field : value.tuple()) Flatten(field, function, tensors);
  } else {
    rxt::Throw(rxt::ErrorCode::kUnimplemented, function, " returned ", value.Describe(),
               ": only tensors and tuples of tensors cross the C ABI");
  }
}

/// The tensors of a tuple parameter (the seed's optimizer takes Tuple(params), Tuple(grads),
/// Tuple(states)) as a tuple value, taken in order from |flat|, nested tuples too.
rxt::Value Group(const rxt::TypePattern& pattern, std::vector<rxt::Value>& flat, size_t& next) {
  if (pattern.kind != rxt::TypePattern::Kind::kTuple) return next < flat.size() ? flat[next++] : rxt::Value();
  std::vector<rxt::Value> fields;
  for (const rxt::TypePattern& field : pattern.fields) fields.push_back(Group(field, flat, next));
  return rxt::Value::Tuple(std::move(fields));
}

/// Count of tensors a parameter of |pattern| takes: 1, or its tuple's leaves.
size_t Leaves(const rxt::TypePattern& pattern) {
  if (pattern.kind != rxt::TypePattern::Kind::kTuple) return 1;
  size_t n = 0;
  for (const rxt::TypePattern& field : pattern.fields) n += Leaves(field);
  return n;
}

/// |flat| as the function's arguments: a tuple parameter takes as many tensors as its fields
/// (rxt_vm_invoke's inputs are tensors only). Without tuple parameters, |flat| as it is.
std::vector<rxt::Value> GroupTupleArguments(const rxt::Executable& exec, const std::string& function,
                                            std::vector<rxt::Value> flat) {
  int index = exec.FindFunction(function);
  if (index < 0) return flat;  // the VM names the missing function
  const rxt::VMFunction& f = exec.functions[index];
  size_t num_params = static_cast<size_t>(f.num_params()), needed = 0;
  bool tuples = false;
  for (size_t p = 0; p < num_params && p < f.patterns.size(); ++p) {
    tuples = tuples || f.patterns[p].kind == rxt::TypePattern::Kind::kTuple;
    needed += Leaves(f.patterns[p]);
  }
  if (!tuples) return flat;
  if (flat.size() != needed) {
    rxt::Throw(rxt::ErrorCode::kInvalidArgument, function, " takes ", needed, " tensors (its ", num_params,
               " parameters, tuples flattened), got ", flat.size());
  }
  std::vector<rxt::Value> args;
  size_t next = 0;
  for (size_t p = 0; p < num_params; ++p) args.push_back(Group(f.patterns[p], flat, next));
  return args;
}

/// A VM of |context| (NULL: the default one) that holds a reference to it.
rxt_vm_t* CreateVM(rxt_context_t* context, const rxt_executable_t& executable, const char* backend) {
  auto handle = std::make_unique<rxt_vm_s>();
  handle->context = std::make_unique<rxt::abi_impl::ContextReference>(context);
  rxt::abi_impl::CreateVM(handle->context->get(), executable.executable, backend != nullptr ? backend : "", *handle);
  return handle.release();
}

}  // namespace

extern "C" {

rxt_status_t rxt_vm_create(const rxt_executable_t* executable, const char* backend, rxt_vm_t** out_vm) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(executable);
  RXT_CHECK_ARG(out_vm);
  *out_vm = CreateVM(nullptr, *executable, backend);
  RXT_API_END();
}

rxt_status_t rxt_vm_create_in_context(rxt_context_t* context, const rxt_executable_t* executable, const char* backend,
                                      rxt_vm_t** out_vm) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(context);
  RXT_CHECK_ARG(executable);
  RXT_CHECK_ARG(out_vm);
  *out_vm = CreateVM(context, *executable, backend);
  RXT_API_END();
}

rxt_vm_t* rxt_vm_retain(rxt_vm_t* vm) {
  if (vm != nullptr) vm->references.fetch_add(1, std::memory_order_relaxed);
  return vm;
}

void rxt_vm_release(rxt_vm_t* vm) {
  if (vm != nullptr && vm->references.fetch_sub(1, std::memory_order_acq_rel) == 1) delete vm;
}

rxt_status_t rxt_vm_invoke(rxt_vm_t* vm, const char* function, DLManagedTensor* const* inputs, size_t num_inputs,
                           DLManagedTensor** outputs, size_t capacity, size_t* out_num_outputs) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(vm);
  RXT_CHECK_ARG(function);
  if (num_inputs > 0) RXT_CHECK_ARG(inputs);
  if (capacity > 0) RXT_CHECK_ARG(outputs);
  std::vector<rxt::Value> flat;
  flat.reserve(num_inputs);
  for (size_t i = 0; i < num_inputs; ++i) flat.push_back(ToArgument(function, i, inputs[i]));
  std::vector<rxt::Value> args = GroupTupleArguments(vm->vm->executable(), function, std::move(flat));

  std::vector<rxt::Tensor> results;
  Flatten(vm->vm->Invoke(function, args), function, results);
  if (out_num_outputs != nullptr) *out_num_outputs = results.size();
  if (results.size() > capacity) {
    rxt::Throw(rxt::ErrorCode::kOutOfRange, function, " returned ", results.size(), " tensor",
               results.size() == 1 ? "" : "s", ", more than the ", capacity, " outputs given");
  }
  // Copies: a result may share storage with a constant or an input the caller must not change.
  std::vector<DLManagedTensor*> handed_out;
  try {
    for (const rxt::Tensor& tensor : results) {
      handed_out.push_back(rxt::ToDLPack(rxt::CopyFromDLTensor(rxt::ToDLTensorView(tensor))));
    }
  } catch (...) {
    for (DLManagedTensor* managed : handed_out) managed->deleter(managed);
    throw;
  }
  for (size_t i = 0; i < handed_out.size(); ++i) outputs[i] = handed_out[i];
  RXT_API_END();
}

rxt_status_t rxt_vm_set_profiling(rxt_vm_t* vm, int on) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(vm);
  vm->vm->SetProfiling(on != 0);
  RXT_API_END();
}

rxt_status_t rxt_vm_profile(const rxt_vm_t* vm, char** out_text) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(vm);
  RXT_CHECK_ARG(out_text);
  *out_text = rxt::abi_impl::CopyString(vm->vm->GetProfile().Format());
  RXT_API_END();
}

}  // extern "C"
