#include "npy_data.h"

#include <algorithm>

#include "npy.h"
#include "rxt/support/error.h"
#include "rxt/support/message_text.h"

namespace rxt::cli {

LabeledSet LoadNpySet(const std::string& spec, const std::string& option) {
  size_t comma = spec.find(',');
  if (comma == std::string::npos || comma == 0 || comma + 1 == spec.size() ||
      spec.find(',', comma + 1) != std::string::npos) {
    Throw(ErrorCode::kInvalidArgument, option, " ", Quoted(spec), ": expected X.npy,Y.npy (the samples, then their labels)");
  }
  const std::string x_path = spec.substr(0, comma), y_path = spec.substr(comma + 1);
  Tensor x = ReadNpy(x_path), y = ReadNpy(y_path);
  if (!IsFloat(x.dtype()) || x.ndim() < 2) {
    Throw(ErrorCode::kInvalidArgument, option, ": ", x_path, " is ", DTypeName(x.dtype()), " ",
          ShapeText(x.shape().data(), x.shape().size()), "; the samples must be a float array, one sample per row");
  }
  if (!IsInt(y.dtype()) || y.ndim() != 1 || y.shape()[0] != x.shape()[0]) {
    Throw(ErrorCode::kInvalidArgument, option, ": ", y_path, " is ", DTypeName(y.dtype()), " ",
          ShapeText(y.shape().data(), y.shape().size()), "; the labels must be a 1-D integer array of ", x.shape()[0],
          " class indices, one per sample of ", x_path);
  }
  LabeledSet set;
  set.count = x.shape()[0];
  set.features = set.count > 0 ? x.numel() / set.count : 1;
  set.values.resize(static_cast<size_t>(x.numel()));
  for (int64_t i = 0; i < x.numel(); ++i) set.values[i] = static_cast<float>(x.GetAsDouble(i));
  set.labels.resize(static_cast<size_t>(set.count));
  int64_t largest = -1;
  for (int64_t i = 0; i < set.count; ++i) {
    int64_t label = static_cast<int64_t>(y.GetAsDouble(i));
    if (label < 0) Throw(ErrorCode::kInvalidArgument, option, ": ", y_path, ": label ", label, " of sample ", i, " is negative");
    set.labels[i] = label;
    largest = std::max(largest, label);
  }
  set.num_classes = static_cast<int>(largest + 1);
  return set;
}

}  // namespace rxt::cli
