/// Data parallelism in the Trainer (train/trainer.h): the ccl.allreduce externs of its program
/// (whole, or started and waited for in halves) bound to its communicator, and the start that
/// makes every rank equal.
#include <cstring>
#include <utility>

#include "rxt/runtime/dlpack.h"
#include "rxt/support/error.h"
#include "rxt/train/trainer.h"

namespace rxt {
namespace {

constexpr const char* kAllReduceSum = "ccl.allreduce_sum";
constexpr const char* kAllReduceMean = "ccl.allreduce_mean";
constexpr const char* kStartSum = "ccl.allreduce_start_sum";
constexpr const char* kStartMean = "ccl.allreduce_start_mean";
constexpr const char* kWait = "ccl.allreduce_wait";

/// FNV-1a, 64 bits.
void Mix(uint64_t& hash, const void* data, size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 1099511628211ull;
}

/// The bytes of a compact tensor.
size_t Bytes(const DLTensor& t) {
  size_t n = (t.dtype.bits * t.dtype.lanes + 7) / 8;
  for (int d = 0; d < t.ndim; ++d) n *= static_cast<size_t>(t.shape[d]);
  return n;
}

/// |tensors| packed one after another into |staging| (grown to fit), as one 1-D tensor of their
/// dtype (one dtype per bucket: the ccl ops check it) over |staging|'s memory.
DLTensor Pack(DLTensor* const* tensors, int count, std::vector<unsigned char>& staging, int64_t& elements) {
  size_t total = 0;
  for (int i = 0; i < count; ++i) total += Bytes(*tensors[i]);
  if (staging.size() < total) staging.resize(total);
  size_t offset = 0;
  for (int i = 0; i < count; ++i) {
    std::memcpy(staging.data() + offset, tensors[i]->data, Bytes(*tensors[i]));
    offset += Bytes(*tensors[i]);
  }
  const size_t element = (tensors[0]->dtype.bits * tensors[0]->dtype.lanes + 7) / 8;
  elements = static_cast<int64_t>(total / element);
  DLTensor packed{};
  packed.data = staging.data();
  packed.device = {kDLCPU, 0};
  packed.ndim = 1;
  packed.dtype = tensors[0]->dtype;
  packed.shape = &elements;
  return packed;
}

void Unpack(const std::vector<unsigned char>& staging, DLTensor* const* tensors, int count) {
  size_t offset = 0;
  for (int i = 0; i < count; ++i) {
    std::memcpy(tensors[i]->data, staging.data() + offset, Bytes(*tensors[i]));
    offset += Bytes(*tensors[i]);
  }
}

}  // namespace

void Trainer::RegisterCollectiveExterns() {
  for (const std::string& name : program_.executable.externs) {
    data_parallel_ = data_parallel_ || name == kAllReduceSum || name == kAllReduceMean || name == kStartSum ||
                     name == kStartMean;
  }
  auto bind = [this](rxt_reduce_op_t op) {
    return [this, op](DLTensor* const* args, int num_args) {
      // (inputs..., outputs...): each output its input combined over the ranks; a world of one
      // rank without a communicator. Several (a bucket) go in one communication, packed.
      RXT_CHECK(num_args >= 2 && num_args % 2 == 0, "ccl.allreduce takes inputs and as many outputs, got ", num_args,
                " tensors");
      const int n = num_args / 2;
      if (n == 1) {
        DLTensor& out = *args[1];
        if (args[0]->data != out.data) std::memcpy(out.data, args[0]->data, Bytes(out));
        if (communicator_ != nullptr) communicator_->AllReduce(out, op);
        return;
      }
      if (communicator_ == nullptr) {
        for (int i = 0; i < n; ++i) {
          if (args[i]->data != args[n + i]->data) std::memcpy(args[n + i]->data, args[i]->data, Bytes(*args[n + i]));
        }
        return;
      }
      int64_t elements = 0;
      DLTensor packed = Pack(args, n, ccl_staging_, elements);
      communicator_->AllReduce(packed, op);
      Unpack(ccl_staging_, args + n, n);
    };
  };
  externs_.Register(kAllReduceSum, bind(RXT_REDUCE_SUM), /*replace=*/true);
  externs_.Register(kAllReduceMean, bind(RXT_REDUCE_MEAN), /*replace=*/true);

  // The halves: start packs its inputs (read now: their memory is free for what follows) into a
  // request's own buffer and starts the communication there; wait unpacks it into its outputs.
  auto start = [this](rxt_reduce_op_t op) {
    return [this, op](DLTensor* const* args, int num_args) {
      RXT_CHECK(num_args >= 2, "ccl.allreduce_start takes inputs and a request, got ", num_args, " tensors");
      const int n = num_args - 1;
      size_t slot = 0;
      while (slot < ccl_requests_.size() && ccl_requests_[slot].in_flight) ++slot;
      if (slot == ccl_requests_.size()) ccl_requests_.emplace_back();
      CclRequest& request = ccl_requests_[slot];
      request.bytes.clear();
      for (int i = 0; i < n; ++i) request.bytes.push_back(Bytes(*args[i]));
      request.dtype = args[0]->dtype;
      int64_t elements = 0;
      DLTensor packed = Pack(args, n, request.staging, elements);
      request.handle = communicator_ != nullptr ? communicator_->AllReduceStart(packed, op) : nullptr;
      request.in_flight = true;
      *static_cast<int64_t*>(args[n]->data) = static_cast<int64_t>(slot);
    };
  };
  externs_.Register(kStartSum, start(RXT_REDUCE_SUM), /*replace=*/true);
  externs_.Register(kStartMean, start(RXT_REDUCE_MEAN), /*replace=*/true);
  externs_.Register(
      kWait,
      [this](DLTensor* const* args, int num_args) {
        RXT_CHECK(num_args >= 2, "ccl.allreduce_wait takes a request and outputs, got ", num_args, " tensors");
        const int64_t slot = *static_cast<const int64_t*>(args[0]->data);
        if (slot < 0 || slot >= static_cast<int64_t>(ccl_requests_.size()) || !ccl_requests_[slot].in_flight) {
          Throw(ErrorCode::kFailedPrecondition, "ccl.allreduce_wait: request ", slot,
                " is not in flight (each ccl.allreduce_start is waited for once)");
        }
        CclRequest& request = ccl_requests_[slot];
        request.in_flight = false;
        rxt_request_t* handle = std::exchange(request.handle, nullptr);
        if (communicator_ != nullptr) communicator_->Wait(handle);
        const int n = num_args - 1;
        bool same = n == static_cast<int>(request.bytes.size());
        for (int i = 0; same && i < n; ++i) {
          same = Bytes(*args[1 + i]) == request.bytes[i] && args[1 + i]->dtype.code == request.dtype.code &&
                 args[1 + i]->dtype.bits == request.dtype.bits;
        }
        if (!same) {
          Throw(ErrorCode::kInvalidArgument, "ccl.allreduce_wait: its ", n,
                " output(s) differ from the tensors request ", slot, " started (", request.bytes.size(),
                ", another size or dtype): out_sinfo must be the struct info of ccl.allreduce_start's x");
        }
        Unpack(request.staging, args + 1, n);
      },
      /*replace=*/true);
}

void Trainer::DrainCollectives() noexcept {
  // A step that failed between a start and its wait: the other ranks started the same requests,
  // so each completes; waiting keeps the communicator's requests in step for what follows.
  for (CclRequest& request : ccl_requests_) {
    if (!request.in_flight) continue;
    request.in_flight = false;
    rxt_request_t* handle = std::exchange(request.handle, nullptr);
    try {
      if (communicator_ != nullptr) communicator_->Wait(handle);
    } catch (...) {
      // The step's own error is the one to report.
    }
  }
}

uint64_t Trainer::ProgramFingerprint() const {
  // The executable without where its kernel library lies (a path that may differ per machine).
  Executable exec = program_.executable;
  exec.aot_library.clear();
  exec.source.clear();
  std::vector<uint8_t> bytes = exec.Serialize();
  uint64_t hash = 14695981039346656037ull;
  Mix(hash, bytes.data(), bytes.size());
  for (const auto* specs : {&program_.inputs, &program_.targets, &program_.params, &program_.states}) {
    for (const TrainerTensorSpec& spec : *specs) {
      std::string text = spec.name + ":" + spec.TypeText();
      Mix(hash, text.data(), text.size() + 1);
    }
  }
  for (const std::string& name : program_.optim_state_names) Mix(hash, name.data(), name.size() + 1);
  return hash;
}

void Trainer::SetCommunicator(std::shared_ptr<Communicator> communicator) {
  if (communicator == nullptr) {
    communicator_ = nullptr;
    return;
  }
  CheckNothingAccumulated("set a communicator");
  if (communicator->size() > 1 && !data_parallel_) {
    Throw(ErrorCode::kFailedPrecondition, "trainer: the program does not combine gradients over ranks, so each of the ",
          communicator->size(),
          " ranks would train alone: build it for data parallelism (SetupTrainer data_parallel; rxt build --trainer "
          "--data-parallel)");
  }
  // Every rank must run the same program, or their collective calls would not match (a hang
  // or garbage): compare with rank 0's fingerprint, and let every rank know the verdict.
  const uint64_t mine = ProgramFingerprint();
  Tensor fingerprint = Tensor::FromVector<int64_t>({1}, DType::kInt64, {static_cast<int64_t>(mine)});
  DLTensor dl = ToDLTensorView(fingerprint);
  communicator->Broadcast(dl, 0);
  const bool differs = *static_cast<const int64_t*>(fingerprint.data()) != static_cast<int64_t>(mine);
  Tensor differing = Tensor::FromVector<int32_t>({1}, DType::kInt32, {differs ? 1 : 0});
  DLTensor dl_differing = ToDLTensorView(differing);
  communicator->AllReduce(dl_differing, RXT_REDUCE_SUM);
  const int32_t count = *static_cast<const int32_t*>(differing.data());
  if (count > 0) {
    Throw(ErrorCode::kFailedPrecondition, "trainer: ", count, " of ", communicator->size(),
          " ranks run another trainer program than rank 0", differs ? StrCat(" (this rank, ", communicator->rank(), ", is one)") : "",
          ": every rank must run the same model, loss, optimizer and build options");
  }
  // Rank 0's values everywhere: parameters, states, optimizer state and step count.
  CheckReady("set a communicator");
  for (auto* group : {&params_, &states_, &optim_state_}) {
    for (Tensor& t : *group) {
      t = t.Clone();  // not a tensor a caller holds
      DLTensor view = ToDLTensorView(t);
      communicator->Broadcast(view, 0);
    }
  }
  Tensor step = Tensor::FromVector<int64_t>({1}, DType::kInt64, {step_});
  DLTensor dl_step = ToDLTensorView(step);
  communicator->Broadcast(dl_step, 0);
  step_ = *static_cast<const int64_t*>(step.data());
  communicator_ = std::move(communicator);
}

}  // namespace rxt
