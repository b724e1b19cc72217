/* The seed tutorial's low-level training path ("Method 2") in C, through rxt.h alone:
 *   the backbone MLP built op by op (no text), AppendLoss (cross entropy, reduction "sum"),
 *   Gradient of the six parameters, the SGD optimizer's function (lr 0.002) and initial state, a build,
 *   and three steps of: (loss, grads) = backbone_loss_adjoint(x, params, y);
 *                       (params, state) = SGD(params, grads, state).
 * Prints each loss and a hash of the final parameters' bytes: seed_low_level.cc does the same
 * with rxt's C++ API, and the test (same_result.cmake) requires the two outputs to be equal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxt/ir_builder.h"
#include "rxt/rxt.h"
#include "seed_data.h"

static int fail(const char* what, rxt_status_t status) {
  fprintf(stderr, "seed_low_level: %s: %s\n", what, rxt_status_message(status));
  rxt_status_free(status);
  exit(1);
}
#define OK(call, what)                   \
  do {                                   \
    rxt_status_t s_ = (call);            \
    if (s_ != NULL) fail((what), s_);    \
  } while (0)

/* The seed's backbone: x -> matmul w0 + b0 -> relu -> matmul w1 + b1 -> relu -> matmul w2 + b2. */
static rxt_module_t* build_backbone(void) {
  const rxt_ir_api_t* ir = rxt_ir_api();
  rxt_function_builder_t* fb = NULL;
  rxt_ir_builder_t* b;
  rxt_ir_expr_t h, p[7];
  rxt_module_t* module = NULL;
  int layer;
  OK(rxt_function_builder_create(&fb), "builder");
  b = rxt_function_builder_ir(fb);
  p[0] = ir->param(b, "x", "Tensor((64, 784), float32)");
  p[1] = ir->param(b, "w0", "Tensor((784, 128), float32)");
  p[2] = ir->param(b, "b0", "Tensor((128,), float32)");
  p[3] = ir->param(b, "w1", "Tensor((128, 128), float32)");
  p[4] = ir->param(b, "b1", "Tensor((128,), float32)");
  p[5] = ir->param(b, "w2", "Tensor((128, 10), float32)");
  p[6] = ir->param(b, "b2", "Tensor((10,), float32)");
  h = p[0];
  for (layer = 0; layer < 3; ++layer) {
    rxt_ir_expr_t mm = ir->op(b, "matmul", (rxt_ir_expr_t[]){h, p[1 + 2 * layer]}, 2, NULL);
    h = ir->op(b, "add", (rxt_ir_expr_t[]){mm, p[2 + 2 * layer]}, 2, NULL);
    if (layer < 2) h = ir->op(b, "nn.relu", &h, 1, NULL);
  }
  OK(rxt_function_builder_finish(fb, "backbone", &h, 1, &module), "finish");
  rxt_function_builder_free(fb);
  OK(rxt_module_attr_set_int(module, "param_num", 6), "param_num");
  OK(rxt_module_attr_set_int(module, "state_num", 0), "state_num");
  return module;
}

int main(void) {
  static const char* const names[6] = {"w0", "b0", "w1", "b1", "w2", "b2"};
  rxt_module_t *backbone, *with_loss = NULL, *with_grad = NULL, *full = NULL;
  DLManagedTensor* states[8];
  size_t num_states = 0, i, n;
  rxt_executable_t* exec = NULL;
  rxt_vm_t* vm = NULL;
  seed_data_t data;
  DLManagedTensor* params[6];
  int step;

  backbone = build_backbone();
  OK(rxt_module_append_loss(backbone, "backbone", "cross_entropy", "reduction=\"sum\"", 1, NULL, NULL, &with_loss),
     "AppendLoss");
  OK(rxt_module_gradient(with_loss, "backbone_loss", names, 6, 0, NULL, &with_grad), "Gradient");
  OK(rxt_module_add_optimizer(with_grad, "sgd", "lr=0.002", "backbone_loss", names, 6, "SGD", NULL, &full, states, 8,
                              &num_states),
     "optimizer");
  OK(rxt_executable_build(full, "cpu", &exec), "build");
  OK(rxt_vm_create(exec, NULL, &vm), "VM");

  seed_data_init(&data);
  for (i = 0; i < 6; ++i) params[i] = &data.param_tensors[i];
  for (step = 0; step < 3; ++step) {
    DLManagedTensor* adjoint_in[8];
    DLManagedTensor* adjoint_out[7];
    DLManagedTensor* sgd_in[12 + 8];
    DLManagedTensor* sgd_out[6 + 8];
    adjoint_in[0] = &data.x_tensor;
    for (i = 0; i < 6; ++i) adjoint_in[1 + i] = params[i];
    adjoint_in[7] = &data.y_tensor;
    OK(rxt_vm_invoke(vm, "backbone_loss_adjoint", adjoint_in, 8, adjoint_out, 7, &n), "loss_adjoint");
    printf("loss %d: %.9g\n", step, (double)*(const float*)adjoint_out[0]->dl_tensor.data);
    for (i = 0; i < 6; ++i) sgd_in[i] = params[i];
    for (i = 0; i < 6; ++i) sgd_in[6 + i] = adjoint_out[1 + i];
    for (i = 0; i < num_states; ++i) sgd_in[12 + i] = states[i];
    OK(rxt_vm_invoke(vm, "SGD", sgd_in, 12 + num_states, sgd_out, 6 + num_states, &n), "SGD");
    for (i = 0; i < 7; ++i) adjoint_out[i]->deleter(adjoint_out[i]);
    for (i = 0; i < 6; ++i) {
      if (step > 0) params[i]->deleter(params[i]);
      params[i] = sgd_out[i];
    }
    for (i = 0; i < num_states; ++i) {
      states[i]->deleter(states[i]);
      states[i] = sgd_out[6 + i];
    }
  }
  {
    uint64_t hash = 1469598103934665603ull;
    for (i = 0; i < 6; ++i) hash = fnv1a(hash, params[i]->dl_tensor.data, tensor_bytes(&params[i]->dl_tensor));
    printf("params fnv1a %016llx\n", (unsigned long long)hash);
  }
  for (i = 0; i < 6; ++i) params[i]->deleter(params[i]);
  for (i = 0; i < num_states; ++i) states[i]->deleter(states[i]);
  rxt_vm_release(vm);
  rxt_executable_release(exec);
  rxt_module_release(full);
  rxt_module_release(with_grad);
  rxt_module_release(with_loss);
  rxt_module_release(backbone);
  return 0;
}
