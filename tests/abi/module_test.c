/* Modules: parse, print, verify, reference counting, and their argument errors. */
#include <stdlib.h>

#include "check.h"
#include "test_modules.h"

static void test_parse_print_parse_is_stable(void) {
  rxt_module_t* module = parse_small_module();
  CHECK(module != NULL);
  char* text = NULL;
  CHECK_OK(rxt_module_print(module, &text));
  CHECK(text != NULL && strstr(text, "matmul(%x, %w)") != NULL);

  rxt_module_t* reparsed = NULL;
  CHECK_OK(rxt_module_parse(text, strlen(text), NULL, &reparsed));
  char* again = NULL;
  CHECK_OK(rxt_module_print(reparsed, &again));
  CHECK(text != NULL && again != NULL && strcmp(text, again) == 0);
  rxt_string_free(text);
  rxt_string_free(again);
  rxt_module_release(reparsed);
  rxt_module_release(module);
}

static void test_parse_reads_only_len_bytes(void) {
  /* Not NUL-terminated where it ends: the garbage after |len| must not be read. */
  char buffer[sizeof(kSmallModule) + 8];
  memcpy(buffer, kSmallModule, sizeof(kSmallModule) - 1);
  memcpy(buffer + sizeof(kSmallModule) - 1, "garbage!", 8);
  rxt_module_t* module = NULL;
  CHECK_OK(rxt_module_parse(buffer, sizeof(kSmallModule) - 1, "small.rxt", &module));
  rxt_module_release(module);
}

static void test_parse_errors_name_file_line_and_column(void) {
  rxt_module_t* module = NULL;
  CHECK_ERROR(rxt_module_parse(kBadModule, strlen(kBadModule), "bad.rxt", &module), RXT_INVALID_ARGUMENT,
              "bad.rxt:2:");
  CHECK(module == NULL);
  /* Without a file name the text is "<input>". */
  CHECK_ERROR(rxt_module_parse(kBadModule, strlen(kBadModule), NULL, &module), RXT_INVALID_ARGUMENT,
              "<input>:2:");
  /* An empty text is an empty module. */
  CHECK_OK(rxt_module_parse(NULL, 0, "empty.rxt", &module));
  CHECK(module != NULL);
  rxt_module_release(module);
}

static void test_verify(void) {
  rxt_module_t* module = parse_small_module();
  CHECK_OK(rxt_module_verify(module));
  rxt_module_release(module);

  module = NULL;
  CHECK_OK(rxt_module_parse(kIllFormedModule, strlen(kIllFormedModule), "ill.rxt", &module));
  CHECK_ERROR(rxt_module_verify(module), RXT_INVALID_ARGUMENT,
              "ill.rxt:3:19: @main: impure call to print inside a dataflow block");
  rxt_module_release(module);
}

static void test_retain_release(void) {
  rxt_module_t* module = parse_small_module();
  CHECK(rxt_module_retain(module) == module);
  rxt_module_release(module); /* one reference left */
  CHECK_OK(rxt_module_verify(module));
  rxt_module_release(module); /* freed (the sanitizer build checks for leaks and use after free) */
  CHECK(rxt_module_retain(NULL) == NULL);
  rxt_module_release(NULL);
}

static void test_null_arguments(void) {
  rxt_module_t* module = parse_small_module();
  char* text = NULL;
  CHECK_ERROR(rxt_module_parse("x", 1, "a.rxt", NULL), RXT_INVALID_ARGUMENT, "'out_module' is NULL");
  CHECK_ERROR(rxt_module_parse(NULL, 3, "a.rxt", &module), RXT_INVALID_ARGUMENT, "'text' is NULL");
  CHECK_ERROR(rxt_module_print(NULL, &text), RXT_INVALID_ARGUMENT, "rxt_module_print: argument 'module' is NULL");
  CHECK_ERROR(rxt_module_print(module, NULL), RXT_INVALID_ARGUMENT, "'out_text' is NULL");
  CHECK_ERROR(rxt_module_verify(NULL), RXT_INVALID_ARGUMENT, "'module' is NULL");
  CHECK(text == NULL);
  rxt_module_release(module);
}

typedef struct {
  char names[4][32];
  char infos[4][64];
  int count;
  int stop_after;
} params_seen_t;

static int see_param(void* user_data, const char* name, const char* struct_info) {
  params_seen_t* seen = (params_seen_t*)user_data;
  if (seen->count < 4) {
    strncpy(seen->names[seen->count], name, 31);
    strncpy(seen->infos[seen->count], struct_info, 63);
  }
  ++seen->count;
  return seen->count == seen->stop_after;
}

static void test_function_params(void) {
  rxt_module_t* module = parse_small_module();
  params_seen_t seen;
  memset(&seen, 0, sizeof(seen));
  CHECK_OK(rxt_module_function_params(module, "main", see_param, &seen));
  CHECK(seen.count == 2);
  CHECK(strcmp(seen.names[0], "x") == 0 && strcmp(seen.infos[0], "Tensor((2, 3), float32)") == 0);
  CHECK(strcmp(seen.names[1], "w") == 0 && strcmp(seen.infos[1], "Tensor((3, 4), float32)") == 0);
  memset(&seen, 0, sizeof(seen));
  seen.stop_after = 1; /* a non-zero return stops the walk */
  CHECK_OK(rxt_module_function_params(module, "main", see_param, &seen));
  CHECK(seen.count == 1);
  CHECK_ERROR(rxt_module_function_params(module, "backbone", see_param, &seen), RXT_NOT_FOUND,
              "the module has no function @backbone");
  CHECK_ERROR(rxt_module_function_params(module, "main", NULL, &seen), RXT_INVALID_ARGUMENT, "'visit' is NULL");
  size_t results = 0;
  CHECK_OK(rxt_module_function_num_results(module, "main", &results));
  CHECK(results == 1);
  CHECK_ERROR(rxt_module_function_num_results(module, "nope", &results), RXT_NOT_FOUND, "no function @nope");
  rxt_module_release(module);
}

int main(void) {
  RUN(test_parse_print_parse_is_stable);
  RUN(test_parse_reads_only_len_bytes);
  RUN(test_parse_errors_name_file_line_and_column);
  RUN(test_verify);
  RUN(test_retain_release);
  RUN(test_null_arguments);
  RUN(test_function_params);
  return check_report();
}
