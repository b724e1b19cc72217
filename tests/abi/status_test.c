/* Versions, statuses and strings. */
#include <stdlib.h>

#include "check.h"
#include "test_modules.h"

static void test_versions(void) {
  char expected[32];
  snprintf(expected, sizeof(expected), "%d.%d.%d", RXT_VERSION_MAJOR, RXT_VERSION_MINOR, RXT_VERSION_PATCH);
  CHECK(strcmp(rxt_version(), expected) == 0);
  CHECK(rxt_abi_version() == RXT_ABI_VERSION);
}

static void test_null_status_is_ok(void) {
  CHECK(rxt_status_code(NULL) == RXT_OK);
  CHECK(strcmp(rxt_status_message(NULL), "") == 0);
  rxt_status_free(NULL); /* a no-op */
  rxt_string_free(NULL); /* a no-op */
}

static void test_a_failure_carries_code_and_message(void) {
  rxt_module_t* module = NULL;
  rxt_status_t status = rxt_module_parse(kBadModule, strlen(kBadModule), "bad.rxt", &module);
  CHECK(status != NULL);
  CHECK(module == NULL); /* out-parameters are written only on success */
  CHECK(rxt_status_code(status) == RXT_INVALID_ARGUMENT);
  CHECK(strncmp(rxt_status_message(status), "bad.rxt:2:", 10) == 0);
  CHECK(strstr(rxt_status_message(status), ": error: ") != NULL);
  rxt_status_free(status);
}

static void test_code_names(void) {
  CHECK(strcmp(rxt_code_name(RXT_OK), "ok") == 0);
  CHECK(strcmp(rxt_code_name(RXT_CANCELLED), "cancelled") == 0);
  CHECK(strcmp(rxt_code_name(RXT_UNKNOWN), "unknown") == 0);
  CHECK(strcmp(rxt_code_name(RXT_INVALID_ARGUMENT), "invalid argument") == 0);
  CHECK(strcmp(rxt_code_name(RXT_NOT_FOUND), "not found") == 0);
  CHECK(strcmp(rxt_code_name(RXT_ALREADY_EXISTS), "already exists") == 0);
  CHECK(strcmp(rxt_code_name(RXT_RESOURCE_EXHAUSTED), "resource exhausted") == 0);
  CHECK(strcmp(rxt_code_name(RXT_FAILED_PRECONDITION), "failed precondition") == 0);
  CHECK(strcmp(rxt_code_name(RXT_OUT_OF_RANGE), "out of range") == 0);
  CHECK(strcmp(rxt_code_name(RXT_UNIMPLEMENTED), "unimplemented") == 0);
  CHECK(strcmp(rxt_code_name(RXT_INTERNAL), "internal") == 0);
  CHECK(strcmp(rxt_code_name(RXT_DATA_LOSS), "data loss") == 0);
  CHECK(strcmp(rxt_code_name((rxt_code_t)42), "unknown code") == 0);
}

/* A status of one's own (an extern function's failure): code and a copy of the message. */
static void test_created_statuses(void) {
  char message[] = "row 3 is out of range";
  rxt_status_t status = rxt_status_create(RXT_OUT_OF_RANGE, message);
  message[0] = 'X'; /* copied: the status keeps its own */
  CHECK(rxt_status_code(status) == RXT_OUT_OF_RANGE);
  CHECK(strcmp(rxt_status_message(status), "row 3 is out of range") == 0);
  rxt_status_free(status);
  CHECK(rxt_status_create(RXT_OK, "fine") == NULL); /* success is NULL */
  status = rxt_status_create((rxt_code_t)42, NULL);
  CHECK(rxt_status_code(status) == RXT_UNKNOWN); /* not in the list */
  CHECK(strcmp(rxt_status_message(status), "") == 0);
  rxt_status_free(status);
}

/* The memory limit (docs/cli.md, "Bad input"): set, read back, restored; a negative one refused. */
static void test_memory_limit(void) {
  int64_t initial = rxt_memory_limit();
  CHECK(initial >= ((int64_t)1 << 30));
  CHECK(rxt_set_memory_limit(123456) == NULL);
  CHECK(rxt_memory_limit() == 123456);
  rxt_status_t status = rxt_set_memory_limit(-1);
  CHECK(rxt_status_code(status) == RXT_INVALID_ARGUMENT);
  CHECK(strstr(rxt_status_message(status), "rxt_set_memory_limit") != NULL);
  rxt_status_free(status);
  CHECK(rxt_memory_limit() == 123456);
  CHECK(rxt_set_memory_limit(0) == NULL);
  CHECK(rxt_memory_limit() == initial);
}

int main(void) {
  RUN(test_versions);
  RUN(test_null_status_is_ok);
  RUN(test_a_failure_carries_code_and_message);
  RUN(test_code_names);
  RUN(test_created_statuses);
  RUN(test_memory_limit);
  return check_report();
}
