/// TrainerTensorSpec's helpers (train/trainer_program.h).
#include "rxt/train/trainer_program.h"

#include "rxt/support/error.h"

namespace rxt {

bool TrainerTensorSpec::IsStatic() const {
  if (ndim < 0) return false;
  for (int64_t d : shape) {
    if (d < 0) return false;
  }
  return true;
}

std::string TrainerTensorSpec::TypeText() const {
  if (ndim < 0) return StrCat("Tensor(", DTypeName(dtype), ")");
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) {
    dims += (i == 0 ? "" : ", ") + (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  }
  if (shape.size() == 1) dims += ",";
  return StrCat("Tensor((", dims, "), ", DTypeName(dtype), ")");
}

}  // namespace rxt
