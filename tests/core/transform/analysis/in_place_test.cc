// Which kernel outputs may be written over which inputs (CanWriteInPlace / InPlacePairs): a
// momentum update as fusion merges it, and each way a kernel can make that unsafe.
#include "rxt/transform/analysis/in_place.h"

#include <gtest/gtest.h>

#include "rxt/ir/parser.h"

namespace rxt {
namespace {

KernelFunction Kernel(const IRModule& m, const std::string& name) {
  KernelFunction k = m.FindKernel(name);
  EXPECT_NE(k, nullptr) << name;
  return k;
}

TEST(InPlace, AMergedMomentumUpdateWritesOverItsParameterAndMomentum) {
  // Parameters: lr, param, grad, momentum, then the outputs new momentum (4), new param (5).
  IRModule m = ParseModule(R"(
kernel @update(lr: Buffer((), float32), param: Buffer((4, 3), float32), grad: Buffer((4, 3), float32),
               mom: Buffer((4, 3), float32), new_mom: Buffer((4, 3), float32), new_param: Buffer((4, 3), float32)) {
  for i0 in range(4) {
    for i1 in range(3) {
      block new_mom(v0 = i0, v1 = i1) {
        new_mom[v0, v1] = 0.9f32 * mom[v0, v1] + grad[v0, v1] + param[v0, v1]
      }
      block new_param(v0 = i0, v1 = i1) {
        new_param[v0, v1] = param[v0, v1] - lr[] * new_mom[v0, v1]
      }
    }
  }
}
)");
  KernelFunction k = Kernel(m, "update");
  EXPECT_TRUE(CanWriteInPlace(*k, 3, 4));   // new momentum over momentum
  EXPECT_TRUE(CanWriteInPlace(*k, 1, 5));   // new param over param: both reads of param come first
  EXPECT_TRUE(CanWriteInPlace(*k, 2, 4));   // over the gradient too (same shape, read once, first)
  EXPECT_FALSE(CanWriteInPlace(*k, 1, 4));  // new momentum over param: param is read after it is written
  EXPECT_FALSE(CanWriteInPlace(*k, 0, 5));  // lr: another shape
  EXPECT_FALSE(CanWriteInPlace(*k, 4, 5));  // an output is not an input
  EXPECT_FALSE(CanWriteInPlace(*k, 3, 3));
  EXPECT_FALSE(CanWriteInPlace(*k, 9, 4));  // no such parameter
  EXPECT_EQ(InPlacePairs(*k), (std::vector<int64_t>{2, 4, 3, 4, 1, 5, 2, 5, 3, 5}));
}

TEST(InPlace, AccessesThatMeetAnotherElementOrOrderAreRefused) {
  IRModule m = ParseModule(R"(
kernel @reversed(X: Buffer((3,), float32), Y: Buffer((3,), float32)) {
  for i in range(3) {
    block y(vi = i) {
      Y[vi] = X[2 - vi]
    }
  }
}

kernel @two_nests(X: Buffer((3,), float32), Y: Buffer((3,), float32), Z: Buffer((3,), float32)) {
  for i in range(3) {
    block y(vi = i) {
      Y[vi] = X[vi]
    }
  }
  for j in range(3) {
    block z(vj = j) {
      Z[vj] = X[vj] + Y[vj]
    }
  }
}

kernel @transposed(X: Buffer((3, 3), float32), Y: Buffer((3, 3), float32)) {
  for i in range(3) {
    for j in range(3) {
      block y(vi = i, vj = j) {
        Y[vi, vj] = X[vj, vi]
      }
    }
  }
}

kernel @reads_output_first(X: Buffer((3,), float32), Y: Buffer((3,), float32), Z: Buffer((3,), float32)) {
  for i in range(3) {
    block z(vi = i) {
      Z[vi] = Y[vi]
    }
    block y(vi = i) {
      Y[vi] = X[vi]
    }
  }
}

kernel @reduction(X: Buffer((3,), float32), Y: Buffer((3,), float32)) {
  for i in range(3) {
    for k in range(3) {
      block y(vi = i, reduce vk = k) {
        init {
          Y[vi] = 0f32
        }
        Y[vi] = Y[vi] + X[vk]
      }
    }
  }
}

kernel @guarded(X: Buffer((3,), float32), Y: Buffer((3,), float32)) {
  for i in range(3) {
    if i > 0 {
      block y(vi = i) {
        Y[vi] = X[vi]
      }
    }
  }
}

kernel @elementwise(X: Buffer((3,), float32), Y: Buffer((3,), float32)) {
  for i in range(3) {
    block y(vi = i) {
      Y[vi] = X[vi] * 2f32
    }
  }
}
)");
  EXPECT_FALSE(CanWriteInPlace(*Kernel(m, "reversed"), 0, 1));  // Y[0] written before X[0] is read for Y[2]
  EXPECT_FALSE(CanWriteInPlace(*Kernel(m, "two_nests"), 0, 1));  // X read again in a later nest
  EXPECT_FALSE(CanWriteInPlace(*Kernel(m, "two_nests"), 0, 2));  // conservative: X is read in two nests
  EXPECT_FALSE(CanWriteInPlace(*Kernel(m, "transposed"), 0, 1));
  EXPECT_FALSE(CanWriteInPlace(*Kernel(m, "reads_output_first"), 0, 1));  // Y read before it is written
  EXPECT_FALSE(CanWriteInPlace(*Kernel(m, "reduction"), 0, 1));
  EXPECT_FALSE(CanWriteInPlace(*Kernel(m, "guarded"), 0, 1));
  EXPECT_TRUE(CanWriteInPlace(*Kernel(m, "elementwise"), 0, 1));
  EXPECT_EQ(InPlacePairs(*Kernel(m, "elementwise")), (std::vector<int64_t>{0, 1}));
  EXPECT_TRUE(InPlacePairs(*Kernel(m, "reversed")).empty());
}

}  // namespace
}  // namespace rxt
