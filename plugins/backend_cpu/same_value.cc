#include "same_value.h"

namespace rxt::backend_cpu {
namespace {

namespace kf = ::rxt::plugin_support::kernel_format;

bool Same(const kf::Kernel& k, int32_t a, int32_t b, int depth) {
  if (a == b) return true;
  if (a < 0 || b < 0 || depth > 64) return false;
  const kf::Expr& x = k.exprs[a];
  const kf::Expr& y = k.exprs[b];
  if (x.kind != y.kind) return false;
  switch (x.kind) {
    case kf::ExprKind::kIntImm: return x.int_value == y.int_value;
    case kf::ExprKind::kVar: return x.var == y.var;
    case kf::ExprKind::kBinary:
      return x.binary_op == y.binary_op && x.dtype == y.dtype && Same(k, x.operands[0], y.operands[0], depth + 1) &&
             Same(k, x.operands[1], y.operands[1], depth + 1);
    case kf::ExprKind::kCast: return x.dtype == y.dtype && Same(k, x.operands[0], y.operands[0], depth + 1);
    default: return false;
  }
}

}  // namespace

bool SameValue(const kf::Kernel& kernel, int32_t a, int32_t b) { return Same(kernel, a, b, 0); }

}  // namespace rxt::backend_cpu
