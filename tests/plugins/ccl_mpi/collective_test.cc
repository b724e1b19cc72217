// The collective "mpi" (plugins/ccl_mpi) on the ranks mpirun started (RXT_TEST_WORLD_SIZE of
// them; run alone, a world of one): every operation gives every rank the same bits, and bad
// tensors are errors naming the problem. Each rank runs every test; mpirun fails if one does.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "rxt/plugin/plugin_host.h"
#include "rxt/runtime/communicator.h"
#include "world.h"

namespace rxt {
namespace {

using test::World;

int ExpectedSize() {
  const char* size = std::getenv("RXT_TEST_WORLD_SIZE");
  return size != nullptr ? std::atoi(size) : 1;
}

template <typename T>
DLTensor Tensor1d(std::vector<T>& data, DLDataType dtype, int64_t* shape) {
  *shape = static_cast<int64_t>(data.size());
  return DLTensor{data.data(), {kDLCPU, 0}, 1, dtype, shape, nullptr, 0};
}

// Whether every rank holds the same bytes as rank 0.
bool SameOnEveryRank(const void* data, size_t bytes) {
  std::vector<char> root(static_cast<const char*>(data), static_cast<const char*>(data) + bytes);
  MPI_Bcast(root.data(), static_cast<int>(bytes), MPI_BYTE, 0, MPI_COMM_WORLD);
  int same = std::memcmp(root.data(), data, bytes) == 0, all = 0;
  MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all != 0;
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(MpiCollective, KnowsItsRankAndTheWorld) {
  std::shared_ptr<Communicator> comm = World();
  EXPECT_EQ(comm->size(), ExpectedSize());
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  EXPECT_EQ(comm->rank(), rank);
  comm->Barrier();
}

TEST(MpiCollective, AllReduceSumsAndAveragesInPlace) {
  std::shared_ptr<Communicator> comm = World();
  const int n = comm->size(), r = comm->rank();
  std::vector<float> f(1000);
  for (size_t i = 0; i < f.size(); ++i) f[i] = static_cast<float>(r + 1) + 0.5f * static_cast<float>(i);
  int64_t shape = 0;
  DLTensor t = Tensor1d(f, {kDLFloat, 32, 1}, &shape);
  comm->AllReduce(t, RXT_REDUCE_SUM);
  for (size_t i = 0; i < f.size(); ++i) {
    // sum over ranks of (rank + 1) + 0.5 i, exact in float32 for these values
    ASSERT_EQ(f[i], static_cast<float>(n * (n + 1) / 2) + 0.5f * static_cast<float>(n * static_cast<int>(i))) << i;
  }
  std::vector<double> d = {static_cast<double>(r), 10.0 * r};
  DLTensor td = Tensor1d(d, {kDLFloat, 64, 1}, &shape);
  comm->AllReduce(td, RXT_REDUCE_MEAN);
  EXPECT_DOUBLE_EQ(d[0], (n - 1) / 2.0);
  EXPECT_DOUBLE_EQ(d[1], 10.0 * (n - 1) / 2.0);
  std::vector<int64_t> k = {int64_t{1} << 40, r};
  DLTensor tk = Tensor1d(k, {kDLInt, 64, 1}, &shape);
  comm->AllReduce(tk, RXT_REDUCE_SUM);
  EXPECT_EQ(k[0], n * (int64_t{1} << 40));
  EXPECT_EQ(k[1], n * (n - 1) / 2);
}

TEST(MpiCollective, EveryRankGetsTheSameBits) {
  std::shared_ptr<Communicator> comm = World();
  std::mt19937 rng(1234 + comm->rank());  // different values on each rank
  std::normal_distribution<float> normal;
  std::vector<float> g(100000);
  for (float& x : g) x = normal(rng);
  int64_t shape = 0;
  DLTensor t = Tensor1d(g, {kDLFloat, 32, 1}, &shape);
  comm->AllReduce(t, RXT_REDUCE_MEAN);
  EXPECT_TRUE(SameOnEveryRank(g.data(), g.size() * sizeof(float)));
}

TEST(MpiCollective, BroadcastCopiesTheRootsTensor) {
  std::shared_ptr<Communicator> comm = World();
  const int root = comm->size() - 1;
  std::vector<int32_t> v = {comm->rank(), 7 * comm->rank(), -1};
  int64_t shape = 0;
  DLTensor t = Tensor1d(v, {kDLInt, 32, 1}, &shape);
  comm->Broadcast(t, root);
  EXPECT_EQ(v, (std::vector<int32_t>{root, 7 * root, -1}));
}

TEST(MpiCollective, BadTensorsAreErrorsNamingTheProblem) {
  std::shared_ptr<Communicator> comm = World();
  std::vector<int64_t> k = {1, 2};
  std::vector<uint8_t> b = {1, 2};
  int64_t shape = 0;
  DLTensor tk = Tensor1d(k, {kDLInt, 64, 1}, &shape);
  EXPECT_EQ(ErrorOf([&] { comm->AllReduce(tk, RXT_REDUCE_MEAN); }), "collective 'mpi': allreduce: the mean of an integer tensor");
  int64_t bshape = 0;
  DLTensor tb = Tensor1d(b, {kDLUInt, 8, 1}, &bshape);
  EXPECT_EQ(ErrorOf([&] { comm->AllReduce(tb, RXT_REDUCE_SUM); }),
            "collective 'mpi': allreduce: dtype code 1 bits 8 (the collective takes float32, float64, int32 and int64)");
  std::vector<float> f(4);
  int64_t shape2[2] = {2, 2}, strides[2] = {1, 2};  // a transposed view
  DLTensor tt{f.data(), {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape2, strides, 0};
  EXPECT_EQ(ErrorOf([&] { comm->Broadcast(tt, 0); }), "collective 'mpi': broadcast: the tensor is not contiguous");
  EXPECT_EQ(ErrorOf([&] { comm->Broadcast(tt, comm->size()); }),
            "broadcast from rank " + std::to_string(comm->size()) + " of " + std::to_string(comm->size()) + " ranks");
  // Nothing above reached MPI: the ranks are still in step.
  comm->Barrier();
}

TEST(MpiCollective, StartedAllReducesCompleteInOrderWhileTheCallerGoesOn) {
  std::shared_ptr<Communicator> comm = World();
  ASSERT_TRUE(comm->overlaps());
  const int n = comm->size(), r = comm->rank();
  // Three requests in flight at once, of different sizes and dtypes; the caller fills other
  // memory meanwhile, then a blocking broadcast runs after them.
  std::vector<std::vector<float>> buckets = {std::vector<float>(100000), std::vector<float>(7), std::vector<float>(3000)};
  std::vector<int64_t> shapes(buckets.size());
  std::vector<rxt_request_t*> requests;
  for (size_t b = 0; b < buckets.size(); ++b) {
    for (size_t i = 0; i < buckets[b].size(); ++i) buckets[b][i] = static_cast<float>((r + 1) * (b + 1) + i % 7);
    DLTensor t = Tensor1d(buckets[b], {kDLFloat, 32, 1}, &shapes[b]);
    requests.push_back(comm->AllReduceStart(t, b == 1 ? RXT_REDUCE_MEAN : RXT_REDUCE_SUM));
    ASSERT_NE(requests.back(), nullptr);
  }
  std::vector<int64_t> counts = {r, -r};
  int64_t count_shape = 0;
  DLTensor tc = Tensor1d(counts, {kDLInt, 64, 1}, &count_shape);
  comm->Broadcast(tc, 0);  // after the requests (they were started first on every rank)
  EXPECT_EQ(counts, (std::vector<int64_t>{0, 0}));
  for (rxt_request_t* request : requests) comm->Wait(request);
  const float ranks_sum = static_cast<float>(n * (n + 1) / 2);
  for (size_t b = 0; b < buckets.size(); ++b) {
    for (size_t i = 0; i < buckets[b].size(); ++i) {
      float sum = ranks_sum * static_cast<float>(b + 1) + static_cast<float>(n * static_cast<int>(i % 7));
      ASSERT_EQ(buckets[b][i], b == 1 ? sum / static_cast<float>(n) : sum) << b << " " << i;
    }
    EXPECT_TRUE(SameOnEveryRank(buckets[b].data(), buckets[b].size() * sizeof(float)));
  }
}

TEST(MpiCollective, ABadStartIsAnErrorAndAStrangeRequestIsRefused) {
  std::shared_ptr<Communicator> comm = World();
  std::vector<int32_t> k = {1, 2};
  int64_t shape = 0;
  DLTensor tk = Tensor1d(k, {kDLInt, 32, 1}, &shape);
  EXPECT_EQ(ErrorOf([&] { comm->AllReduceStart(tk, RXT_REDUCE_MEAN); }),
            "collective 'mpi': allreduce_start: the mean of an integer tensor");
  int dummy = 0;
  EXPECT_EQ(ErrorOf([&] { comm->Wait(reinterpret_cast<rxt_request_t*>(&dummy)); }),
            "collective 'mpi': wait: not a request of this communicator in flight");
  comm->Barrier();  // still in step
}

TEST(MpiCollective, ACommunicatorFreedWithRequestsInFlightFinishesThem) {
  World();
  PluginHost host;
  host.Load(RXT_CCL_MPI_PLUGIN);
  PluginItem mpi = *host.Find(PluginItemKind::kCollective, "mpi");
  std::vector<double> d(50000, 1.0);
  int64_t shape = 0;
  {
    std::shared_ptr<Communicator> comm = Communicator::Create(*mpi.collective, mpi.keep_alive);
    DLTensor t = Tensor1d(d, {kDLFloat, 64, 1}, &shape);
    comm->AllReduceStart(t, RXT_REDUCE_SUM);  // never waited for
  }
  EXPECT_EQ(d[0], static_cast<double>(World()->size()));
  EXPECT_EQ(d.back(), static_cast<double>(World()->size()));
}

TEST(MpiCollective, TakesTheCallersCommunicator) {
  World();  // MPI initialized by the plugin
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm alone;  // each rank by itself
  MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &alone);
  PluginHost host;
  host.Load(RXT_CCL_MPI_PLUGIN);
  PluginItem mpi = *host.Find(PluginItemKind::kCollective, "mpi");
  {
    std::shared_ptr<Communicator> comm = Communicator::Create(*mpi.collective, mpi.keep_alive, "", &alone);
    EXPECT_EQ(comm->size(), 1);
    EXPECT_EQ(comm->rank(), 0);
    std::vector<float> f = {static_cast<float>(rank)};
    int64_t shape = 0;
    DLTensor t = Tensor1d(f, {kDLFloat, 32, 1}, &shape);
    comm->AllReduce(t, RXT_REDUCE_SUM);  // the sum over one rank
    EXPECT_EQ(f[0], static_cast<float>(rank));
  }
  MPI_Comm_free(&alone);  // the caller's, untouched by the communicator (it duplicated it)
  EXPECT_EQ(ErrorOf([&] { Communicator::Create(*mpi.collective, mpi.keep_alive, "timeout=3"); }),
            "collective 'mpi': cannot create a communicator: the mpi collective takes no options (got 'timeout=3')");
}

}  // namespace
}  // namespace rxt
