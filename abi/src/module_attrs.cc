// Module attributes across the ABI: typed getters that name both kinds on a mismatch.
#include <cctype>

#include "api.h"

namespace {

const rxt::AttrValue& FindAttr(const rxt_module_t* module, const char* name) {
  const rxt::AttrValue* value = rxt::abi_impl::Unwrap(module).attrs.Find(name);
  if (value == nullptr) rxt::Throw(rxt::ErrorCode::kNotFound, "module has no attribute '", name, "'");
  return *value;
}

template <typename T>
const T& GetAs(const rxt_module_t* module, const char* name, const char* wanted) {
  const rxt::AttrValue& value = FindAttr(module, name);
  if (!value.is<T>()) {
    rxt::Throw(rxt::ErrorCode::kInvalidArgument, "module attribute '", name, "' is of kind ", value.KindName(),
               ", not ", wanted);
  }
  return value.get<T>();
}

/// Setters accept identifiers only, so that the module still prints to parseable text.
const char* CheckedName(const char* name) {
  bool valid = name[0] != '\0' && !std::isdigit(static_cast<unsigned char>(name[0]));
  for (const char* c = name; *c != '\0' && valid; ++c) {
    valid = std::isalnum(static_cast<unsigned char>(*c)) || *c == '_';
  }
  if (!valid) rxt::Throw(rxt::ErrorCode::kInvalidArgument, "'", name, "' is not a valid attribute name");
  return name;
}

rxt_attr_kind_t KindOf(const rxt::AttrValue& value) {
  const rxt::AttrValue::Variant& v = value.value;
  if (std::holds_alternative<bool>(v)) return RXT_ATTR_BOOL;
  if (std::holds_alternative<int64_t>(v)) return RXT_ATTR_INT;
  if (std::holds_alternative<double>(v)) return RXT_ATTR_FLOAT;
  if (std::holds_alternative<std::string>(v)) return RXT_ATTR_STRING;
  if (std::holds_alternative<rxt::DType>(v)) return RXT_ATTR_DTYPE;
  if (std::holds_alternative<rxt::Tensor>(v)) return RXT_ATTR_TENSOR;
  if (std::holds_alternative<rxt::AttrArray>(v)) return RXT_ATTR_ARRAY;
  return RXT_ATTR_NONE;
}

}  // namespace

extern "C" {

rxt_status_t rxt_module_attr_count(const rxt_module_t* module, size_t* out_count) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(out_count);
  *out_count = rxt::abi_impl::Unwrap(module).attrs.size();
  RXT_API_END();
}

rxt_status_t rxt_module_attr_name(const rxt_module_t* module, size_t index, char** out_name) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(out_name);
  const auto& entries = rxt::abi_impl::Unwrap(module).attrs.entries();
  if (index >= entries.size()) {
    rxt::Throw(rxt::ErrorCode::kOutOfRange, "rxt_module_attr_name: index ", index, " is out of range (module has ",
               entries.size(), " attributes)");
  }
  *out_name = rxt::abi_impl::CopyString(entries[index].first);
  RXT_API_END();
}

rxt_status_t rxt_module_attr_kind(const rxt_module_t* module, const char* name, rxt_attr_kind_t* out_kind) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(name);
  RXT_CHECK_ARG(out_kind);
  *out_kind = KindOf(FindAttr(module, name));
  RXT_API_END();
}

rxt_status_t rxt_module_attr_get_int(const rxt_module_t* module, const char* name, int64_t* out_value) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(name);
  RXT_CHECK_ARG(out_value);
  *out_value = GetAs<int64_t>(module, name, "int");
  RXT_API_END();
}

rxt_status_t rxt_module_attr_get_float(const rxt_module_t* module, const char* name, double* out_value) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(name);
  RXT_CHECK_ARG(out_value);
  *out_value = GetAs<double>(module, name, "float");
  RXT_API_END();
}

rxt_status_t rxt_module_attr_get_string(const rxt_module_t* module, const char* name, char** out_value) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(name);
  RXT_CHECK_ARG(out_value);
  *out_value = rxt::abi_impl::CopyString(GetAs<std::string>(module, name, "string"));
  RXT_API_END();
}

rxt_status_t rxt_module_attr_set_int(rxt_module_t* module, const char* name, int64_t value) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(name);
  rxt::abi_impl::Unwrap(module).attrs.Set(CheckedName(name), value);
  RXT_API_END();
}

rxt_status_t rxt_module_attr_set_float(rxt_module_t* module, const char* name, double value) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(name);
  rxt::abi_impl::Unwrap(module).attrs.Set(CheckedName(name), value);
  RXT_API_END();
}

rxt_status_t rxt_module_attr_set_string(rxt_module_t* module, const char* name, const char* value) {
  RXT_API_BEGIN();
  RXT_CHECK_ARG(module);
  RXT_CHECK_ARG(name);
  RXT_CHECK_ARG(value);
  rxt::abi_impl::Unwrap(module).attrs.Set(CheckedName(name), std::string(value));
  RXT_API_END();
}

}  // extern "C"
