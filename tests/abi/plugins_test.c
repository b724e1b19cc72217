/* The process-wide plugin host through the C ABI, with the plugins of tests/plugins. */
#define _POSIX_C_SOURCE 200112L /* setenv */
#include <stdlib.h>

#include "check.h"

#define FIXTURES RXT_TEST_PLUGIN_DIR

typedef struct {
  int count;
  char names[8][64];
  size_t num_optimizers, num_losses, num_gradients, num_backends;
  uint32_t abi_version;
  char version[32];
} PluginListing;

static int visit_plugin(void* user_data, const rxt_plugin_info_t* info) {
  PluginListing* listing = (PluginListing*)user_data;
  if (listing->count < 8) snprintf(listing->names[listing->count], 64, "%s", info->name);
  ++listing->count;
  CHECK(info->struct_size == sizeof(rxt_plugin_info_t));
  CHECK(strstr(info->path, ".so") != NULL);
  if (strcmp(info->name, "test_good") == 0) {
    listing->num_optimizers = info->num_optimizers;
    listing->num_losses = info->num_losses;
    listing->num_gradients = info->num_gradients;
    listing->num_backends = info->num_backends;
    listing->abi_version = info->abi_version;
    snprintf(listing->version, sizeof(listing->version), "%s", info->version);
  }
  return 0;
}

typedef struct {
  int count;
  char names[8][64];
} ItemListing;

static int visit_item(void* user_data, const char* name, const char* summary) {
  ItemListing* listing = (ItemListing*)user_data;
  (void)summary;
  if (listing->count < 8) snprintf(listing->names[listing->count], 64, "%s", name);
  ++listing->count;
  return 0;
}

static int stop_at_first(void* user_data, const rxt_plugin_info_t* info) {
  (void)info;
  ++*(int*)user_data;
  return 1;
}

static void test_load_and_list(void) {
  PluginListing plugins;
  ItemListing items;
  memset(&plugins, 0, sizeof(plugins));
  CHECK_OK(rxt_plugins_list(visit_plugin, &plugins));
  CHECK(plugins.count == 0);

  CHECK_OK(rxt_plugin_load(FIXTURES "/search/test_good.so"));
  CHECK_OK(rxt_plugin_load(FIXTURES "/search/test_good.so")); /* again: a no-op */
  CHECK_OK(rxt_plugins_list(visit_plugin, &plugins));
  CHECK(plugins.count == 1);
  CHECK(strcmp(plugins.names[0], "test_good") == 0);
  CHECK(strcmp(plugins.version, "1.2.3") == 0);
  CHECK(plugins.abi_version == 3); /* test_good speaks the current plugin ABI, 3 */
  CHECK(plugins.num_optimizers == 2 && plugins.num_losses == 1);
  CHECK(plugins.num_gradients == 1 && plugins.num_backends == 1);

  memset(&items, 0, sizeof(items));
  CHECK_OK(rxt_plugin_items_list(RXT_PLUGIN_OPTIMIZER, visit_item, &items));
  CHECK(items.count == 2);
  CHECK(strcmp(items.names[0], "test_momentum") == 0 && strcmp(items.names[1], "test_sgd") == 0);
  memset(&items, 0, sizeof(items));
  CHECK_OK(rxt_plugin_items_list(RXT_PLUGIN_GRADIENT, visit_item, &items));
  CHECK(items.count == 1 && strcmp(items.names[0], "argmax") == 0);
  memset(&items, 0, sizeof(items));
  CHECK_OK(rxt_plugin_items_list(RXT_PLUGIN_BACKEND, visit_item, &items));
  CHECK(items.count == 1 && strcmp(items.names[0], "test_cpu") == 0);
  memset(&items, 0, sizeof(items));
  CHECK_OK(rxt_plugin_items_list(RXT_PLUGIN_LOSS, visit_item, &items));
  CHECK(items.count == 1 && strcmp(items.names[0], "test_l2") == 0);
}

static void test_load_errors_leave_the_host_working(void) {
  PluginListing plugins;
  int visited = 0;
  CHECK_ERROR(rxt_plugin_load(FIXTURES "/missing.so"), RXT_NOT_FOUND, "missing.so: no such file");
  CHECK_ERROR(rxt_plugin_load(FIXTURES "/bad/not_a_library.so"), RXT_INVALID_ARGUMENT, "not a shared library");
  CHECK_ERROR(rxt_plugin_load(FIXTURES "/bad/test_no_entry.so"), RXT_NOT_FOUND, "has no entry point");
  CHECK_ERROR(rxt_plugin_load(FIXTURES "/bad/test_wrong_abi.so"), RXT_FAILED_PRECONDITION, "ABI version 99");
  CHECK_ERROR(rxt_plugin_load(FIXTURES "/bad/test_duplicate_across.so"), RXT_ALREADY_EXISTS,
              "optimizer 'test_sgd' is already provided by plugin 'test_good'");
  CHECK_ERROR(rxt_plugin_load(FIXTURES "/bad/test_duplicate_within.so"), RXT_ALREADY_EXISTS, "twice");
  CHECK_ERROR(rxt_plugin_load(FIXTURES "/bad/test_declining.so"), RXT_FAILED_PRECONDITION, "declined");
  CHECK_ERROR(rxt_plugin_load(NULL), RXT_INVALID_ARGUMENT, "'path' is NULL");

  CHECK_OK(rxt_plugin_load(FIXTURES "/search/test_other.so"));
  memset(&plugins, 0, sizeof(plugins));
  CHECK_OK(rxt_plugins_list(visit_plugin, &plugins));
  CHECK(plugins.count == 2);
  CHECK(strcmp(plugins.names[1], "test_other") == 0);
  CHECK_OK(rxt_plugins_list(stop_at_first, &visited));
  CHECK(visited == 1);
}

static void test_search_path(void) {
  /* Only the bad plugins on the search path: every file fails (the one clashing with
   * test_good included), and the status lists them all. */
  PluginListing plugins;
  rxt_status_t status;
  CHECK(setenv("RXT_PLUGIN_PATH", FIXTURES "/bad", 1) == 0);
  status = rxt_plugins_load_search_path();
  CHECK(status != NULL);
  CHECK(strstr(rxt_status_message(status), "test_no_entry.so") != NULL);
  CHECK(strstr(rxt_status_message(status), "not_a_library.so") != NULL);
  CHECK(strstr(rxt_status_message(status), "test_duplicate_across.so") != NULL);
  rxt_status_free(status);
  memset(&plugins, 0, sizeof(plugins));
  CHECK_OK(rxt_plugins_list(visit_plugin, &plugins));
  /* The two loaded before are still there (the build's own plugins may follow them). */
  CHECK(plugins.count >= 2);
  CHECK(strcmp(plugins.names[0], "test_good") == 0 && strcmp(plugins.names[1], "test_other") == 0);
}

static void test_argument_errors(void) {
  ItemListing items;
  CHECK_ERROR(rxt_plugins_list(NULL, NULL), RXT_INVALID_ARGUMENT, "'visit' is NULL");
  CHECK_ERROR(rxt_plugin_items_list(RXT_PLUGIN_LOSS, NULL, NULL), RXT_INVALID_ARGUMENT, "'visit' is NULL");
  CHECK_ERROR(rxt_plugin_items_list((rxt_plugin_item_kind_t)9, visit_item, &items), RXT_INVALID_ARGUMENT,
              "9 is not a plugin item kind");
}

int main(void) {
  RUN(test_load_and_list);
  RUN(test_load_errors_leave_the_host_working);
  RUN(test_search_path);
  RUN(test_argument_errors);
  return check_report();
}
