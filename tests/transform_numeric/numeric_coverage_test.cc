// Every op with a legalization has numeric tests in this folder: the list below names the
// ops the tests run, and a new legalization without tests makes this test fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "rxt/op/registry.h"
#include "rxt/transform/legalize.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

const std::set<std::string> kNumericallyTested = {
    // elementwise_numeric_test.cc
    "negative", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "add", "subtract", "multiply", "divide",
    "power", "maximum", "minimum", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "where",
    "astype", "clip",
    // linalg_numeric_test.cc
    "matmul",
    // manipulate_numeric_test.cc
    "permute_dims", "reshape", "broadcast_to", "collapse_sum_to", "expand_dims", "squeeze", "flatten", "concat",
    "split", "strided_slice", "take", "pad", "one_hot",
    // reduce_numeric_test.cc
    "sum", "mean", "max", "min", "variance", "argmax", "softmax", "log_softmax",
    // create_numeric_test.cc
    "zeros", "ones", "full", "zeros_like", "ones_like", "full_like",
    // nn_numeric_test.cc, nn_norm_loss_numeric_test.cc
    "nn.relu", "nn.gelu", "nn.silu", "nn.conv2d", "nn.max_pool2d", "nn.avg_pool2d", "nn.adaptive_avg_pool2d",
    "nn.batch_norm", "nn.layer_norm", "nn.nll_loss", "nn.cross_entropy_with_logits",
};

// Already legal: their legalization keeps the call.
const std::set<std::string> kBuiltins = {"call_kernel", "call_extern", "print", "assert"};

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

}  // namespace
}  // namespace rxt
