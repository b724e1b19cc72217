// A communicator of a collective plugin (rxt_collective_t, rxt/plugin.h): the processes that
// train together, each with a rank, and the collective operations of data-parallel training on
// tensors in host memory. It holds the plugin's library loaded while it lives.
//
//   std::shared_ptr<Communicator> comm = Communicator::Create(*item.collective, item.keep_alive);
//   comm->Broadcast(params[i], /*root=*/0);                 // every rank starts from rank 0's
//   comm->AllReduce(gradients, RXT_REDUCE_MEAN);            // the mean over the ranks, in place
#pragma once

#include <dlpack/dlpack.h>

#include <memory>
#include <string>

#include "rxt/plugin.h"

namespace rxt {

/// Whether |name| is an extern function a Trainer binds to its communicator ("ccl.allreduce_sum",
/// what ccl.allreduce legalizes to) rather than one a plugin provides.
inline bool IsCollectiveExtern(const std::string& name) { return name.rfind("ccl.", 0) == 0; }

class Communicator {
 public:
  /// A communicator made by |collective| (named |name| in messages) with |options|; |external|
  /// is the caller's own communicator handle (an MPI_Comm*), null for the launch's world.
  /// |keep_alive| owns the plugin's library. Throws the plugin's error naming the collective.
  static std::shared_ptr<Communicator> Create(const rxt_collective_t& collective, std::shared_ptr<const void> keep_alive,
                                              const std::string& options = "", void* external = nullptr);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  /// "mpi".
  const std::string& name() const { return name_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

  /// Combines |tensor| over the ranks in place (every rank the same shape and dtype).
  void AllReduce(DLTensor& tensor, rxt_reduce_op_t op);
  /// Starts combining |tensor| over the ranks in place and returns the request to Wait for;
  /// |tensor|'s data stays untouched until then. A collective that cannot overlap combines it
  /// before returning (the request is null).
  rxt_request_t* AllReduceStart(DLTensor& tensor, rxt_reduce_op_t op);
  /// Waits for a request of AllReduceStart (null: returns) and frees it; throws its failure.
  void Wait(rxt_request_t* request);
  /// Whether AllReduceStart returns before the communication is done.
  bool overlaps() const {
    return RXT_VTABLE_HAS(rxt_collective_t, &collective_, wait) && collective_.allreduce_start != nullptr &&
           collective_.wait != nullptr;
  }
  /// Rank |root|'s |tensor| into every rank's.
  void Broadcast(DLTensor& tensor, int root);
  /// Returns when every rank has called it.
  void Barrier();
  /// Ends every rank's process with exit status |code| (the collective's abort) so that no
  /// rank waits for this one for ever; returns only when the collective has no abort.
  void Abort(int code);

 private:
  Communicator(const rxt_collective_t& collective, std::shared_ptr<const void> keep_alive)
      : collective_(collective), keep_alive_(std::move(keep_alive)), name_(collective.name) {}

  const rxt_collective_t& collective_;
  std::shared_ptr<const void> keep_alive_;
  std::string name_;
  rxt_communicator_t* comm_ = nullptr;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace rxt
