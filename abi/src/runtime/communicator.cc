// Communicators of data-parallel training across the C ABI (rxt_comm_t): made from a context's
// collective plugin (each library's context finds it: runtime/handles.h), and handed to trainers
// (rxt_trainer_set_comm in trainer.cc).
#include "handles.h"

extern "C" {

rxt_status_t rxt_comm_create(rxt_context_t* context, const char* collective, const char* options, void* external,
                             rxt_comm_t** out_comm) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(collective);
  RXT_CHECK_ARG(out_comm);
  auto handle = std::make_unique<rxt_comm_s>();
  handle->communicator =
      rxt::abi_impl::CreateCommunicator(context, collective, options != nullptr ? options : "", external);
  *out_comm = handle.release();
  RXT_API_END();
}

rxt_comm_t* rxt_comm_retain(rxt_comm_t* comm) {
  if (comm != nullptr) comm->references.fetch_add(1, std::memory_order_relaxed);
  return comm;
}

void rxt_comm_release(rxt_comm_t* comm) {
  if (comm != nullptr && comm->references.fetch_sub(1, std::memory_order_acq_rel) == 1) delete comm;
}

rxt_status_t rxt_comm_rank(const rxt_comm_t* comm, int32_t* out_rank) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(comm);
  RXT_CHECK_ARG(out_rank);
  *out_rank = comm->communicator->rank();
  RXT_API_END();
}

rxt_status_t rxt_comm_size(const rxt_comm_t* comm, int32_t* out_size) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(comm);
  RXT_CHECK_ARG(out_size);
  *out_size = comm->communicator->size();
  RXT_API_END();
}

}  // extern "C"
