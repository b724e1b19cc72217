// `rxt train --train-data X.npy,Y.npy --test-data X.npy,Y.npy`: labeled sets from NumPy arrays,
// for models that do not take Fashion-MNIST. X holds one sample per row of its first dim (any
// float dtype, kept as float32), Y one integer class label per sample.
#pragma once

#include <string>

#include "fashion_mnist.h"

namespace rxt::cli {

/// Reads "X.npy,Y.npy" (|option| names the flag in errors). kInvalidArgument for a spec that is
/// not two files, X that is not float with a batch dim, Y that is not a 1-D integer array of
/// one label per sample, or a negative label. num_classes is the largest label + 1.
LabeledSet LoadNpySet(const std::string& spec, const std::string& option);

}  // namespace rxt::cli
