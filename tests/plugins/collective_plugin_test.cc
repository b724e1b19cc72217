// Collective plugins (rxt_collective_t): the host's checks of the vtable when it registers one,
// and the runtime's Communicator over it, with a collective of one process linked in (the MPI
// plugin's own test runs under mpirun: tests/plugins/ccl_mpi).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "rxt/plugin/plugin_host.h"
#include "rxt/runtime/communicator.h"
#include "rxt/support/c_status.h"

namespace rxt {
namespace {

// A world of one process: allreduce leaves the tensor as it is (the mean of one rank too),
// broadcast from rank 0 too. Counts its calls; refuses a tensor of 3 elements.
int g_destroyed = 0;
const rxt_host_api_t* g_api = nullptr;
rxt_status_t Create(void*, const char* options, void* external, rxt_communicator_t** out) {
  if (options != nullptr) return g_api->status_create(RXT_INVALID_ARGUMENT, "no options");
  static int world = 0;
  *out = reinterpret_cast<rxt_communicator_t*>(external != nullptr ? external : &world);
  return nullptr;
}
void Destroy(void*, rxt_communicator_t*) { ++g_destroyed; }
int32_t Rank(void*, const rxt_communicator_t*) { return 0; }
int32_t Size(void*, const rxt_communicator_t*) { return 1; }
rxt_status_t AllReduce(void*, rxt_communicator_t*, DLTensor* t, rxt_reduce_op_t) {
  return t->shape[0] == 3 ? g_api->status_create(RXT_INVALID_ARGUMENT, "three elements") : nullptr;
}
rxt_status_t Broadcast(void*, rxt_communicator_t*, DLTensor*, int32_t) { return nullptr; }
rxt_status_t Barrier(void*, rxt_communicator_t*) { return nullptr; }

const rxt_collective_t kSolo = {sizeof(rxt_collective_t), "solo", "One process.", nullptr, &Create, &Destroy,
                                &Rank, &Size, &AllReduce, &Broadcast, &Barrier};
const rxt_collective_t kNoAllReduce = {sizeof(rxt_collective_t), "broken", nullptr, nullptr, &Create, &Destroy,
                                       &Rank, &Size, nullptr, &Broadcast, &Barrier};
rxt_status_t Start(void*, rxt_communicator_t*, DLTensor*, rxt_reduce_op_t, rxt_request_t**) { return nullptr; }
const rxt_collective_t kStartWithoutWait = {sizeof(rxt_collective_t), "half", nullptr, nullptr, &Create, &Destroy,
                                            &Rank, &Size, &AllReduce, &Broadcast, &Barrier, nullptr, &Start, nullptr};
const rxt_collective_t kTooSmall = {offsetof(rxt_collective_t, allreduce), "small", nullptr, nullptr, &Create,
                                    &Destroy, &Rank, &Size, nullptr, nullptr, nullptr};

const rxt_plugin_descriptor_t* Listing(const rxt_collective_t* const* collectives, size_t count) {
  static rxt_plugin_descriptor_t d;
  d = {};
  d.struct_size = sizeof d;
  d.abi_version = RXT_PLUGIN_ABI_VERSION;
  d.name = "collectives";
  d.collectives = collectives;
  d.num_collectives = count;
  return &d;
}

std::string LoadError(PluginHost& host, rxt_plugin_entry_fn_t entry) {
  try {
    host.LoadLinked("collectives", entry);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(CollectivePlugin, IsRegisteredFromTheDescriptorOrByCall) {
  PluginHost host;
  PluginInfo info = host.LoadLinked("collectives", [](uint32_t, const rxt_host_api_t* api) {
    g_api = api;
    static const rxt_collective_t* const list[] = {&kSolo};
    return Listing(list, 1);
  });
  ASSERT_EQ(info.items[static_cast<size_t>(PluginItemKind::kCollective)], std::vector<std::string>{"solo"});
  std::optional<PluginItem> solo = host.Find(PluginItemKind::kCollective, "solo");
  ASSERT_TRUE(solo.has_value());
  EXPECT_EQ(solo->collective, &kSolo);
  EXPECT_STREQ(PluginItemKindName(PluginItemKind::kCollective), "collective");

  PluginHost other;
  other.LoadLinked("by_call", [](uint32_t, const rxt_host_api_t* api) {
    g_api = api;
    rxt_status_t status = api->register_collective(api->host, &kSolo);
    EXPECT_EQ(status, nullptr);
    return Listing(nullptr, 0);
  });
  EXPECT_TRUE(other.Find(PluginItemKind::kCollective, "solo").has_value());
}

TEST(CollectivePlugin, AVTableWithoutItsFunctionsIsRefused) {
  PluginHost host;
  EXPECT_NE(LoadError(host, [](uint32_t, const rxt_host_api_t*) {
              static const rxt_collective_t* const list[] = {&kNoAllReduce};
              return Listing(list, 1);
            }).find("registers collective 'broken' without allreduce"),
            std::string::npos);
  EXPECT_NE(LoadError(host, [](uint32_t, const rxt_host_api_t*) {
              static const rxt_collective_t* const list[] = {&kTooSmall};
              return Listing(list, 1);
            }).find("registers a collective whose struct_size (64) is too small (at least 88)"),
            std::string::npos);
  EXPECT_NE(LoadError(host, [](uint32_t, const rxt_host_api_t*) {
              static const rxt_collective_t* const list[] = {&kStartWithoutWait};
              return Listing(list, 1);
            }).find("registers collective 'half' without allreduce_start and wait together (one of them is NULL)"),
            std::string::npos);
  EXPECT_NE(LoadError(host, [](uint32_t, const rxt_host_api_t*) {
              static const rxt_collective_t* const list[] = {nullptr};
              return Listing(list, 1);
            }).find("null collective"),
            std::string::npos);
  EXPECT_TRUE(host.Items(PluginItemKind::kCollective).empty());
}

TEST(Communicator, CallsItsCollectiveAndNamesItInErrors) {
  PluginHost host;
  host.LoadLinked("collectives", [](uint32_t, const rxt_host_api_t* api) {
    g_api = api;
    static const rxt_collective_t* const list[] = {&kSolo};
    return Listing(list, 1);
  });
  PluginItem solo = *host.Find(PluginItemKind::kCollective, "solo");
  g_destroyed = 0;
  {
    std::shared_ptr<Communicator> comm = Communicator::Create(*solo.collective, solo.keep_alive);
    EXPECT_EQ(comm->name(), "solo");
    EXPECT_EQ(comm->rank(), 0);
    EXPECT_EQ(comm->size(), 1);
    float data[3] = {1, 2, 3};
    int64_t shape[1] = {2};
    DLTensor t{data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, nullptr, 0};
    comm->AllReduce(t, RXT_REDUCE_SUM);
    comm->Broadcast(t, 0);
    comm->Barrier();
    // Without allreduce_start, a start is the blocking allreduce: no request to wait for.
    EXPECT_FALSE(comm->overlaps());
    EXPECT_EQ(comm->AllReduceStart(t, RXT_REDUCE_SUM), nullptr);
    comm->Wait(nullptr);
    shape[0] = 3;
    try {
      comm->AllReduce(t, RXT_REDUCE_MEAN);
      FAIL() << "the collective refuses three elements";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
      EXPECT_EQ(std::string(e.what()), "collective 'solo': allreduce: three elements");
    }
    EXPECT_THROW(comm->AllReduceStart(t, RXT_REDUCE_SUM), Error);
    try {
      comm->Broadcast(t, 1);
      FAIL() << "there is no rank 1";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "broadcast from rank 1 of 1 ranks");
    }
  }
  EXPECT_EQ(g_destroyed, 1);
  try {
    Communicator::Create(*solo.collective, solo.keep_alive, "x=1");
    FAIL() << "options are refused";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "collective 'solo': cannot create a communicator: no options");
  }
}

}  // namespace
}  // namespace rxt
