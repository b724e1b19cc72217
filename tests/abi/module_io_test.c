/* rxt_module_import and rxt_module_export through the C ABI, with the toy importer (".toy") and
 * the listing exporter (".listing") of tests/plugins/fixtures, loaded into a context. */
#include "check.h"

#define FIXTURES RXT_TEST_PLUGIN_DIR "/ir"
#define TMP RXT_TEST_TMP_DIR "/module_io_"

static void write_file(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  CHECK(f != NULL);
  if (f == NULL) return;
  fputs(text, f);
  fclose(f);
}

/* The file's contents (at most 16 KiB), NUL-terminated. */
static void read_file(const char* path, char* out, size_t size) {
  FILE* f = fopen(path, "r");
  size_t n = 0;
  out[0] = '\0';
  CHECK(f != NULL);
  if (f == NULL) return;
  n = fread(out, 1, size - 1, f);
  out[n] = '\0';
  fclose(f);
}

static rxt_context_t* context_with_fixtures(void) {
  rxt_context_t* context = NULL;
  rxt_context_options_t options;
  rxt_context_options_init(&options);
  CHECK_OK(rxt_context_create(&options, &context));
  CHECK_OK(rxt_context_load_plugin(context, FIXTURES "/test_importer.so"));
  CHECK_OK(rxt_context_load_plugin(context, FIXTURES "/test_exporter.so"));
  return context;
}

static void test_import_then_export(void) {
  rxt_context_t* context = context_with_fixtures();
  rxt_module_t* module = NULL;
  char* text = NULL;
  static char listing[16384];
  write_file(TMP "model.toy", "linear 3 2\n");
  CHECK_OK(rxt_module_import(context, TMP "model.toy", "batch=5", TMP "values.safetensors", &module));
  CHECK(module != NULL);
  CHECK_OK(rxt_module_print(module, &text));
  CHECK(text != NULL && strstr(text, "linear(") != NULL && strstr(text, "(5, 3)") != NULL);
  rxt_string_free(text);

  /* The values the import wrote go with the export: w is 0.5 everywhere. */
  CHECK_OK(rxt_module_export(context, module, NULL, TMP "values.safetensors", TMP "out.listing", NULL));
  read_file(TMP "out.listing", listing, sizeof(listing));
  CHECK(strstr(listing, "input %w: Tensor((2, 3), float32) = value float ndim 2 first 0.5") != NULL);
  CHECK(strstr(listing, "output") != NULL);

  /* A refused export leaves the file as it was. */
  CHECK_ERROR(rxt_module_export(context, module, NULL, TMP "values.safetensors", TMP "out.listing", "fail"),
              RXT_UNIMPLEMENTED, "listing exporter");
  {
    static char again[16384];
    read_file(TMP "out.listing", again, sizeof(again));
    CHECK(strcmp(again, listing) == 0);
  }
  /* A backbone needs its parameters' values. */
  CHECK_ERROR(rxt_module_export(context, module, NULL, NULL, TMP "novalues.listing", NULL), RXT_NOT_FOUND, "no value for");
  rxt_module_release(module);
  rxt_context_release(context);
}

static void test_refusals(void) {
  rxt_context_t* context = context_with_fixtures();
  rxt_module_t* module = NULL;
  write_file(TMP "bad.toy", "what is this\n");
  CHECK_ERROR(rxt_module_import(context, TMP "bad.toy", NULL, NULL, &module), RXT_INVALID_ARGUMENT,
              "toy importer: line 1: not a toy model");
  CHECK(module == NULL);
  CHECK_ERROR(rxt_module_import(context, TMP "model.unknownformat", NULL, NULL, &module), RXT_NOT_FOUND, "importer");
  CHECK_ERROR(rxt_module_import(context, NULL, NULL, NULL, &module), RXT_INVALID_ARGUMENT, "path");
  write_file(TMP "ok.toy", "linear 2 2\n");
  CHECK_ERROR(rxt_module_import(context, TMP "ok.toy", NULL, NULL, NULL), RXT_INVALID_ARGUMENT, "out_module");
  CHECK_OK(rxt_module_import(context, TMP "ok.toy", NULL, NULL, &module));
  CHECK_ERROR(rxt_module_export(context, module, NULL, NULL, TMP "x.nosuchformat", NULL), RXT_NOT_FOUND, "exporter");
  CHECK_ERROR(rxt_module_export(context, module, NULL, TMP "missing.safetensors", TMP "x.listing", NULL), RXT_NOT_FOUND,
              "missing.safetensors");
  CHECK_ERROR(rxt_module_export(context, NULL, NULL, NULL, TMP "x.listing", NULL), RXT_INVALID_ARGUMENT, "module");
  rxt_module_release(module);
  rxt_context_release(context);
}

int main(void) {
  RUN(test_import_then_export);
  RUN(test_refusals);
  return check_report();
}
