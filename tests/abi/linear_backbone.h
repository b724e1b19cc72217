/* The linear backbone the C ABI's trainer and context tests train: 4 samples, 3 features,
 * 2 outputs, parameters w and b. */
#ifndef RXT_TESTS_ABI_LINEAR_BACKBONE_H_
#define RXT_TESTS_ABI_LINEAR_BACKBONE_H_

static const char kLinearBackbone[] =
    "attributes {param_num = 2, state_num = 0}\n"
    "def @backbone(%x: Tensor((4, 3), float32), %w: Tensor((3, 2), float32), %b: Tensor((2,), float32))\n"
    "    -> Tensor((4, 2), float32) {\n"
    "  dataflow {\n"
    "    %h = matmul(%x, %w)\n"
    "    %out = add(%h, %b)\n"
    "    output %out\n"
    "  }\n"
    "  return %out\n"
    "}\n";

#endif /* RXT_TESTS_ABI_LINEAR_BACKBONE_H_ */
