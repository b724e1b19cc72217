// PassContext: the settings every pass of a run sees (optimization level, options, disabled
// passes, instruments).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "rxt/ir/attrs.h"
#include "rxt/support/error.h"

namespace rxt {

struct PassInfo;
class PassInstrument;

struct PassContext {
  /// Sequential skips passes whose opt_level is above this.
  int opt_level = 2;
  /// Pass options by name, conventionally "<PassName>.<option>", e.g.
  /// "ConvertToDataflow.min_size" = 2 (each pass documents its own in transform/passes.h).
  std::map<std::string, AttrValue> options;
  /// Sequential skips passes with these names.
  std::set<std::string> disabled_passes;
  /// Called around every pass run (see instrument.h), in order.
  std::vector<std::shared_ptr<PassInstrument>> instruments;
  /// Runs the well-formed checker on the input of the outermost pass and after every pass;
  /// a failure names the pass that broke the module.
  bool verify_well_formed_after_each = false;

  /// Not disabled and opt_level <= this->opt_level.
  bool IsEnabled(const PassInfo& info) const;

  const AttrValue* FindOption(const std::string& name) const;
  /// The option |name| as a T (bool, int64_t, double, std::string, DType, Tensor), or
  /// |fallback| when absent. Throws kInvalidArgument if it holds another kind.
  template <typename T>
  T GetOption(const std::string& name, T fallback) const {
    const AttrValue* value = FindOption(name);
    if (value == nullptr) return fallback;
    if (!value->is<T>()) {
      Throw(ErrorCode::kInvalidArgument, "pass option ", name, " holds a value of kind ", value->KindName(),
            "; expected ", AttrValue(fallback).KindName());
    }
    return value->get<T>();
  }
};

}  // namespace rxt
