// The patterns of the dnnl kernel library (docs/libraries.md, "What the library takes"): each
// an rxt_library_pattern_t whose body (plugin SDK, rxt/plugin_support/library.h) reads a match
// and builds the call of one of this plugin's extern functions, and what their bodies share.
#pragma once

#include <rxt/plugin.h>
#include <rxt/plugin_support/library.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rxt::lib_dnnl {

using plugin_support::Expr;
using plugin_support::Pattern;

/// The library "dnnl": every pattern, in the order they are tried.
const rxt_library_t* DnnlLibrary();

// The bodies (matmul_pattern.cc, conv_patterns.cc, pool_patterns.cc).
void MatmulPattern(Pattern& p);
void LinearPattern(Pattern& p);
void Conv2dPattern(Pattern& p);
void Conv2dBackwardDataPattern(Pattern& p);
void Conv2dTransposePattern(Pattern& p);
void Conv2dBackwardWeightPattern(Pattern& p);
void MaxPool2dPattern(Pattern& p);
void MaxPool2dBackwardPattern(Pattern& p);
void SoftmaxPattern(Pattern& p);  // softmax_pattern.cc

// ---- Shared by the bodies (patterns.cc)

/// The static shape of |e| if it is a float32 tensor of |ndim| dims (any ndim for -1).
std::optional<std::vector<int64_t>> StaticFloat32(const Pattern& p, Expr e, int ndim);
bool IsStaticFloat32(const Pattern& p, Expr e, int ndim);
int64_t NumElements(const std::vector<int64_t>& shape);
/// An int-list attribute ({} if absent), a string attribute ("" if absent).
std::vector<int64_t> IntsOf(const Pattern& p, Expr call, const char* name);
std::string StringOf(const Pattern& p, Expr call, const char* name);
/// (h, w) from 1 or 2 ints; (top, left, bottom, right) from 1, 2 or 4; empty if malformed.
std::vector<int64_t> PairOf(std::vector<int64_t> v);
std::vector<int64_t> PaddingOf(std::vector<int64_t> v);

/// The bias add and ReLU after the anchor that a library call applies itself: call(1) an add
/// of the anchor's result and a bias |bias_ok| accepts, then nn.relu (each may be missing).
struct Epilogue {
  Expr bias = nullptr;
  bool relu = false;
  int num_calls = 1;  // the anchor and what the call takes of the epilogue
};
Epilogue FollowEpilogue(Pattern& p, const std::function<bool(Expr)>& bias_ok);

}  // namespace rxt::lib_dnnl
