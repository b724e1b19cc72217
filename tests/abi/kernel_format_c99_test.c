/* rxt/kernel_format.h is a C99 spec a backend written in C can read: it compiles as C99 with
 * -pedantic-errors (tests/abi/CMakeLists.txt), and its codes are the bytes docs/kernel_format.md
 * lists, checked here against a kernel's first bytes as a C reader would see them. */
#include <rxt/kernel_format.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

/* The fixed start of every kernel: the magic, then the version as a little-endian u32. */
static void test_header_bytes(void) {
  const unsigned char bytes[8] = {'R', 'X', 'T', 'K', 1, 0, 0, 0};
  uint32_t version = (uint32_t)bytes[4] | (uint32_t)bytes[5] << 8 | (uint32_t)bytes[6] << 16 | (uint32_t)bytes[7] << 24;
  CHECK(bytes[0] == RXT_KF_MAGIC_0 && bytes[1] == RXT_KF_MAGIC_1 && bytes[2] == RXT_KF_MAGIC_2 &&
        bytes[3] == RXT_KF_MAGIC_3);
  CHECK(version == RXT_KF_VERSION);
}

/* Codes never change: each enumeration's values as the format documents them. */
static void test_codes(void) {
  CHECK(RXT_KF_DTYPE_UNKNOWN == 0 && RXT_KF_DTYPE_FLOAT32 == 3 && RXT_KF_DTYPE_INT64 == 8 && RXT_KF_DTYPE_BOOL == 10);
  CHECK(RXT_KF_NUM_DTYPES == 11);
  CHECK(RXT_KF_EXPR_INT_IMM == 0 && RXT_KF_EXPR_LOAD == 8 && RXT_KF_NUM_EXPR_KINDS == 9);
  CHECK(RXT_KF_OP_ADD == 0 && RXT_KF_OP_EQ == 8 && RXT_KF_OP_OR == 15 && RXT_KF_NUM_BINARY_OPS == 16);
  CHECK(RXT_KF_INTRINSIC_EXP == 0 && RXT_KF_INTRINSIC_ISNAN == 12 && RXT_KF_INTRINSIC_POW == 13);
  CHECK(RXT_KF_INTRINSIC_SIN == 14 && RXT_KF_INTRINSIC_ATANH == 24);
  CHECK(RXT_KF_NUM_INTRINSICS == 25);
  CHECK(RXT_KF_STMT_SEQ == 0 && RXT_KF_STMT_BLOCK == 5 && RXT_KF_NUM_STMT_KINDS == 6);
  CHECK(RXT_KF_LOOP_SERIAL == 0 && RXT_KF_LOOP_UNROLLED == 3 && RXT_KF_NUM_LOOP_KINDS == 4);
  CHECK(RXT_KF_ITER_SPATIAL == 0 && RXT_KF_ITER_REDUCE == 1);
  CHECK(RXT_KF_PARAM_BUFFER == 0 && RXT_KF_PARAM_SCALAR == 1);
  CHECK(RXT_KF_ATTR_NONE == 0 && RXT_KF_ATTR_TENSOR == 6 && RXT_KF_ATTR_ARRAY == 7 && RXT_KF_NUM_ATTR_KINDS == 8);
  CHECK(RXT_KF_MAX_DEPTH == 1024 && RXT_KF_MAX_NDIM == 64 && RXT_KF_MAX_ATTR_DEPTH == 64 && RXT_KF_NONE == -1);
}

/* The enum types are usable as C types. */
static void test_types(void) {
  rxt_kf_dtype_t dtype = RXT_KF_DTYPE_FLOAT16;
  rxt_kf_stmt_kind_t stmt = RXT_KF_STMT_FOR;
  CHECK(sizeof dtype >= 1 && (int)dtype == 1 && (int)stmt == 1);
}

int main(void) {
  RUN(test_header_bytes);
  RUN(test_codes);
  RUN(test_types);
  return check_report();
}
