// Which loads of a kernel stay inside their buffer whatever the variables' values, so that code
// may run them speculatively: a select then evaluates both sides without a branch (and its
// loop vectorizes), instead of branching around a load that could fault. A load qualifies when
// every index's range (interval arithmetic from loop extents and block bindings that are
// compile-time constants) lies inside a dim that is a compile-time constant: the padding
// conditions of convolutions and the window maxima of pooling gradients read that way. In a
// compact buffer, an index may also go past its dim if the largest offset stays below the
// number of elements (loops merged by loop_collapse.h index that way).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "rxt/plugin_support/kernel_codec.h"

namespace rxt::backend_cpu {

namespace kf = ::rxt::plugin_support::kernel_format;

class IndexBounds {
 public:
  explicit IndexBounds(const kf::Kernel& kernel);

  /// True if load expression |expr| reads inside its buffer for every value the variables take.
  bool LoadInBounds(int32_t expr) const;

  struct Range {
    int64_t lo, hi;
  };
  /// The values integer expression |expr| can take, if known.
  std::optional<Range> RangeOf(int32_t expr) const;

 private:
  void BindRanges(int32_t stmt);
  void Bind(int32_t var, std::optional<Range> range);

  const kf::Kernel& kernel_;
  std::vector<std::optional<Range>> var_ranges_;
  std::vector<bool> var_bound_;  // bound by a loop or block (ranges of others are unknown)
};

}  // namespace rxt::backend_cpu
