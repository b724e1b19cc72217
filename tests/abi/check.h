/* A tiny test harness for the C ABI tests (plain C99, no dependencies).
 *
 *   static void test_something(void) { CHECK(x == 1); CHECK_OK(rxt_...); }
 *   int main(int argc, char** argv) { RUN(test_something); return check_report(); }
 */
#ifndef RXT_TESTS_ABI_CHECK_H_
#define RXT_TESTS_ABI_CHECK_H_

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxt/rxt.h"

static int check_failures = 0;
static int check_count = 0;

#define CHECK(cond)                                                      \
  do {                                                                   \
    ++check_count;                                                       \
    if (!(cond)) {                                                       \
      ++check_failures;                                                  \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                    \
  } while (0)

/* The call succeeds (a failing status is printed and freed). */
#define CHECK_OK(call)                                                                      \
  do {                                                                                      \
    rxt_status_t check_status_ = (call);                                                    \
    ++check_count;                                                                          \
    if (check_status_ != NULL) {                                                            \
      ++check_failures;                                                                     \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                  \
              rxt_status_message(check_status_));                                           \
    }                                                                                       \
    rxt_status_free(check_status_);                                                         \
  } while (0)

/* The call fails with |code| and a message containing |needle|. */
#define CHECK_ERROR(call, code, needle) check_error((call), (code), (needle), #call, __FILE__, __LINE__)

static inline void check_error(rxt_status_t status, rxt_code_t code, const char* needle, const char* call,
                        const char* file, int line) {
  ++check_count;
  if (status == NULL) {
    ++check_failures;
    fprintf(stderr, "%s:%d: %s succeeded, expected %s\n", file, line, call, rxt_code_name(code));
    return;
  }
  if (rxt_status_code(status) != code || strstr(rxt_status_message(status), needle) == NULL) {
    ++check_failures;
    fprintf(stderr, "%s:%d: %s: expected %s containing \"%s\", got %s: %s\n", file, line, call,
            rxt_code_name(code), needle, rxt_code_name(rxt_status_code(status)), rxt_status_message(status));
  }
  rxt_status_free(status);
}

#define RUN(test)                      \
  do {                                 \
    int before_ = check_failures;      \
    test();                            \
    fprintf(stderr, "%s %s\n", check_failures == before_ ? "[ OK ]" : "[FAIL]", #test); \
  } while (0)

/* The whole file at |path| as a NUL-terminated string (free it), or NULL if it cannot be read. */
static inline char* check_read_file(const char* path) {
  FILE* file = fopen(path, "rb");
  char* text;
  long size;
  if (file == NULL) return NULL;
  fseek(file, 0, SEEK_END);
  size = ftell(file);
  fseek(file, 0, SEEK_SET);
  text = (char*)malloc((size_t)size + 1);
  if (text != NULL) {
    if (fread(text, 1, (size_t)size, file) != (size_t)size) size = 0;
    text[size] = '\0';
  }
  fclose(file);
  return text;
}

static inline int check_report(void) {
  fprintf(stderr, "%d checks, %d failed\n", check_count, check_failures);
  return check_failures == 0 ? 0 : 1;
}

#endif /* RXT_TESTS_ABI_CHECK_H_ */
