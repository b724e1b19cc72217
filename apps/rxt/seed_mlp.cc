// SeedMlpText (seed_mlp.h): examples/mlp.rxt with the batch size filled in; a test checks that
// for 64 it is the example itself.
#include "seed_mlp.h"

#include "rxt/support/error.h"

namespace rxt::cli {

std::string SeedMlpText(int64_t batch) {
  std::string b = std::to_string(batch);
  return StrCat(
      "# The seed's backbone MLP (784-128-128-10) for Fashion-MNIST, batch ", b, ".\n",
      "attributes {param_num = 6, state_num = 0}\n\n",
      "def @backbone(%x: Tensor((", b, ", 784), float32),\n",
      "              %w0: Tensor((784, 128), float32), %b0: Tensor((128,), float32),\n",
      "              %w1: Tensor((128, 128), float32), %b1: Tensor((128,), float32),\n",
      "              %w2: Tensor((128, 10), float32), %b2: Tensor((10,), float32)) -> Tensor((", b,
      ", 10), float32) {\n",
      "  dataflow {\n",
      "    %lv0: Tensor((", b, ", 128), float32) = matmul(%x, %w0)\n",
      "    %lv1: Tensor((", b, ", 128), float32) = add(%lv0, %b0)\n",
      "    %lv2: Tensor((", b, ", 128), float32) = nn.relu(%lv1)\n",
      "    %lv3: Tensor((", b, ", 128), float32) = matmul(%lv2, %w1)\n",
      "    %lv4: Tensor((", b, ", 128), float32) = add(%lv3, %b1)\n",
      "    %lv5: Tensor((", b, ", 128), float32) = nn.relu(%lv4)\n",
      "    %lv6: Tensor((", b, ", 10), float32) = matmul(%lv5, %w2)\n",
      "    %out: Tensor((", b, ", 10), float32) = add(%lv6, %b2)\n",
      "    output %out\n",
      "  }\n",
      "  return %out\n",
      "}\n");
}

}  // namespace rxt::cli
