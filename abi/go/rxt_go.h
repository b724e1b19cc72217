/* rxt_go.h: C helpers of the Go binding (rxt_go.c). They exist for what Go cannot do itself: call
 * a C function pointer (a tensor's deleter), hand rxt a C visitor that calls back into Go, and
 * give rxt Go memory during one call (cgo lets C, not Go, put a Go pointer into C memory, and
 * only until the call returns: see doc.go). */
#ifndef RXT_GO_H_
#define RXT_GO_H_

#include <stdint.h>

#include "rxt/rxt.h"

/* How many Go-memory tensors one call takes in place: their data pointers are arguments of the
 * helpers below. Past this many, the binding copies the data into C memory first. */
#define RXT_GO_DIRECT 8
#define RXT_GO_DATA_PARAMS void *d0, void *d1, void *d2, void *d3, void *d4, void *d5, void *d6, void *d7

/* A tensor described by Go (dtype, shape) whose data a helper attaches for one call. */
typedef struct rxt_go_slot_s {
  DLManagedTensor managed; /* deleter NULL: rxt only borrows it */
  int64_t* shape;          /* C memory, shape_capacity entries */
  size_t shape_capacity;
} rxt_go_slot_t;

/* Calls |tensor|'s deleter (NULL-tolerant). */
void rxt_go_delete(DLManagedTensor* tensor);

/* rxt's trainer calls with the data of args[i] set to d<i> (when not NULL) for i < RXT_GO_DIRECT
 * during the call, and cleared before returning. */
rxt_status_t rxt_go_trainer_update(rxt_trainer_t* trainer, DLManagedTensor* const* args, size_t num_inputs,
                                   size_t num_targets, double* out_loss, RXT_GO_DATA_PARAMS);
rxt_status_t rxt_go_trainer_accumulate(rxt_trainer_t* trainer, DLManagedTensor* const* args, size_t num_inputs,
                                   size_t num_targets, double* out_loss, RXT_GO_DATA_PARAMS);
rxt_status_t rxt_go_trainer_evaluate(rxt_trainer_t* trainer, DLManagedTensor* const* args, size_t num_inputs,
                                     size_t num_targets, double* out_loss, RXT_GO_DATA_PARAMS);
rxt_status_t rxt_go_trainer_predict(rxt_trainer_t* trainer, DLManagedTensor* const* args, size_t num_inputs,
                                    DLManagedTensor** outputs, size_t capacity, size_t* out_num_outputs,
                                    RXT_GO_DATA_PARAMS);
rxt_status_t rxt_go_trainer_profile_step(rxt_trainer_t* trainer, DLManagedTensor* const* args, size_t num_inputs,
                                         size_t num_targets, char** out_text, RXT_GO_DATA_PARAMS);
/* |name| NULL: by |index|. */
rxt_status_t rxt_go_trainer_set(rxt_trainer_t* trainer, rxt_trainer_tensors_t kind, size_t index, const char* name,
                                DLManagedTensor* tensor, void* data);

/* Listings whose visitor calls back into Go with |handle| (a runtime/cgo.Handle), in
 * rxt_go_listings.c: librxt only (not with the build tag rxt_runtime). */
rxt_status_t rxt_go_plugins_list(const rxt_context_t* context, uintptr_t handle);
rxt_status_t rxt_go_plugin_items_list(rxt_plugin_item_kind_t kind, uintptr_t handle);
rxt_status_t rxt_go_function_params(const rxt_module_t* module, const char* function, uintptr_t handle);

#endif /* RXT_GO_H_ */
