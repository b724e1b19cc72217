// Kernels shared by the scalar-semantics tests of every backend (the reference's expectations in
// scalar_semantics_test.cc, the cpu backend's agreement in scalar_codegen_test.cc): one text, so
// both check the same operations.
#pragma once

#include <string>

namespace rxt::backend_reference::testing {

/// |text| with every "$T" replaced by |dtype|.
inline std::string WithDType(std::string text, const std::string& dtype) {
  for (size_t at = text.find("$T"); at != std::string::npos; at = text.find("$T", at)) text.replace(at, 2, dtype);
  return text;
}

/// Every binary operator and comparison on two vectors of dtype $T (see WithDType).
inline constexpr const char* kBinaryOpsKernel = R"(
kernel @ops(A: Buffer((n,), $T), B: Buffer((n,), $T), Out: Buffer((8, n), $T), Cmp: Buffer((6, n), bool)) {
  for i in range(n) {
    Out[0, i] = A[i] + B[i]
    Out[1, i] = A[i] - B[i]
    Out[2, i] = A[i] * B[i]
    Out[3, i] = A[i] / B[i]
    Out[4, i] = floordiv(A[i], B[i])
    Out[5, i] = floormod(A[i], B[i])
    Out[6, i] = min(A[i], B[i])
    Out[7, i] = max(A[i], B[i])
    Cmp[0, i] = A[i] == B[i]
    Cmp[1, i] = A[i] != B[i]
    Cmp[2, i] = A[i] < B[i]
    Cmp[3, i] = A[i] <= B[i]
    Cmp[4, i] = A[i] > B[i]
    Cmp[5, i] = A[i] >= B[i]
  }
}
)";

}  // namespace rxt::backend_reference::testing
