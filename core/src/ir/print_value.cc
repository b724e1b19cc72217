// The printer: struct info, attribute values, constants and the metadata section.
#include "printer_impl.h"
#include "text_syntax.h"

namespace rxt::text {
namespace {

// Deeper constants go to the metadata section (the parser limits nesting).
constexpr int kMaxInlineRank = 32;

std::string JoinTexts(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

// [[1, 2], [3, 4]] for the elements of |t| from |offset| over dims |dim|...
std::string NestedData(const Tensor& t, int dim, int64_t* offset) {
  if (dim == t.ndim()) return FormatElement(t, (*offset)++);
  std::string out = "[";
  for (int64_t i = 0; i < t.shape()[dim]; ++i) out += (i ? ", " : "") + NestedData(t, dim + 1, offset);
  return out + "]";
}

}  // namespace

std::string TextPrinter::ShapeTuple(const std::vector<PrimExpr>& dims) {
  std::vector<std::string> parts;
  for (const auto& dim : dims) {
    if (Exhausted()) {
      parts.push_back("\u2026");
      break;
    }
    parts.push_back(Counted(PrimString(dim)));
  }
  return "(" + JoinTexts(parts) + (parts.size() == 1 ? ",)" : ")");
}

std::string TextPrinter::SInfo(const StructInfo& sinfo) {
  std::string out;
  AppendSInfo(sinfo, out);
  return Counted(std::move(out));
}

// Appends to one string (rather than joining the fields' strings) so that a message's budget
// is checked against everything printed so far.
void TextPrinter::AppendSInfo(const StructInfo& sinfo, std::string& out) {
  if (!sinfo) {
    out += "<null>";
    return;
  }
  switch (sinfo->kind) {
    case StructInfoKind::kObject: out += "Object"; break;
    case StructInfoKind::kPrim: {
      const auto* prim = sinfo->As<PrimSINode>();
      std::vector<std::string> args;
      if (prim->dtype != DType::kUnknown) args.push_back(DTypeName(prim->dtype));
      if (prim->value) args.push_back("value=" + PrimString(prim->value));
      out += args.empty() ? "Prim" : "Prim(" + JoinTexts(args) + ")";
      break;
    }
    case StructInfoKind::kShape: {
      const auto* shape = sinfo->As<ShapeSINode>();
      if (shape->values) {
        out += "Shape(" + ShapeTuple(*shape->values) + ")";
      } else if (shape->ndim >= 0) {
        out += "Shape(ndim=" + std::to_string(shape->ndim) + ")";
      } else {
        out += "Shape";
      }
      break;
    }
    case StructInfoKind::kTensor: {
      const auto* tensor = sinfo->As<TensorSINode>();
      std::vector<std::string> args;
      if (tensor->shape) {
        args.push_back(ShapeTuple(*tensor->shape));
      } else if (tensor->ndim >= 0) {
        args.push_back("ndim=" + std::to_string(tensor->ndim));
      }
      if (tensor->dtype != DType::kUnknown) args.push_back(DTypeName(tensor->dtype));
      out += args.empty() ? "Tensor" : "Tensor(" + JoinTexts(args) + ")";
      break;
    }
    case StructInfoKind::kTuple: {
      out += "Tuple(";
      const auto& fields = sinfo->As<TupleSINode>()->fields;
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i) out += ", ";
        if (Exhausted(out.size())) {
          out += "\u2026";
          break;
        }
        AppendSInfo(fields[i], out);
      }
      out += ")";
      break;
    }
    case StructInfoKind::kFunc: {
      const auto* func = sinfo->As<FuncSINode>();
      out += "Func((";
      for (size_t i = 0; i < func->params.size(); ++i) {
        if (i) out += ", ";
        if (Exhausted(out.size())) {
          out += "\u2026";
          break;
        }
        AppendSInfo(func->params[i], out);
      }
      out += ") -> ";
      if (!Exhausted(out.size())) AppendSInfo(func->ret, out);
      out += func->is_pure ? ")" : ", impure)";
      break;
    }
  }
}

std::string TextPrinter::AttrValueText(const AttrValue& value) {
  return std::visit(
      [&](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return "none";
        } else if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, int64_t>) {
          return std::to_string(v);
        } else if constexpr (std::is_same_v<T, double>) {
          return FormatDouble(v, /*force_float_syntax=*/true);
        } else if constexpr (std::is_same_v<T, std::string>) {
          return QuoteString(v);
        } else if constexpr (std::is_same_v<T, DType>) {
          return DTypeName(v);
        } else if constexpr (std::is_same_v<T, Tensor>) {
          return Constant(v);
        } else {
          std::vector<std::string> items;
          for (const AttrValue& item : v) {
            if (Exhausted()) {
              items.push_back("\u2026");
              break;
            }
            items.push_back(Counted(AttrValueText(item)));
          }
          return "[" + JoinTexts(items) + "]";
        }
      },
      value.value);
}

std::string TextPrinter::AttrsBlock(const Attrs& attrs) {
  std::vector<std::string> entries;
  for (const auto& [key, value] : attrs.entries()) {
    entries.push_back((IsDottedName(key) ? key : QuoteString(key)) + " = " + AttrValueText(value));
  }
  return "{" + JoinTexts(entries) + "}";
}

std::string TextPrinter::Constant(const Tensor& tensor) {
  if (!tensor.defined()) return "const(<undefined>)";
  const int64_t numel = tensor.numel();
  if (numel >= 1 && numel <= options_.max_inline_elements && tensor.ndim() <= kMaxInlineRank &&
      InlineRoundTrips(tensor)) {
    int64_t offset = 0;
    return "const(" + NestedData(tensor, 0, &offset) + ", " + DTypeName(tensor.dtype()) + ")";
  }
  if (standalone_) return "const(<" + SInfo(TensorSI(tensor.shape(), tensor.dtype())) + ">)";
  // Constants sharing storage share one entry.
  for (size_t i = 0; i < metadata_.size(); ++i) {
    const Tensor& known = metadata_[i];
    if (known.data() == tensor.data() && known.shape() == tensor.shape() && known.dtype() == tensor.dtype()) {
      return "meta[" + std::to_string(i) + "]";
    }
  }
  metadata_.push_back(tensor);
  return "meta[" + std::to_string(metadata_.size() - 1) + "]";
}

std::string TextPrinter::Metadata() const {
  if (metadata_.empty()) return "";
  TextPrinter sinfo_printer(options_, true);
  std::string out = "metadata {\n";
  for (size_t i = 0; i < metadata_.size(); ++i) {
    const Tensor& t = metadata_[i];
    out += "  " + std::to_string(i) + ": " + sinfo_printer.SInfo(TensorSI(t.shape(), t.dtype())) + " = base64\"" +
           EncodeBase64(t.data(), t.nbytes()) + "\"\n";
  }
  return out + "}\n";
}

}  // namespace rxt::text
