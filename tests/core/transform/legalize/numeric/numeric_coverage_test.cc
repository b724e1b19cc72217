// Every op with a legalization has numeric tests in this folder: the list below names the
// ops the tests run, and a new legalization without tests makes this test fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "core/transform/legalize/numeric/backend_conformance.h"
#include "core/transform/legalize/numeric/numeric_test_util.h"
#include "rxt/ir/op.h"
#include "rxt/transform/legalize/legalize.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

const std::set<std::string> kNumericallyTested = {
    // elementwise_numeric_test.cc
    "negative", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "floor", "ceil", "round", "sign", "sin", "cos",
    "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "add",
    "subtract", "multiply", "divide", "power", "maximum", "minimum", "mod", "fmod", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "where",
    "astype", "clip",
    // linalg_numeric_test.cc
    "matmul", "linear",
    // manipulate_numeric_test.cc
    "permute_dims", "reshape", "broadcast_to", "collapse_sum_to", "expand_dims", "squeeze", "flatten", "concat",
    "split", "strided_slice", "take", "pad", "one_hot",
    // reduce_numeric_test.cc
    "sum", "mean", "max", "min", "prod", "variance", "argmax", "cumsum", "softmax", "log_softmax",
    // create_numeric_test.cc
    "zeros", "ones", "full", "zeros_like", "ones_like", "full_like",
    // nn_numeric_test.cc, nn_norm_loss_numeric_test.cc
    "nn.relu", "nn.gelu", "nn.silu", "nn.conv2d", "nn.max_pool2d", "nn.avg_pool2d", "nn.adaptive_avg_pool2d",
    // nn_backward_numeric_test.cc
    "nn.conv2d_transpose", "nn.conv2d_backward_data", "nn.conv2d_backward_weight", "nn.max_pool2d_backward",
    "nn.avg_pool2d_backward", "nn.adaptive_avg_pool2d_backward",
    "nn.dropout",
    "nn.batch_norm", "nn.layer_norm", "nn.nll_loss", "nn.cross_entropy_with_logits",
    // checkpoint_numeric_test.cc
    "checkpoint_start", "checkpoint_end",
    // ../../training/lower_gradient_of_test.cc: lowered by the LowerGradientOf pass (its
    // legalization refuses), checked against finite differences there
    "gradient_of",
    // ../../training/data_parallel_test.cc and tests/plugins/ccl_mpi/trainer_test.cc: a
    // call_extern bound by the Trainer, checked with one process and under mpirun
    "ccl.allreduce", "ccl.allreduce_start", "ccl.allreduce_wait",
};

// Backends besides the reference that this build must check (RXT_EXPECTED_BACKENDS from CMake).
const std::vector<std::string> kExpectedBackends = {RXT_EXPECTED_BACKENDS};

// Already legal: their legalization keeps the call.
const std::set<std::string> kBuiltins = {"call_kernel", "call_extern", "print", "assert", "view"};

TEST(NumericCoverage, EveryLegalizedOpHasNumericTests) {
  LegalizeOps();  // attaches the legalizations to the global registry
  int legalized = 0;
  for (const OpDef* op : OpRegistry::Global().List()) {
    if (!op->Has<FLegalize>() || kBuiltins.count(op->name())) continue;
    ++legalized;
    EXPECT_TRUE(kNumericallyTested.count(op->name())) << op->name() << " is legalized but has no numeric test";
  }
  EXPECT_EQ(legalized, static_cast<int>(kNumericallyTested.size()));
}

// The conformance check runs on every backend this build has; the CPU backend must be among
// them when it is built (so it cannot silently drop out), and it runs the kernels.
TEST(BackendConformance, EveryBuiltBackendRunsTheKernels) {
  numeric::Array x = numeric::Random({3, 5}, DType::kFloat32, 3);
  numeric::RunOp("%x: Tensor((n, 5), float32)", "nn.relu(%x)", {x});
  for (const std::string& backend : kExpectedBackends) {
    auto backends = numeric::ConformanceBackends();
    EXPECT_NE(std::find(backends.begin(), backends.end(), backend), backends.end()) << backend << " was not loaded";
    auto it = numeric::KernelsCheckedPerBackend().find(backend);
    EXPECT_TRUE(it != numeric::KernelsCheckedPerBackend().end() && it->second > 0) << backend << " ran no kernel";
  }
}

}  // namespace
}  // namespace rxt
