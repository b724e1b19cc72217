#include "mpi_collective.h"

#include <mpi.h>
#include <rxt/plugin_support/host.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace rxt::ccl_mpi {
namespace {

using plugin_support::MakeStatus;

struct Communicator {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
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
  MPI_Comm_rank(comm->comm, &comm->rank);
  MPI_Comm_size(comm->comm, &comm->size);
  *out_comm = reinterpret_cast<rxt_communicator_t*>(comm);
  return nullptr;
}

void Destroy(void* /*state*/, rxt_communicator_t* raw) {
  Communicator* comm = Of(raw);
  if (comm == nullptr) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Comm_free(&comm->comm);
  delete comm;
}

int32_t Rank(void* /*state*/, const rxt_communicator_t* comm) { return Of(comm)->rank; }
int32_t Size(void* /*state*/, const rxt_communicator_t* comm) { return Of(comm)->size; }

rxt_status_t AllReduce(void* /*state*/, rxt_communicator_t* raw, DLTensor* tensor, rxt_reduce_op_t op) {
  void* data = nullptr;
  int64_t count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  if (rxt_status_t bad = Describe(tensor, &data, &count, &type)) return bad;
  if (op != RXT_REDUCE_SUM && op != RXT_REDUCE_MEAN) {
    return MakeStatus(RXT_INVALID_ARGUMENT, "reduce op " + std::to_string(static_cast<int>(op)));
  }
  bool floating = type == MPI_FLOAT || type == MPI_DOUBLE;
  if (op == RXT_REDUCE_MEAN && !floating) return MakeStatus(RXT_INVALID_ARGUMENT, "the mean of an integer tensor");
  Communicator& comm = *Of(raw);
  int code = InPieces(data, count, type, [&](void* piece, int n) {
    return MPI_Allreduce(MPI_IN_PLACE, piece, n, type, MPI_SUM, comm.comm);
  });
  if (code != MPI_SUCCESS) return MpiFailure("MPI_Allreduce", code);
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

rxt_status_t Broadcast(void* /*state*/, rxt_communicator_t* raw, DLTensor* tensor, int32_t root) {
  void* data = nullptr;
  int64_t count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  if (rxt_status_t bad = Describe(tensor, &data, &count, &type)) return bad;
  Communicator& comm = *Of(raw);
  if (root < 0 || root >= comm.size) {
    return MakeStatus(RXT_INVALID_ARGUMENT, "root " + std::to_string(root) + " of " + std::to_string(comm.size) + " ranks");
  }
  int code = InPieces(data, count, type, [&](void* piece, int n) { return MPI_Bcast(piece, n, type, root, comm.comm); });
  return code == MPI_SUCCESS ? nullptr : MpiFailure("MPI_Bcast", code);
}

rxt_status_t Barrier(void* /*state*/, rxt_communicator_t* raw) {
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
      nullptr, &Create, &Destroy, &Rank, &Size, &AllReduce, &Broadcast, &Barrier, &Abort};
  return collective;
}

}  // namespace rxt::ccl_mpi
