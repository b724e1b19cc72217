// The parser of the IR text format (`.rxt` files; grammar and examples in docs/ir.md).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "rxt/ir/module.h"

namespace rxt {

class OpDef;  // rxt/ir/op.h

/// Parses a whole module. Relax functions are built with the BlockBuilder, so every binding
/// gets its struct info inferred (an annotation, when written, must be a base of it).
///
/// Errors throw rxt::Error (kInvalidArgument) whose message starts with the position:
///   "model.rxt:3:14: error: expected ')' but found '%y'"
///   "model.rxt:7:5: error: matmul: ..." (struct-info inference errors of ops)
/// Any input, however malformed, gives a module or such an error; never a crash.
IRModule ParseModule(std::string_view text, const std::string& file_name = "<input>");

/// A list of attributes in the call syntax, `axis=[1], keepdims=true` (empty text: none), as
/// the IR generators of plugins write them. |what| names the text in error positions
/// ("options of loss 'mse':1:12: error: ..."). Duplicate names are errors.
Attrs ParseAttrList(std::string_view text, const std::string& what = "<attributes>");

/// ParseAttrList for a call of |op|: names are checked against the op's schema (with a "did
/// you mean") and the result is complete with defaults, as the parser does for a call.
Attrs ParseOpAttrs(const OpDef& op, std::string_view text);

/// One struct info in the text format, `Tensor((n, 10), float32)`. Symbolic dims named in
/// |symbols| resolve to those variables; other names become new variables and are added to
/// it (null: every name is new).
StructInfo ParseStructInfo(std::string_view text, std::map<std::string, PrimVar>* symbols = nullptr,
                           const std::string& what = "<struct info>");

}  // namespace rxt
