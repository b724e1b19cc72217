/* IR text shared by the C ABI tests. */
#ifndef RXT_TESTS_ABI_TEST_MODULES_H_
#define RXT_TESTS_ABI_TEST_MODULES_H_

#include <string.h>

#include "rxt/rxt.h"

static const char kSmallModule[] =
    "attributes {param_num = 1, state_num = 0}\n"
    "\n"
    "def @main(%x: Tensor((2, 3), float32), %w: Tensor((3, 4), float32)) -> Tensor((2, 4), float32) {\n"
    "  dataflow {\n"
    "    %y: Tensor((2, 4), float32) = matmul(%x, %w)\n"
    "    %unused: Tensor((2, 4), float32) = nn.relu(%y)\n"
    "    output %y\n"
    "  }\n"
    "  return %y\n"
    "}\n";

/* A syntax error on line 2. */
static const char kBadModule[] =
    "attributes {param_num = 1}\n"
    "def @main(%x: Tensor((2, 3), float32)) -> {\n";

/* Parses, but is not well formed: an impure call inside a dataflow block (line 3). */
static const char kIllFormedModule[] =
    "def @main(%x: Tensor((2, 3), float32)) -> Tensor((2, 3), float32) {\n"
    "  dataflow {\n"
    "    %p: Tuple() = print(%x, format=\"\")\n"
    "    %y: Tensor((2, 3), float32) = nn.relu(%x)\n"
    "    output %y\n"
    "  }\n"
    "  return %y\n"
    "}\n";

/* Parses kSmallModule; NULL on failure (reported by the caller's checks). */
static inline rxt_module_t* parse_small_module(void) {
  rxt_module_t* module = NULL;
  rxt_status_t status = rxt_module_parse(kSmallModule, strlen(kSmallModule), "small.rxt", &module);
  if (status != NULL) {
    rxt_status_free(status);
    return NULL;
  }
  return module;
}

#endif /* RXT_TESTS_ABI_TEST_MODULES_H_ */
