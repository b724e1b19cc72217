/* Module attributes: listing, typed getters and setters, kind mismatches. */
#include <stdlib.h>

#include "check.h"
#include "test_modules.h"

static void test_lists_names_in_order(void) {
  rxt_module_t* module = parse_small_module();
  size_t count = 0;
  char* name = NULL;
  CHECK_OK(rxt_module_attr_count(module, &count));
  CHECK(count == 2);
  CHECK_OK(rxt_module_attr_name(module, 0, &name));
  CHECK(name != NULL && strcmp(name, "param_num") == 0);
  rxt_string_free(name);
  CHECK_OK(rxt_module_attr_name(module, 1, &name));
  CHECK(name != NULL && strcmp(name, "state_num") == 0);
  rxt_string_free(name);
  name = NULL;
  CHECK_ERROR(rxt_module_attr_name(module, 2, &name), RXT_OUT_OF_RANGE, "index 2 is out of range");
  CHECK(name == NULL);
  rxt_module_release(module);
}

static void test_typed_get_and_set(void) {
  rxt_module_t* module = parse_small_module();
  int64_t i = 0;
  double f = 0;
  char* s = NULL;
  rxt_attr_kind_t kind = RXT_ATTR_NONE;
  CHECK_OK(rxt_module_attr_get_int(module, "param_num", &i));
  CHECK(i == 1);
  CHECK_OK(rxt_module_attr_kind(module, "param_num", &kind));
  CHECK(kind == RXT_ATTR_INT);

  CHECK_OK(rxt_module_attr_set_float(module, "lr", 0.125));
  CHECK_OK(rxt_module_attr_get_float(module, "lr", &f));
  CHECK(f == 0.125);
  CHECK_OK(rxt_module_attr_kind(module, "lr", &kind));
  CHECK(kind == RXT_ATTR_FLOAT);

  CHECK_OK(rxt_module_attr_set_string(module, "optimizer", "sgd \"plain\""));
  CHECK_OK(rxt_module_attr_get_string(module, "optimizer", &s));
  CHECK(s != NULL && strcmp(s, "sgd \"plain\"") == 0);
  rxt_string_free(s);
  CHECK_OK(rxt_module_attr_kind(module, "optimizer", &kind));
  CHECK(kind == RXT_ATTR_STRING);

  /* Setting replaces in place, whatever the kind was. */
  CHECK_OK(rxt_module_attr_set_int(module, "param_num", 6));
  CHECK_OK(rxt_module_attr_get_int(module, "param_num", &i));
  CHECK(i == 6);
  CHECK_OK(rxt_module_attr_set_int(module, "lr", -3));
  CHECK_OK(rxt_module_attr_get_int(module, "lr", &i));
  CHECK(i == -3);
  rxt_module_release(module);
}

static void test_changes_survive_printing(void) {
  rxt_module_t* module = parse_small_module();
  CHECK_OK(rxt_module_attr_set_float(module, "lr", 0.5));
  CHECK_OK(rxt_module_attr_set_string(module, "name", "mlp"));
  char* text = NULL;
  CHECK_OK(rxt_module_print(module, &text));
  rxt_module_t* reparsed = NULL;
  CHECK_OK(rxt_module_parse(text, text != NULL ? strlen(text) : 0, "printed.rxt", &reparsed));
  double f = 0;
  char* s = NULL;
  CHECK_OK(rxt_module_attr_get_float(reparsed, "lr", &f));
  CHECK(f == 0.5);
  CHECK_OK(rxt_module_attr_get_string(reparsed, "name", &s));
  CHECK(s != NULL && strcmp(s, "mlp") == 0);
  rxt_string_free(s);
  rxt_string_free(text);
  rxt_module_release(reparsed);
  rxt_module_release(module);
}

static void test_a_retained_module_is_shared(void) {
  rxt_module_t* module = parse_small_module();
  rxt_module_t* other = rxt_module_retain(module);
  int64_t i = 0;
  CHECK_OK(rxt_module_attr_set_int(module, "state_num", 2));
  CHECK_OK(rxt_module_attr_get_int(other, "state_num", &i));
  CHECK(i == 2);
  rxt_module_release(other);
  rxt_module_release(module);
}

static void test_errors(void) {
  rxt_module_t* module = parse_small_module();
  int64_t i = 0;
  double f = 0;
  char* s = NULL;
  size_t count = 0;
  rxt_attr_kind_t kind = RXT_ATTR_NONE;
  CHECK_ERROR(rxt_module_attr_get_int(module, "missing", &i), RXT_NOT_FOUND, "no attribute 'missing'");
  CHECK_ERROR(rxt_module_attr_get_float(module, "missing", &f), RXT_NOT_FOUND, "'missing'");
  CHECK_ERROR(rxt_module_attr_get_string(module, "missing", &s), RXT_NOT_FOUND, "'missing'");
  CHECK_ERROR(rxt_module_attr_kind(module, "missing", &kind), RXT_NOT_FOUND, "'missing'");
  /* A kind mismatch names both kinds. */
  CHECK_ERROR(rxt_module_attr_get_float(module, "param_num", &f), RXT_INVALID_ARGUMENT,
              "'param_num' is of kind int, not float");
  CHECK_ERROR(rxt_module_attr_get_string(module, "param_num", &s), RXT_INVALID_ARGUMENT, "not string");
  CHECK_OK(rxt_module_attr_set_string(module, "text", "x"));
  CHECK_ERROR(rxt_module_attr_get_int(module, "text", &i), RXT_INVALID_ARGUMENT, "'text' is of kind string, not int");
  CHECK(s == NULL);
  /* Names must print back as identifiers. */
  CHECK_ERROR(rxt_module_attr_set_int(module, "two words", 1), RXT_INVALID_ARGUMENT, "not a valid attribute name");
  CHECK_ERROR(rxt_module_attr_set_int(module, "", 1), RXT_INVALID_ARGUMENT, "not a valid attribute name");
  CHECK_ERROR(rxt_module_attr_set_float(module, "1st", 1.0), RXT_INVALID_ARGUMENT, "not a valid attribute name");
  /* NULL arguments. */
  CHECK_ERROR(rxt_module_attr_count(NULL, &count), RXT_INVALID_ARGUMENT, "'module' is NULL");
  CHECK_ERROR(rxt_module_attr_count(module, NULL), RXT_INVALID_ARGUMENT, "'out_count' is NULL");
  CHECK_ERROR(rxt_module_attr_name(NULL, 0, &s), RXT_INVALID_ARGUMENT, "'module' is NULL");
  CHECK_ERROR(rxt_module_attr_name(module, 0, NULL), RXT_INVALID_ARGUMENT, "'out_name' is NULL");
  CHECK_ERROR(rxt_module_attr_kind(module, NULL, &kind), RXT_INVALID_ARGUMENT, "'name' is NULL");
  CHECK_ERROR(rxt_module_attr_kind(module, "param_num", NULL), RXT_INVALID_ARGUMENT, "'out_kind' is NULL");
  CHECK_ERROR(rxt_module_attr_get_int(NULL, "param_num", &i), RXT_INVALID_ARGUMENT, "'module' is NULL");
  CHECK_ERROR(rxt_module_attr_get_int(module, NULL, &i), RXT_INVALID_ARGUMENT, "'name' is NULL");
  CHECK_ERROR(rxt_module_attr_get_int(module, "param_num", NULL), RXT_INVALID_ARGUMENT, "'out_value' is NULL");
  CHECK_ERROR(rxt_module_attr_get_float(module, "param_num", NULL), RXT_INVALID_ARGUMENT, "'out_value' is NULL");
  CHECK_ERROR(rxt_module_attr_get_string(module, "param_num", NULL), RXT_INVALID_ARGUMENT, "'out_value' is NULL");
  CHECK_ERROR(rxt_module_attr_set_int(NULL, "a", 1), RXT_INVALID_ARGUMENT, "'module' is NULL");
  CHECK_ERROR(rxt_module_attr_set_float(module, NULL, 1.0), RXT_INVALID_ARGUMENT, "'name' is NULL");
  CHECK_ERROR(rxt_module_attr_set_string(module, "a", NULL), RXT_INVALID_ARGUMENT, "'value' is NULL");
  CHECK_ERROR(rxt_module_attr_set_string(NULL, "a", "b"), RXT_INVALID_ARGUMENT, "'module' is NULL");
  rxt_module_release(module);
}

int main(void) {
  RUN(test_lists_names_in_order);
  RUN(test_typed_get_and_set);
  RUN(test_changes_survive_printing);
  RUN(test_a_retained_module_is_shared);
  RUN(test_errors);
  return check_report();
}
