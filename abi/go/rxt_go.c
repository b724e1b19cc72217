/* C helpers of the Go binding: rxt_go.h says why each exists. */
#include "rxt_go.h"

void rxt_go_delete(DLManagedTensor* tensor) {
  if (tensor != NULL && tensor->deleter != NULL) tensor->deleter(tensor);
}

/* ---- Go memory during one call --------------------------------------------------------------- */

static void attach(DLManagedTensor* const* args, size_t count, void* const* data) {
  for (size_t i = 0; i < count && i < RXT_GO_DIRECT; ++i) {
    if (data[i] != NULL) args[i]->dl_tensor.data = data[i];
  }
}

/* After the call no C memory may keep a Go pointer. */
static void detach(DLManagedTensor* const* args, size_t count, void* const* data) {
  for (size_t i = 0; i < count && i < RXT_GO_DIRECT; ++i) {
    if (data[i] != NULL) args[i]->dl_tensor.data = NULL;
  }
}

#define RXT_GO_DATA_ARRAY void* data[RXT_GO_DIRECT] = {d0, d1, d2, d3, d4, d5, d6, d7}

rxt_status_t rxt_go_trainer_update(rxt_trainer_t* trainer, DLManagedTensor* const* args, size_t num_inputs,
                                   size_t num_targets, double* out_loss, RXT_GO_DATA_PARAMS) {
  RXT_GO_DATA_ARRAY;
  attach(args, num_inputs + num_targets, data);
  rxt_status_t status = rxt_trainer_update(trainer, args, num_inputs, args + num_inputs, num_targets, out_loss);
  detach(args, num_inputs + num_targets, data);
  return status;
}

rxt_status_t rxt_go_trainer_accumulate(rxt_trainer_t* trainer, DLManagedTensor* const* args, size_t num_inputs,
                                       size_t num_targets, double* out_loss, RXT_GO_DATA_PARAMS) {
  RXT_GO_DATA_ARRAY;
  attach(args, num_inputs + num_targets, data);
  rxt_status_t status = rxt_trainer_accumulate(trainer, args, num_inputs, args + num_inputs, num_targets, out_loss);
  detach(args, num_inputs + num_targets, data);
  return status;
}

rxt_status_t rxt_go_trainer_evaluate(rxt_trainer_t* trainer, DLManagedTensor* const* args, size_t num_inputs,
                                     size_t num_targets, double* out_loss, RXT_GO_DATA_PARAMS) {
  RXT_GO_DATA_ARRAY;
  attach(args, num_inputs + num_targets, data);
  rxt_status_t status = rxt_trainer_evaluate(trainer, args, num_inputs, args + num_inputs, num_targets, out_loss);
  detach(args, num_inputs + num_targets, data);
  return status;
}

rxt_status_t rxt_go_trainer_predict(rxt_trainer_t* trainer, DLManagedTensor* const* args, size_t num_inputs,
                                    DLManagedTensor** outputs, size_t capacity, size_t* out_num_outputs,
                                    RXT_GO_DATA_PARAMS) {
  RXT_GO_DATA_ARRAY;
  attach(args, num_inputs, data);
  rxt_status_t status = rxt_trainer_predict(trainer, args, num_inputs, outputs, capacity, out_num_outputs);
  detach(args, num_inputs, data);
  return status;
}

rxt_status_t rxt_go_trainer_profile_step(rxt_trainer_t* trainer, DLManagedTensor* const* args, size_t num_inputs,
                                         size_t num_targets, char** out_text, RXT_GO_DATA_PARAMS) {
  RXT_GO_DATA_ARRAY;
  attach(args, num_inputs + num_targets, data);
  rxt_status_t status =
      rxt_trainer_profile_step(trainer, args, num_inputs, args + num_inputs, num_targets, out_text);
  detach(args, num_inputs + num_targets, data);
  return status;
}

rxt_status_t rxt_go_trainer_set(rxt_trainer_t* trainer, rxt_trainer_tensors_t kind, size_t index, const char* name,
                                DLManagedTensor* tensor, void* data) {
  if (data != NULL) tensor->dl_tensor.data = data;
  rxt_status_t status = name != NULL ? rxt_trainer_set_by_name(trainer, kind, name, tensor)
                                     : rxt_trainer_set(trainer, kind, index, tensor);
  if (data != NULL) tensor->dl_tensor.data = NULL;
  return status;
}
