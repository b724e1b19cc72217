/* Pass pipelines and the op and pass listings. */
#include <stddef.h>
#include <stdlib.h>

#include "check.h"
#include "test_modules.h"

typedef struct {
  int count;
  int stop_after; /* 0: never */
  int found;      /* the wanted name was seen */
  const char* wanted;
  char wanted_summary[256];
} Listing;

static int visit(void* user_data, const char* name, const char* summary) {
  Listing* listing = (Listing*)user_data;
  ++listing->count;
  if (listing->wanted != NULL && strcmp(name, listing->wanted) == 0) {
    listing->found = 1;
    snprintf(listing->wanted_summary, sizeof(listing->wanted_summary), "%s", summary);
  }
  return listing->stop_after != 0 && listing->count >= listing->stop_after;
}

static void test_ops_list(void) {
  Listing listing = {0, 0, 0, "matmul", ""};
  CHECK_OK(rxt_ops_list(visit, &listing));
  CHECK(listing.count > 50);
  CHECK(listing.found);
  CHECK(strlen(listing.wanted_summary) > 0 && strchr(listing.wanted_summary, '\n') == NULL);
  Listing stopped = {0, 3, 0, NULL, ""};
  CHECK_OK(rxt_ops_list(visit, &stopped));
  CHECK(stopped.count == 3);
  CHECK_ERROR(rxt_ops_list(NULL, NULL), RXT_INVALID_ARGUMENT, "'visit' is NULL");
}

static void test_passes_list(void) {
  Listing listing = {0, 0, 0, "DeadCodeElimination", ""};
  CHECK_OK(rxt_passes_list(visit, &listing));
  CHECK(listing.count >= 6);
  CHECK(listing.found);
  CHECK(strlen(listing.wanted_summary) > 0);
  Listing stopped = {0, 1, 0, NULL, ""};
  CHECK_OK(rxt_passes_list(visit, &stopped));
  CHECK(stopped.count == 1);
  CHECK_ERROR(rxt_passes_list(NULL, NULL), RXT_INVALID_ARGUMENT, "'visit' is NULL");
}

static void test_run_passes_returns_a_new_module(void) {
  rxt_module_t* module = parse_small_module();
  const char* names[] = {"DeadCodeElimination"};
  rxt_module_t* result = NULL;
  CHECK_OK(rxt_module_run_passes(module, names, 1, NULL, &result));
  char* before = NULL;
  char* after = NULL;
  CHECK_OK(rxt_module_print(module, &before));
  CHECK_OK(rxt_module_print(result, &after));
  CHECK(before != NULL && strstr(before, "%unused") != NULL); /* the input is unchanged */
  CHECK(after != NULL && strstr(after, "%unused") == NULL);   /* the dead binding is gone */
  rxt_string_free(before);
  rxt_string_free(after);
  rxt_module_release(result);

  /* No pass at all: a copy. */
  CHECK_OK(rxt_module_run_passes(module, NULL, 0, NULL, &result));
  CHECK(result != NULL && result != module);
  rxt_module_release(result);
  rxt_module_release(module);
}

static void test_options(void) {
  rxt_module_t* module = parse_small_module();
  const char* names[] = {"DeadCodeElimination"};
  const char* disabled[] = {"DeadCodeElimination"};
  rxt_module_t* result = NULL;
  rxt_pass_options_t options;
  char* text = NULL;

  rxt_pass_options_init(&options);
  CHECK(options.struct_size == sizeof(rxt_pass_options_t));
  CHECK(options.opt_level == 2);
  CHECK(options.verify_each == 0);
  CHECK(options.disabled == NULL && options.num_disabled == 0);
  rxt_pass_options_init(NULL); /* a no-op */

  /* A disabled pass does not run. */
  options.verify_each = 1;
  options.disabled = disabled;
  options.num_disabled = 1;
  CHECK_OK(rxt_module_run_passes(module, names, 1, &options, &result));
  CHECK_OK(rxt_module_print(result, &text));
  CHECK(text != NULL && strstr(text, "%unused") != NULL);
  rxt_string_free(text);
  rxt_module_release(result);
  result = NULL;

  /* An older caller's smaller struct: the missing fields take their defaults. */
  options.struct_size = sizeof(size_t) + sizeof(int32_t);
  CHECK_OK(rxt_module_run_passes(module, names, 1, &options, &result));
  CHECK_OK(rxt_module_print(result, &text));
  CHECK(text != NULL && strstr(text, "%unused") == NULL); /* "disabled" was beyond its size */
  rxt_string_free(text);
  rxt_module_release(result);
  result = NULL;

  /* A newer caller's larger struct: fine while the fields unknown here are zero; otherwise
   * RXT_UNIMPLEMENTED naming the struct and the first non-zero byte. */
  {
    typedef struct {
      rxt_pass_options_t known;
      int64_t future_zero;
      int64_t future_set;
    } newer_pass_options_t;
    newer_pass_options_t newer;
    char expected[160];
    memset(&newer, 0, sizeof(newer));
    rxt_pass_options_init(&newer.known);
    newer.known.struct_size = sizeof(newer);
    CHECK_OK(rxt_module_run_passes(module, names, 1, &newer.known, &result));
    rxt_module_release(result);
    result = NULL;
    newer.future_set = 1;
    snprintf(expected, sizeof(expected), "byte %u of", (unsigned)offsetof(newer_pass_options_t, future_set));
    CHECK_ERROR(rxt_module_run_passes(module, names, 1, &newer.known, &result), RXT_UNIMPLEMENTED, expected);
    snprintf(expected, sizeof(expected),
             "rxt_module_run_passes: options set a field this library (ABI %d) does not know: rxt_pass_options_t",
             RXT_ABI_VERSION);
    CHECK_ERROR(rxt_module_run_passes(module, names, 1, &newer.known, &result), RXT_UNIMPLEMENTED, expected);
    CHECK(result == NULL);
  }

  options.struct_size = 0;
  CHECK_ERROR(rxt_module_run_passes(module, names, 1, &options, &result), RXT_INVALID_ARGUMENT, "struct_size");
  rxt_pass_options_init(&options);
  options.num_disabled = 2;
  CHECK_ERROR(rxt_module_run_passes(module, names, 1, &options, &result), RXT_INVALID_ARGUMENT,
              "options.disabled is NULL");
  rxt_module_release(module);
}

static void test_errors(void) {
  rxt_module_t* module = parse_small_module();
  rxt_module_t* result = NULL;
  const char* unknown[] = {"NoSuchPass"};
  const char* null_name[] = {NULL};
  CHECK_ERROR(rxt_module_run_passes(module, unknown, 1, NULL, &result), RXT_NOT_FOUND, "NoSuchPass");
  CHECK_ERROR(rxt_module_run_passes(module, null_name, 1, NULL, &result), RXT_INVALID_ARGUMENT, "'names[i]' is NULL");
  CHECK_ERROR(rxt_module_run_passes(module, NULL, 1, NULL, &result), RXT_INVALID_ARGUMENT, "'names' is NULL");
  CHECK_ERROR(rxt_module_run_passes(NULL, unknown, 1, NULL, &result), RXT_INVALID_ARGUMENT, "'module' is NULL");
  CHECK_ERROR(rxt_module_run_passes(module, unknown, 1, NULL, NULL), RXT_INVALID_ARGUMENT, "'out_module' is NULL");
  CHECK(result == NULL);
  rxt_module_release(module);
}

/* A name may carry options (and several passes): "ConvertToDataflow(min_size=3)". */
static void test_pass_options_in_names(void) {
  rxt_module_t* module = parse_small_module();
  const char* good[] = {"DeadCodeElimination(remove_unused_kernels=true), Normalize"};
  const char* unknown_option[] = {"DeadCodeElimination(remove=true)"};
  const char* malformed[] = {"DeadCodeElimination(remove_unused_kernels=true"};
  rxt_module_t* result = NULL;
  CHECK_OK(rxt_module_run_passes(module, good, 1, NULL, &result));
  CHECK(result != NULL);
  rxt_module_release(result);
  CHECK_ERROR(rxt_module_run_passes(module, unknown_option, 1, NULL, &result), RXT_INVALID_ARGUMENT,
              "pass DeadCodeElimination has no option 'remove'");
  CHECK_ERROR(rxt_module_run_passes(module, malformed, 1, NULL, &result), RXT_INVALID_ARGUMENT, "are not closed");
  rxt_module_release(module);
}

/* Options by "<PassName>.<option>" in rxt_pass_options_t: the same as in parentheses. */
static int kernel_kept_after(rxt_module_t* module, const rxt_pass_options_t* options) {
  const char* names[] = {"LegalizeOps", "DeadCodeElimination"};
  rxt_module_t* result = NULL;
  char* text = NULL;
  int kept = 0;
  CHECK_OK(rxt_module_run_passes(module, names, 2, options, &result));
  CHECK_OK(rxt_module_print(result, &text));
  kept = text != NULL && strstr(text, "kernel @relu") != NULL; /* %unused's kernel */
  rxt_string_free(text);
  rxt_module_release(result);
  return kept;
}

static void test_pass_options_in_config(void) {
  rxt_module_t* module = parse_small_module();
  rxt_module_t* result = NULL;
  rxt_pass_options_t options;
  const char* keys[] = {"DeadCodeElimination.remove_unused_kernels"};
  const char* values[] = {"true"};
  const char* names[] = {"DeadCodeElimination(remove_unused_kernels=false)"};
  const char* bad_keys[] = {"DeadCodeElimination.remove", "remove_unused_kernels", "NoSuchPass.x"};
  const char* bad_values[] = {"[true", "true, min_size=3"};

  rxt_pass_options_init(&options);
  CHECK(options.config_keys == NULL && options.config_values == NULL && options.num_config == 0);
  CHECK(kernel_kept_after(module, &options)); /* the option's default: kernels stay */
  options.config_keys = keys;
  options.config_values = values;
  options.num_config = 1;
  CHECK(!kernel_kept_after(module, &options));

  /* Given both ways, bad names and values: each named. */
  CHECK_ERROR(rxt_module_run_passes(module, names, 1, &options, &result), RXT_INVALID_ARGUMENT,
              "pass DeadCodeElimination is given option 'remove_unused_kernels' twice");
  options.config_keys = bad_keys;
  CHECK_ERROR(rxt_module_run_passes(module, names, 0, &options, &result), RXT_INVALID_ARGUMENT,
              "pass DeadCodeElimination has no option 'remove'; its options: remove_unused_kernels");
  options.config_keys = bad_keys + 1;
  CHECK_ERROR(rxt_module_run_passes(module, names, 0, &options, &result), RXT_INVALID_ARGUMENT,
              "expected <PassName>.<option>");
  options.config_keys = bad_keys + 2;
  CHECK_ERROR(rxt_module_run_passes(module, names, 0, &options, &result), RXT_NOT_FOUND, "NoSuchPass");
  options.config_keys = keys;
  options.config_values = bad_values;
  CHECK_ERROR(rxt_module_run_passes(module, names, 0, &options, &result), RXT_INVALID_ARGUMENT,
              "pass option DeadCodeElimination.remove_unused_kernels");
  options.config_values = bad_values + 1;
  CHECK_ERROR(rxt_module_run_passes(module, names, 0, &options, &result), RXT_INVALID_ARGUMENT, "is not one value");
  options.config_values = NULL;
  CHECK_ERROR(rxt_module_run_passes(module, names, 0, &options, &result), RXT_INVALID_ARGUMENT,
              "config_keys or config_values is NULL");
  CHECK(result == NULL);
  rxt_module_release(module);
}

int main(void) {
  RUN(test_pass_options_in_config);
  RUN(test_ops_list);
  RUN(test_pass_options_in_names);
  RUN(test_passes_list);
  RUN(test_run_passes_returns_a_new_module);
  RUN(test_options);
  RUN(test_errors);
  return check_report();
}
