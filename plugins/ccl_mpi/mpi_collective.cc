#include "mpi_collective.h"

#include <mpi.h>
#include <rxt/plugin_support/host.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>

namespace rxt::ccl_mpi {
namespace {

using plugin_support::MakeStatus;

// An allreduce of allreduce_start: what it combines, and once done, its status.
struct Request {
  void* data = nullptr;
  int64_t count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  rxt_reduce_op_t op = RXT_REDUCE_SUM;
  bool done = false;
  rxt_status_t status = nullptr;
};

// Requests started and not yet done run one after another on the communicator's own thread, in
// the order they were started; the caller's thread calls MPI only when that thread is idle (no
// request pending), so MPI is called by one thread at a time (MPI_THREAD_SERIALIZED).
struct Communicator {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  bool threads = false;  // MPI allows calls from the worker (MPI_THREAD_SERIALIZED or more)
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Request*> queue;             // started, not yet running
  bool running = false;                   // the worker (or a Wait) is running one
  bool stopping = false;
  std::unordered_set<Request*> requests;  // started and not yet waited for
  std::thread worker;
  std::atomic<int> waiters{0};            // callers in Wait for a request the worker runs
};

Communicator* Of(rxt_communicator_t* comm) { return reinterpret_cast<Communicator*>(comm); }
const Communicator* Of(const rxt_communicator_t* comm) { return reinterpret_cast<const Communicator*>(comm); }

// A failed MPI call as a status: "MPI_Allreduce: MPI_ERR_TRUNCATE: message truncated".
rxt_status_t MpiFailure(const char* call, int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  return MakeStatus(RXT_INTERNAL, std::string(call) + ": " + std::string(text, static_cast<size_t>(length)));
}

// MPI initialized by the plugin is finalized at exit (after every communicator is freed: an
// atexit handler runs after main returns).
void FinalizeAtExit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

rxt_status_t EnsureInitialized() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return nullptr;
  int provided = 0;
  // Collectives are called by one thread at a time (the trainer's), not always the same one.
  int code = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  if (code != MPI_SUCCESS) return MpiFailure("MPI_Init_thread", code);
  std::atexit(&FinalizeAtExit);
  return nullptr;
}

// The MPI type of |t|'s dtype, or MPI_DATATYPE_NULL.
MPI_Datatype TypeOf(const DLTensor& t) {
  if (t.dtype.lanes != 1) return MPI_DATATYPE_NULL;
  if (t.dtype.code == kDLFloat && t.dtype.bits == 32) return MPI_FLOAT;
  if (t.dtype.code == kDLFloat && t.dtype.bits == 64) return MPI_DOUBLE;
  if (t.dtype.code == kDLInt && t.dtype.bits == 32) return MPI_INT32_T;
  if (t.dtype.code == kDLInt && t.dtype.bits == 64) return MPI_INT64_T;
  return MPI_DATATYPE_NULL;
}

// Whether |t| is one block of host memory (strides absent or row-major compact).
bool Contiguous(const DLTensor& t) {
  if (t.strides == nullptr) return true;
  int64_t expected = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    if (t.shape[d] != 1 && t.strides[d] != expected) return false;
    expected *= t.shape[d];
  }
  return true;
}

// Checks |t| and gives its data, element count and MPI type.
rxt_status_t Describe(const DLTensor* t, void** data, int64_t* count, MPI_Datatype* type) {
  if (t == nullptr) return MakeStatus(RXT_INVALID_ARGUMENT, "null tensor");
  if (t->device.device_type != kDLCPU) return MakeStatus(RXT_INVALID_ARGUMENT, "the tensor is not in host memory");
  *type = TypeOf(*t);
  if (*type == MPI_DATATYPE_NULL) {
    return MakeStatus(RXT_INVALID_ARGUMENT, "dtype code " + std::to_string(t->dtype.code) + " bits " +
                                                std::to_string(t->dtype.bits) +
                                                " (the collective takes float32, float64, int32 and int64)");
  }
  if (!Contiguous(*t)) return MakeStatus(RXT_INVALID_ARGUMENT, "the tensor is not contiguous");
  *count = 1;
  for (int d = 0; d < t->ndim; ++d) *count *= t->shape[d];
  *data = static_cast<char*>(t->data) + t->byte_offset;
  return nullptr;
}

// Runs |call| over |count| elements in pieces MPI's int counts can hold.
template <typename Call>
int InPieces(void* data, int64_t count, MPI_Datatype type, Call call) {
  int element = 0;
  MPI_Type_size(type, &element);
  for (int64_t done = 0; done < count;) {
    int piece = static_cast<int>(std::min<int64_t>(count - done, INT_MAX));
    int code = call(static_cast<char*>(data) + done * element, piece);
    if (code != MPI_SUCCESS) return code;
    done += piece;
  }
  return MPI_SUCCESS;
}

rxt_status_t Create(void* /*state*/, const char* options, void* external, rxt_communicator_t** out_comm) {
  if (out_comm == nullptr) return MakeStatus(RXT_INVALID_ARGUMENT, "null out_comm");
  *out_comm = nullptr;
  if (options != nullptr && options[0] != '\0') {
    return MakeStatus(RXT_INVALID_ARGUMENT, std::string("the mpi collective takes no options (got '") + options + "')");
  }
  if (rxt_status_t failed = EnsureInitialized()) return failed;
  MPI_Comm base = external != nullptr ? *static_cast<MPI_Comm*>(external) : MPI_COMM_WORLD;
  auto* comm = new Communicator;
  int code = MPI_Comm_dup(base, &comm->comm);
  if (code != MPI_SUCCESS) {
    delete comm;
    return MpiFailure("MPI_Comm_dup", code);
  }
  MPI_Comm_set_errhandler(comm->comm, MPI_ERRORS_RETURN);
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  comm->threads = provided >= MPI_THREAD_SERIALIZED;
  MPI_Comm_rank(comm->comm, &comm->rank);
  MPI_Comm_size(comm->comm, &comm->size);
  *out_comm = reinterpret_cast<rxt_communicator_t*>(comm);
  return nullptr;
}

void Destroy(void* /*state*/, rxt_communicator_t* raw) {
  Communicator* comm = Of(raw);
  if (comm == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(comm->mutex);
    comm->stopping = true;  // the worker finishes what is queued, then ends
    comm->changed.notify_all();
  }
  if (comm->worker.joinable()) comm->worker.join();
  for (Request* request : comm->requests) {
    plugin_support::FreeStatus(request->status);
    delete request;
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Comm_free(&comm->comm);
  delete comm;
}

int32_t Rank(void* /*state*/, const rxt_communicator_t* comm) { return Of(comm)->rank; }
int32_t Size(void* /*state*/, const rxt_communicator_t* comm) { return Of(comm)->size; }

// Checks an allreduce's tensor and op; gives its data, element count and MPI type.
rxt_status_t CheckAllReduce(const DLTensor* tensor, rxt_reduce_op_t op, void** data, int64_t* count,
                            MPI_Datatype* type) {
  if (rxt_status_t bad = Describe(tensor, data, count, type)) return bad;
  if (op != RXT_REDUCE_SUM && op != RXT_REDUCE_MEAN) {
    return MakeStatus(RXT_INVALID_ARGUMENT, "reduce op " + std::to_string(static_cast<int>(op)));
  }
  bool floating = *type == MPI_FLOAT || *type == MPI_DOUBLE;
  if (op == RXT_REDUCE_MEAN && !floating) return MakeStatus(RXT_INVALID_ARGUMENT, "the mean of an integer tensor");
  return nullptr;
}

// How often the worker checks on an allreduce in flight while no one waits for it.
constexpr auto kPollInterval = std::chrono::microseconds(50);

// How an allreduce runs: a blocking MPI_Allreduce (allreduce), or one of allreduce_start —
// always a non-blocking MPI_Iallreduce, since MPI matches a rank's non-blocking collective only
// with the others' non-blocking ones, whichever thread runs it.
enum class Mode {
  kBlocking,
  kStartedHere,    // a started one the caller's thread runs (Wait): checked without pause
  kStartedBeside,  // on the worker, beside the caller's kernels: checked every kPollInterval
                   // while no one waits for it (MPI_Allreduce would spin on a core the kernels
                   // need: resnet18's overlapped step took 171-197 ms spinning, 140-155 polled)
};

rxt_status_t AllReduceNow(Communicator& comm, void* data, int64_t count, MPI_Datatype type, rxt_reduce_op_t op,
                          Mode mode = Mode::kBlocking) {
  int code = InPieces(data, count, type, [&](void* piece, int n) {
    if (mode == Mode::kBlocking) return MPI_Allreduce(MPI_IN_PLACE, piece, n, type, MPI_SUM, comm.comm);
    MPI_Request request;
    int started = MPI_Iallreduce(MPI_IN_PLACE, piece, n, type, MPI_SUM, comm.comm, &request);
    if (started != MPI_SUCCESS) return started;
    for (int done = 0;;) {
      int tested = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (tested != MPI_SUCCESS || done) return tested;
      if (mode == Mode::kStartedBeside && comm.waiters.load() == 0) std::this_thread::sleep_for(kPollInterval);
    }
  });
  if (code != MPI_SUCCESS) return MpiFailure(mode == Mode::kBlocking ? "MPI_Allreduce" : "MPI_Iallreduce", code);
  if (op == RXT_REDUCE_MEAN) {
    // The same division on every rank, after the same sum: every rank keeps the same bits.
    if (type == MPI_FLOAT) {
      for (int64_t i = 0; i < count; ++i) static_cast<float*>(data)[i] /= static_cast<float>(comm.size);
    } else {
      for (int64_t i = 0; i < count; ++i) static_cast<double*>(data)[i] /= static_cast<double>(comm.size);
    }
  }
  return nullptr;
}

// The worker: runs the queued requests in order until the communicator stops.
void Work(Communicator* comm) {
  std::unique_lock<std::mutex> lock(comm->mutex);
  for (;;) {
    // Not while the caller's thread runs one (Wait): one thread calls MPI at a time.
    comm->changed.wait(lock, [comm] { return (comm->stopping || !comm->queue.empty()) && !comm->running; });
    if (comm->queue.empty()) return;  // stopping, nothing left
    Request* request = comm->queue.front();
    comm->queue.pop_front();
    comm->running = true;
    lock.unlock();
    rxt_status_t status =
        AllReduceNow(*comm, request->data, request->count, request->type, request->op, Mode::kStartedBeside);
    lock.lock();
    request->status = status;
    request->done = true;
    comm->running = false;
    comm->changed.notify_all();
  }
}

// Returns once no request is pending: the caller's thread may call MPI.
void Drain(Communicator& comm) {
  std::unique_lock<std::mutex> lock(comm.mutex);
  comm.changed.wait(lock, [&comm] { return comm.queue.empty() && !comm.running; });
}

rxt_status_t AllReduce(void* /*state*/, rxt_communicator_t* raw, DLTensor* tensor, rxt_reduce_op_t op) {
  void* data = nullptr;
  int64_t count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  if (rxt_status_t bad = CheckAllReduce(tensor, op, &data, &count, &type)) return bad;
  Drain(*Of(raw));
  return AllReduceNow(*Of(raw), data, count, type, op);
}

rxt_status_t AllReduceStart(void* /*state*/, rxt_communicator_t* raw, DLTensor* tensor, rxt_reduce_op_t op,
                            rxt_request_t** out_request) {
  if (out_request == nullptr) return MakeStatus(RXT_INVALID_ARGUMENT, "null out_request");
  *out_request = nullptr;
  auto request = std::make_unique<Request>();
  request->op = op;
  if (rxt_status_t bad = CheckAllReduce(tensor, op, &request->data, &request->count, &request->type)) return bad;
  Communicator& comm = *Of(raw);
  if (!comm.threads) {
    // An MPI initialized without thread support: combined now, before returning (as a started
    // one: every rank's MPI has the same thread support, so they all start the same way).
    request->status = AllReduceNow(comm, request->data, request->count, request->type, op, Mode::kStartedHere);
    request->done = true;
  }
  std::lock_guard<std::mutex> lock(comm.mutex);
  if (!request->done) {
    if (!comm.worker.joinable()) comm.worker = std::thread(&Work, &comm);
    comm.queue.push_back(request.get());
    comm.changed.notify_all();
  }
  comm.requests.insert(request.get());
  *out_request = reinterpret_cast<rxt_request_t*>(request.release());
  return nullptr;
}

rxt_status_t Wait(void* /*state*/, rxt_communicator_t* raw, rxt_request_t* raw_request) {
  Communicator& comm = *Of(raw);
  auto* request = reinterpret_cast<Request*>(raw_request);
  std::unique_lock<std::mutex> lock(comm.mutex);
  if (request == nullptr || comm.requests.count(request) == 0) {
    return MakeStatus(RXT_INVALID_ARGUMENT, "not a request of this communicator in flight");
  }
  if (!request->done && !comm.running && !comm.queue.empty() && comm.queue.front() == request) {
    // The worker has not begun it (every request before it is done): run it on this thread now
    // rather than wake the worker and sleep until it is done (with every core busy computing,
    // the worker may wait long for one).
    comm.queue.pop_front();
    comm.running = true;
    lock.unlock();
    rxt_status_t status =
        AllReduceNow(comm, request->data, request->count, request->type, request->op, Mode::kStartedHere);
    lock.lock();
    request->status = status;
    request->done = true;
    comm.running = false;
    comm.changed.notify_all();
  }
  ++comm.waiters;
  comm.changed.wait(lock, [request] { return request->done; });
  --comm.waiters;
  comm.requests.erase(request);
  rxt_status_t status = request->status;
  delete request;
  return status;
}

rxt_status_t Broadcast(void* /*state*/, rxt_communicator_t* raw, DLTensor* tensor, int32_t root) {
  void* data = nullptr;
  int64_t count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  if (rxt_status_t bad = Describe(tensor, &data, &count, &type)) return bad;
  Communicator& comm = *Of(raw);
  Drain(comm);
  if (root < 0 || root >= comm.size) {
    return MakeStatus(RXT_INVALID_ARGUMENT, "root " + std::to_string(root) + " of " + std::to_string(comm.size) + " ranks");
  }
  int code = InPieces(data, count, type, [&](void* piece, int n) { return MPI_Bcast(piece, n, type, root, comm.comm); });
  return code == MPI_SUCCESS ? nullptr : MpiFailure("MPI_Bcast", code);
}

rxt_status_t Barrier(void* /*state*/, rxt_communicator_t* raw) {
  Drain(*Of(raw));
  int code = MPI_Barrier(Of(raw)->comm);
  return code == MPI_SUCCESS ? nullptr : MpiFailure("MPI_Barrier", code);
}

void Abort(void* /*state*/, rxt_communicator_t* raw, int32_t code) {
  // MPI_Abort ends every process of the job (the launcher, mpirun or srun, kills them).
  MPI_Abort(raw != nullptr ? Of(raw)->comm : MPI_COMM_WORLD, code);
  std::_Exit(code);  // an MPI that returned from MPI_Abort
}

}  // namespace

const rxt_collective_t& MpiCollective() {
  static const rxt_collective_t collective = {
      sizeof(rxt_collective_t), "mpi", "Data-parallel training over MPI (allreduce, broadcast, barrier on host tensors)",
      nullptr, &Create, &Destroy, &Rank, &Size, &AllReduce, &Broadcast, &Barrier, &Abort, &AllReduceStart, &Wait};
  return collective;
}

}  // namespace rxt::ccl_mpi
