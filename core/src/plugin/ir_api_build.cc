// The building half of rxt_ir_api_t: op calls (attributes in the text format's syntax),
// constants, shapes, tuples, function parameters and optimizer state, errors, and the options
// of losses and optimizers. Also the table itself (IRBuilderHost::Api).
#include <algorithm>
#include <cmath>

#include "ir_api_internal.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/op.h"
#include "rxt/support/message_text.h"

namespace rxt::ir_api {
namespace {

DType ParseDTypeArg(const char* function, const char* dtype) {
  std::optional<DType> parsed = dtype != nullptr ? ParseDType(dtype) : std::nullopt;
  if (!parsed || *parsed == DType::kUnknown) {
    Throw(ErrorCode::kInvalidArgument, function, ": unknown dtype '", dtype ? dtype : "(null)", "'");
  }
  return *parsed;
}

std::string Text(const char* s) { return s != nullptr ? std::string(s) : std::string(); }

rxt_ir_expr_t Op(rxt_ir_builder_t* b, const char* op_name, const rxt_ir_expr_t* args, int num_args, const char* attrs) {
  return Guard<rxt_ir_expr_t>(b, nullptr, [&](IRBuilderHost& host) -> rxt_ir_expr_t {
    const std::string name = Text(op_name);
    std::vector<Expr> operands;
    for (int i = 0; i < num_args; ++i) {
      operands.push_back(Operand(host, args != nullptr ? args[i] : nullptr, StrCat(name, ": argument ", i)));
    }
    const OpDef& op = OpRegistry::Global().Get(name);  // throws "no op named ..." with a hint
    if (!op.pure()) Throw(ErrorCode::kInvalidArgument, name, ": impure ops cannot be generated");
    Attrs parsed = ParseOpAttrs(op, attrs != nullptr ? std::string_view(attrs) : std::string_view());
    return host.Wrap(host.Bind(MakeCall(op.AsExpr(), std::move(operands), std::move(parsed))));
  });
}

rxt_ir_expr_t Scalar(rxt_ir_builder_t* b, double value, const char* dtype) {
  return Guard<rxt_ir_expr_t>(b, nullptr, [&](IRBuilderHost& host) {
    Tensor t = Tensor::Empty({}, ParseDTypeArg("scalar", dtype));
    t.SetFromDouble(0, value);
    return host.Wrap(MakeConstant(std::move(t)));
  });
}

rxt_ir_expr_t Constant(rxt_ir_builder_t* b, const double* values, const int64_t* shape, int ndim, const char* dtype) {
  return Guard<rxt_ir_expr_t>(b, nullptr, [&](IRBuilderHost& host) {
    DType type = ParseDTypeArg("constant", dtype);
    if (ndim < 0 || (ndim > 0 && shape == nullptr)) Throw(ErrorCode::kInvalidArgument, "constant: bad shape");
    std::vector<int64_t> dims(shape, shape + ndim);
    int64_t numel = 1;
    for (int64_t d : dims) {
      if (d < 0 || d > (int64_t{1} << 31)) Throw(ErrorCode::kInvalidArgument, "constant: bad dim ", d);
      numel *= d;
      if (numel > (int64_t{1} << 31)) Throw(ErrorCode::kInvalidArgument, "constant: too many elements");
    }
    if (numel > 0 && values == nullptr) Throw(ErrorCode::kInvalidArgument, "constant: values are NULL");
    Tensor t = Tensor::Empty(std::move(dims), type);
    for (int64_t i = 0; i < numel; ++i) t.SetFromDouble(i, values[i]);
    return host.Wrap(MakeConstant(std::move(t)));
  });
}

rxt_ir_expr_t ShapeOf(rxt_ir_builder_t* b, rxt_ir_expr_t tensor) {
  return Guard<rxt_ir_expr_t>(b, nullptr, [&](IRBuilderHost& host) {
    Expr e = Operand(host, tensor, "shape_of: the tensor");
    const auto* t = e->struct_info ? e->struct_info->As<TensorSINode>() : nullptr;
    if (t == nullptr) Throw(ErrorCode::kInvalidArgument, "shape_of: not a tensor: ", ToString(e->struct_info));
    if (!t->shape) Throw(ErrorCode::kInvalidArgument, "shape_of: the shape is not known: ", ToString(e->struct_info));
    return host.Wrap(MakeShapeExpr(*t->shape));
  });
}

rxt_ir_expr_t Shape(rxt_ir_builder_t* b, const int64_t* dims, int ndim) {
  return Guard<rxt_ir_expr_t>(b, nullptr, [&](IRBuilderHost& host) {
    if (ndim < 0 || (ndim > 0 && dims == nullptr)) Throw(ErrorCode::kInvalidArgument, "shape: bad dims");
    std::vector<PrimExpr> values;
    for (int i = 0; i < ndim; ++i) values.push_back(IntImm(dims[i]));
    return host.Wrap(MakeShapeExpr(std::move(values)));
  });
}

rxt_ir_expr_t MakeTupleOf(rxt_ir_builder_t* b, const rxt_ir_expr_t* fields, int num_fields) {
  return Guard<rxt_ir_expr_t>(b, nullptr, [&](IRBuilderHost& host) {
    std::vector<Expr> values;
    for (int i = 0; i < num_fields; ++i) {
      values.push_back(Operand(host, fields != nullptr ? fields[i] : nullptr, StrCat("tuple: field ", i)));
    }
    return host.Wrap(host.builder().Normalize(MakeTuple(std::move(values))));
  });
}

rxt_ir_expr_t GetItem(rxt_ir_builder_t* b, rxt_ir_expr_t tuple, int index) {
  return Guard<rxt_ir_expr_t>(b, nullptr, [&](IRBuilderHost& host) {
    Expr e = Operand(host, tuple, "get_item: the tuple");
    const auto* sinfo = e->struct_info ? e->struct_info->As<TupleSINode>() : nullptr;
    if (sinfo == nullptr) Throw(ErrorCode::kInvalidArgument, "get_item: not a tuple: ", ToString(e->struct_info));
    if (index < 0 || index >= static_cast<int>(sinfo->fields.size())) {
      Throw(ErrorCode::kInvalidArgument, "get_item: index ", index, " is out of range for ", ToString(e->struct_info));
    }
    if (const auto* literal = e->As<TupleNode>()) return host.Wrap(literal->fields[index]);
    return host.Wrap(host.Bind(MakeTupleGetItem(e, index)));
  });
}

rxt_ir_expr_t Param(rxt_ir_builder_t* b, const char* name, const char* struct_info) {
  return Guard<rxt_ir_expr_t>(b, nullptr, [&](IRBuilderHost& host) {
    return host.Wrap(host.AddParam(Text(name), Text(struct_info)));
  });
}

rxt_ir_expr_t State(rxt_ir_builder_t* b, const char* name, const char* struct_info, double init) {
  return Guard<rxt_ir_expr_t>(b, nullptr, [&](IRBuilderHost& host) {
    return host.Wrap(host.AddState(Text(name), Text(struct_info), init));
  });
}

rxt_code_t SetState(rxt_ir_builder_t* b, rxt_ir_expr_t state, rxt_ir_expr_t next) {
  return Guard(b, RXT_INVALID_ARGUMENT, [&](IRBuilderHost& host) {
    host.SetState(Operand(host, state, "set_state: the state"), Operand(host, next, "set_state: the next value"));
    return RXT_OK;
  });
}

const char* ErrorText(rxt_ir_builder_t* b) {
  return Guard<const char*>(b, nullptr, [&](IRBuilderHost& host) -> const char* {
    return host.failed() ? host.error().c_str() : nullptr;
  });
}

rxt_ir_expr_t Fail(rxt_ir_builder_t* b, const char* message) {
  return Guard<rxt_ir_expr_t>(b, nullptr, [&](IRBuilderHost& host) -> rxt_ir_expr_t {
    host.Fail(message != nullptr && message[0] != '\0' ? message : "failed (no message)");
    return nullptr;
  });
}

rxt_ir_expr_t Prim(rxt_ir_builder_t* b, double value, const char* dtype) {
  return Guard<rxt_ir_expr_t>(b, nullptr, [&](IRBuilderHost& host) {
    DType type = ParseDTypeArg("prim", dtype);
    PrimExpr imm;
    if (IsFloat(type)) {
      imm = FloatImm(value, type);
    } else if (type == DType::kBool) {
      imm = BoolImm(value != 0);
    } else {
      // 2^63 is the first double past int64's range; the cast below is then defined.
      if (!std::isfinite(value) || value != std::trunc(value) || value < -9223372036854775808.0 ||
          value >= 9223372036854775808.0 || !IntFitsDType(static_cast<int64_t>(value), type)) {
        Throw(ErrorCode::kInvalidArgument, "prim: ", value, " is not an integer of ", DTypeName(type));
      }
      imm = IntImm(static_cast<int64_t>(value), type);
    }
    return host.Wrap(MakePrimValue(std::move(imm)));
  });
}

rxt_ir_expr_t CallExtern(rxt_ir_builder_t* b, const char* name, const rxt_ir_expr_t* args, int num_args,
                         const rxt_ir_expr_t* outs_like, int num_outs) {
  return Guard<rxt_ir_expr_t>(b, nullptr, [&](IRBuilderHost& host) -> rxt_ir_expr_t {
    const std::string function = Text(name);
    if (function.empty()) Throw(ErrorCode::kInvalidArgument, "call_extern: no function name");
    if (num_outs < 1 || outs_like == nullptr) {
      Throw(ErrorCode::kInvalidArgument, "call_extern ", Quoted(function), ": needs the struct info of a result");
    }
    std::vector<Expr> operands;
    for (int i = 0; i < num_args; ++i) {
      operands.push_back(Operand(host, args != nullptr ? args[i] : nullptr, StrCat("call_extern: argument ", i)));
    }
    std::vector<StructInfo> outs;
    for (int i = 0; i < num_outs; ++i) {
      Expr like = Operand(host, outs_like[i], StrCat("call_extern: result ", i));
      if (like->struct_info == nullptr || like->struct_info->As<TensorSINode>() == nullptr) {
        Throw(ErrorCode::kInvalidArgument, "call_extern ", Quoted(function), ": result ", i,
              " must be like a tensor, got ", ToString(like->struct_info));
      }
      outs.push_back(like->struct_info);
    }
    Expr tuple = MakeTuple(std::move(operands));
    return host.Wrap(host.Bind(MakeOpCall("call_extern", {MakeStringImm(function), tuple}, {}, std::move(outs))));
  });
}

// ---- Options of losses and optimizers.

Attrs ParseOptions(const char* options) {
  return ParseAttrList(options != nullptr ? std::string_view(options) : std::string_view(), "options");
}

/// Option |name| of |options|: RXT_OK with *out set, or RXT_NOT_FOUND.
rxt_code_t FindOption(const char* options, const char* name, Attrs* holder, const AttrValue** out) {
  *holder = ParseOptions(options);
  const AttrValue* value = name != nullptr ? holder->Find(name) : nullptr;
  if (value == nullptr || value->is_none()) return RXT_NOT_FOUND;
  *out = value;
  return RXT_OK;
}

/// Records "option 'lr' must be a float, got string" and returns RXT_INVALID_ARGUMENT.
rxt_code_t WrongKind(IRBuilderHost& host, const char* name, const char* want, const AttrValue& got) {
  host.Fail(StrCat("option '", name, "' must be ", want, ", got ", got.KindName()));
  return RXT_INVALID_ARGUMENT;
}

rxt_code_t OptionInt(rxt_ir_builder_t* b, const char* options, const char* name, int64_t* out) {
  return Guard(b, RXT_INVALID_ARGUMENT, [&](IRBuilderHost& host) {
    Attrs holder;
    const AttrValue* v = nullptr;
    if (rxt_code_t code = FindOption(options, name, &holder, &v); code != RXT_OK) return code;
    if (!v->is<int64_t>()) return WrongKind(host, name, "an int", *v);
    if (out != nullptr) *out = v->get<int64_t>();
    return RXT_OK;
  });
}

rxt_code_t OptionFloat(rxt_ir_builder_t* b, const char* options, const char* name, double* out) {
  return Guard(b, RXT_INVALID_ARGUMENT, [&](IRBuilderHost& host) {
    Attrs holder;
    const AttrValue* v = nullptr;
    if (rxt_code_t code = FindOption(options, name, &holder, &v); code != RXT_OK) return code;
    double value = 0;
    if (v->is<double>()) {
      value = v->get<double>();
    } else if (v->is<int64_t>()) {
      value = static_cast<double>(v->get<int64_t>());
    } else {
      return WrongKind(host, name, "a float", *v);
    }
    if (out != nullptr) *out = value;
    return RXT_OK;
  });
}

rxt_code_t OptionBool(rxt_ir_builder_t* b, const char* options, const char* name, int* out) {
  return Guard(b, RXT_INVALID_ARGUMENT, [&](IRBuilderHost& host) {
    Attrs holder;
    const AttrValue* v = nullptr;
    if (rxt_code_t code = FindOption(options, name, &holder, &v); code != RXT_OK) return code;
    if (!v->is<bool>()) return WrongKind(host, name, "true or false", *v);
    if (out != nullptr) *out = v->get<bool>() ? 1 : 0;
    return RXT_OK;
  });
}

rxt_code_t OptionString(rxt_ir_builder_t* b, const char* options, const char* name, const char** out) {
  return Guard(b, RXT_INVALID_ARGUMENT, [&](IRBuilderHost& host) {
    Attrs holder;
    const AttrValue* v = nullptr;
    if (rxt_code_t code = FindOption(options, name, &holder, &v); code != RXT_OK) return code;
    if (!v->is<std::string>()) return WrongKind(host, name, "a string", *v);
    if (out != nullptr) *out = host.Keep(v->get<std::string>());
    return RXT_OK;
  });
}

rxt_code_t OptionFloats(rxt_ir_builder_t* b, const char* options, const char* name, const double** values,
                        int* count) {
  return Guard(b, RXT_INVALID_ARGUMENT, [&](IRBuilderHost& host) {
    Attrs holder;
    const AttrValue* v = nullptr;
    if (rxt_code_t code = FindOption(options, name, &holder, &v); code != RXT_OK) return code;
    std::vector<double> list;
    auto number = [&](const AttrValue& x, double* out) {
      if (x.is<double>()) *out = x.get<double>();
      else if (x.is<int64_t>()) *out = static_cast<double>(x.get<int64_t>());
      else return false;
      return true;
    };
    double single = 0;
    if (number(*v, &single)) {
      list.push_back(single);
    } else if (v->is<AttrArray>()) {
      for (const AttrValue& item : v->get<AttrArray>()) {
        double x = 0;
        if (!number(item, &x)) return WrongKind(host, name, "a list of numbers", *v);
        list.push_back(x);
      }
    } else {
      return WrongKind(host, name, "a list of numbers", *v);
    }
    if (count != nullptr) *count = static_cast<int>(list.size());
    if (values != nullptr) *values = host.Keep(std::move(list));
    return RXT_OK;
  });
}

rxt_code_t CheckOptions(rxt_ir_builder_t* b, const char* options, const char* const* known, int num_known) {
  return Guard(b, RXT_INVALID_ARGUMENT, [&](IRBuilderHost& host) {
    Attrs parsed = ParseOptions(options);
    std::vector<std::string> names;
    for (int i = 0; i < num_known && known != nullptr; ++i) {
      if (known[i] != nullptr) names.push_back(known[i]);
    }
    for (const auto& [key, value] : parsed.entries()) {
      if (std::find(names.begin(), names.end(), key) != names.end()) continue;
      std::string list;
      for (const std::string& n : names) list += StrCat(list.empty() ? "" : ", ", n);
      host.Fail(StrCat("unknown option '", key, "'", names.empty() ? " (it takes none)" : " (known: " + list + ")"));
      return RXT_INVALID_ARGUMENT;
    }
    return RXT_OK;
  });
}

rxt_code_t SetStructInfo(rxt_ir_builder_t* b, const char* struct_info) {
  return Guard(b, RXT_INVALID_ARGUMENT, [&](IRBuilderHost& host) {
    host.SetInferred(Text(struct_info));
    return RXT_OK;
  });
}

}  // namespace

void FillBuildFunctions(rxt_ir_api_t& api) {
  api.op = &Op;
  api.scalar = &Scalar;
  api.constant = &Constant;
  api.shape_of = &ShapeOf;
  api.shape = &Shape;
  api.tuple = &MakeTupleOf;
  api.get_item = &GetItem;
  api.param = &Param;
  api.state = &State;
  api.set_state = &SetState;
  api.error = &ErrorText;
  api.fail = &Fail;
  api.prim = &Prim;
  api.option_int = &OptionInt;
  api.option_float = &OptionFloat;
  api.option_bool = &OptionBool;
  api.option_string = &OptionString;
  api.option_floats = &OptionFloats;
  api.check_options = &CheckOptions;
  api.set_struct_info = &SetStructInfo;
  api.call_extern = &CallExtern;
}

}  // namespace rxt::ir_api

namespace rxt {

const rxt_ir_api_t* IRBuilderHost::Api() {
  static const rxt_ir_api_t table = [] {
    rxt_ir_api_t api{};
    api.struct_size = sizeof(rxt_ir_api_t);
    ir_api::FillReadFunctions(api);
    ir_api::FillBuildFunctions(api);
    return api;
  }();
  return &table;
}

}  // namespace rxt
