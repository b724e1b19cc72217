#include "rxt/runtime/communicator.h"

#include "rxt/support/c_status.h"
#include "rxt/support/error.h"

namespace rxt {

std::shared_ptr<Communicator> Communicator::Create(const rxt_collective_t& collective,
                                                   std::shared_ptr<const void> keep_alive, const std::string& options,
                                                   void* external) {
  std::shared_ptr<Communicator> comm(new Communicator(collective, std::move(keep_alive)));
  const std::string where = StrCat("collective '", comm->name_, "'");
  rxt_communicator_t* raw = nullptr;
  ThrowIfFailed(collective.create(collective.state, options.empty() ? nullptr : options.c_str(), external, &raw),
                StrCat(where, ": cannot create a communicator"));
  if (raw == nullptr) Throw(ErrorCode::kInternal, where, ": create succeeded without a communicator");
  comm->comm_ = raw;
  comm->rank_ = collective.rank(collective.state, raw);
  comm->size_ = collective.size(collective.state, raw);
  if (comm->size_ < 1 || comm->rank_ < 0 || comm->rank_ >= comm->size_) {
    Throw(ErrorCode::kInternal, where, ": rank ", comm->rank_, " of ", comm->size_, " ranks");
  }
  return comm;
}

Communicator::~Communicator() {
  if (comm_ != nullptr) collective_.destroy(collective_.state, comm_);
}

void Communicator::AllReduce(DLTensor& tensor, rxt_reduce_op_t op) {
  ThrowIfFailed(collective_.allreduce(collective_.state, comm_, &tensor, op), StrCat("collective '", name_, "': allreduce"));
}

rxt_request_t* Communicator::AllReduceStart(DLTensor& tensor, rxt_reduce_op_t op) {
  if (!overlaps()) {
    AllReduce(tensor, op);
    return nullptr;
  }
  rxt_request_t* request = nullptr;
  ThrowIfFailed(collective_.allreduce_start(collective_.state, comm_, &tensor, op, &request),
                StrCat("collective '", name_, "': allreduce_start"));
  if (request == nullptr) Throw(ErrorCode::kInternal, "collective '", name_, "': allreduce_start gave no request");
  return request;
}

void Communicator::Wait(rxt_request_t* request) {
  if (request == nullptr) return;
  ThrowIfFailed(collective_.wait(collective_.state, comm_, request), StrCat("collective '", name_, "': wait"));
}

void Communicator::Broadcast(DLTensor& tensor, int root) {
  if (root < 0 || root >= size_) Throw(ErrorCode::kInvalidArgument, "broadcast from rank ", root, " of ", size_, " ranks");
  ThrowIfFailed(collective_.broadcast(collective_.state, comm_, &tensor, root), StrCat("collective '", name_, "': broadcast"));
}

void Communicator::Barrier() {
  ThrowIfFailed(collective_.barrier(collective_.state, comm_), StrCat("collective '", name_, "': barrier"));
}

void Communicator::Abort(int code) {
  if (RXT_VTABLE_HAS(rxt_collective_t, &collective_, abort) && collective_.abort != nullptr) {
    collective_.abort(collective_.state, comm_, code);
  }
}

}  // namespace rxt
