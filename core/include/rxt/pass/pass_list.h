// A list of passes with their options, as `rxt show --passes` and rxt_module_run_passes take
// it:
//
//   Normalize, Gradient(func_name=main, require_grads=[w1, b1], target_index=0), SimplifyTransposes
//
// Grammar: item (',' item)*; item: PassName ['(' [key '=' value (',' key '=' value)*] ')'];
// values are the text format's attribute values (ints, floats, "strings", true/false, none,
// dtypes, [lists]) where a bare word (main, w1, %w1) is a string. Each pass documents its
// options (PassEntry::options, `rxt passes`); an option is set in the PassContext as
// "<PassName>.<key>".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rxt/ir/attrs.h"
#include "rxt/pass/context.h"

namespace rxt {

struct PassInvocation {
  std::string name;
  Attrs options;  // as given, keys without the pass name
};

/// Parses |text| (named |what| in errors: "--passes"). kInvalidArgument naming the position and
/// the problem for malformed text; pass and option names are checked by AddPassOptions.
std::vector<PassInvocation> ParsePassList(std::string_view text, const std::string& what = "pass list");

/// One option value in the same grammar ("[w1, b1]", "main", "0.5"), named |what| in errors.
AttrValue ParsePassOptionValue(std::string_view text, const std::string& what);

/// The invocation setting one option from a "<PassName>.<key>" name and a value in the same
/// grammar (as rxt_pass_options_t's config gives them); kInvalidArgument if the name has no '.'.
PassInvocation PassOptionFromKey(const std::string& full_key, std::string_view value);

/// Checks each invocation's pass exists and takes its options (kNotFound / kInvalidArgument
/// with the closest name), and sets them in |context| as "<PassName>.<key>". A pass given
/// options twice is an error (run it in two steps).
void AddPassOptions(const std::vector<PassInvocation>& passes, PassContext& context);

}  // namespace rxt
