#include "small_map_conv.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "constant_weights.h"
#include "dnnl_context.h"
#include "gemm.h"
#include "host_threads.h"

namespace rxt::lib_dnnl {
namespace {

// Scratch slots (dnnl_context.h): the oneDNN paths of conv2d.cc and conv2d_backward.cc use
// them too, but never in the same call.
constexpr int kColsSlot = 0, kWeightSlot = 1, kRowsSlot = 2;

/// For each kernel position along one axis, whether some output position reads the data there.
std::vector<bool> LiveAlongAxis(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t pad,
                                int64_t dilation) {
  std::vector<bool> live(kernel, false);
  for (int64_t k = 0; k < kernel; ++k) {
    for (int64_t o = 0; o < out && !live[k]; ++o) {
      int64_t i = o * stride - pad + k * dilation;
      live[k] = i >= 0 && i < in;
    }
  }
  return live;
}

// Below this many values unfolded, one thread does it: handing half to another costs more.
constexpr int64_t kSerialValues = int64_t{1} << 16;

float* Scratch(int slot, int64_t floats) { return static_cast<float*>(ScratchBuffer(slot, floats * sizeof(float))); }

/// The weights of some taps of constant weights, as (O, C x taps) matrices, kept by content id
/// and taps for the life of the process (at most kMaxConstantWeightBytes; past that it starts over).
class PixelWeightCache {
 public:
  using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, std::vector<int64_t>>;  // id, O, C, kernel, taps

  std::shared_ptr<const std::vector<float>> Get(const Key& key, const std::function<std::vector<float>()>& gather) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = entries_.find(key);
      if (it != entries_.end()) return it->second;
    }
    auto gathered = std::make_shared<const std::vector<float>>(gather());
    std::lock_guard<std::mutex> lock(mutex_);
    size_t bytes = gathered->size() * sizeof(float);
    if (bytes_ + bytes > kMaxConstantWeightBytes) {
      entries_.clear();
      bytes_ = 0;
    }
    auto [it, inserted] = entries_.emplace(key, gathered);
    if (inserted) bytes_ += bytes;
    return it->second;
  }

 private:
  std::mutex mutex_;
  std::map<Key, std::shared_ptr<const std::vector<float>>> entries_;
  size_t bytes_ = 0;
};

PixelWeightCache& PixelWeights() {
  static PixelWeightCache* cache = new PixelWeightCache();
  return *cache;
}

}  // namespace

bool SmallMapConv::Applies(const std::vector<int64_t>& data, const std::vector<int64_t>& weight,
                           const ConvWindow& window) {
  if (window.groups != 1 || data.size() != 4 || weight.size() != 4 || data[1] != weight[1]) return false;
  int64_t oh = window.OutSize(0, data[2], weight[2]), ow = window.OutSize(1, data[3], weight[3]);
  return oh > 0 && ow > 0 && oh * ow <= kMaxPixels;
}

SmallMapConv SmallMapConv::Of(const std::vector<int64_t>& data, const std::vector<int64_t>& weight,
                              const ConvWindow& window) {
  SmallMapConv c{data[0], data[1], data[2], data[3], weight[0], weight[2], weight[3],
                 window.OutSize(0, data[2], weight[2]), window.OutSize(1, data[3], weight[3]), window, {}};
  std::vector<bool> live_h =
      LiveAlongAxis(c.height, c.out_h, c.kernel_h, window.stride[0], window.pad[0], window.dilation[0]);
  std::vector<bool> live_w =
      LiveAlongAxis(c.width, c.out_w, c.kernel_w, window.stride[1], window.pad[1], window.dilation[1]);
  for (int64_t kh = 0; kh < c.kernel_h; ++kh) {
    for (int64_t kw = 0; kw < c.kernel_w; ++kw) {
      if (live_h[kh] && live_w[kw]) c.taps.push_back(kh * c.kernel_w + kw);
    }
  }
  for (int64_t oy = 0; oy < c.out_h; ++oy) {
    for (int64_t ox = 0; ox < c.out_w; ++ox) {
      for (int64_t tap : c.taps) {
        int64_t iy = oy * window.stride[0] - window.pad[0] + tap / c.kernel_w * window.dilation[0];
        int64_t ix = ox * window.stride[1] - window.pad[1] + tap % c.kernel_w * window.dilation[1];
        c.reads.push_back(iy >= 0 && iy < c.height && ix >= 0 && ix < c.width ? iy * c.width + ix : -1);
      }
    }
  }
  return c;
}

namespace {

/// body(first, end) over ranges of [0, count): on the calling thread below kSerialValues of
/// |values| touched, else one range per thread of the host's pool.
void ForRanges(int64_t count, int64_t values, const std::function<void(int64_t, int64_t)>& body) {
  if (values < kSerialValues) return body(0, count);
  BatchSplit split = BatchSplit::Of(count);
  ParallelParts(split.parts, [&](int64_t part) {
    auto [first, n] = split.Part(part);
    body(first, first + n);
  });
}

}  // namespace

void SmallMapConv::ForImages(const std::function<void(int64_t, int64_t)>& body) const {
  ForRanges(images, images * pixels() * channels * live(), body);
}

void SmallMapConv::ForFilters(const std::function<void(int64_t, int64_t)>& body) const {
  ForRanges(filters, filters * channels * kernel_h * kernel_w, body);
}

void SmallMapConv::Unfold(const float* data, float* cols) const {
  int64_t t_count = live(), plane = height * width, row = channels * t_count;
  ForImages([&](int64_t first, int64_t end) {
    for (int64_t n = first; n < end; ++n) {
      const float* image = data + n * channels * plane;
      for (int64_t p = 0; p < pixels(); ++p) {
        float* dst = cols + (n * pixels() + p) * row;
        const int64_t* offsets = reads.data() + p * t_count;
        // A tap in padding reads zeros: the row is cleared first if it has one; then each tap
        // that reads data is copied for every channel (no test per value).
        if (std::any_of(offsets, offsets + t_count, [](int64_t offset) { return offset < 0; })) {
          std::fill(dst, dst + row, 0.0f);
        }
        for (int64_t t = 0; t < t_count; ++t) {
          if (offsets[t] < 0) continue;
          const float* in = image + offsets[t];
          for (int64_t c = 0; c < channels; ++c) dst[c * t_count + t] = in[c * plane];
        }
      }
    }
  });
}

void SmallMapConv::Fold(const float* dcols, float* ddata) const {
  int64_t t_count = live(), plane = height * width;
  ForImages([&](int64_t first, int64_t end) {
    float* image = ddata + first * channels * plane;
    std::fill(image, image + (end - first) * channels * plane, 0.0f);
    for (int64_t n = first; n < end; ++n) {
      for (int64_t p = 0; p < pixels(); ++p) {
        const float* src = dcols + (n * pixels() + p) * channels * t_count;
        const int64_t* offsets = reads.data() + p * t_count;
        float* out = ddata + n * channels * plane;
        for (int64_t c = 0; c < channels; ++c, src += t_count) {
          float* in = out + c * plane;
          for (int64_t t = 0; t < t_count; ++t) {
            if (offsets[t] >= 0) in[offsets[t]] += src[t];
          }
        }
      }
    }
  });
}

const float* SmallMapConv::LiveWeights(const float* weight, float* scratch) const {
  if (all_taps()) return weight;
  int64_t kernel = kernel_h * kernel_w;
  ForFilters([&](int64_t first, int64_t end) {
    float* dst = scratch + first * channels * live();
    for (int64_t oc = first * channels; oc < end * channels; ++oc) {
      for (int64_t tap : taps) *dst++ = weight[oc * kernel + tap];
    }
  });
  return scratch;
}

const float* SmallMapConv::PixelRows(const float* dz, float* scratch) const {
  int64_t p = pixels();
  if (p == 1) return dz;
  for (int64_t n = 0; n < images; ++n) {
    for (int64_t o = 0; o < filters; ++o) {
      for (int64_t i = 0; i < p; ++i) scratch[(n * p + i) * filters + o] = dz[(n * filters + o) * p + i];
    }
  }
  return scratch;
}

std::vector<int64_t> SmallMapConv::PixelTaps(int64_t p) const {
  std::vector<int64_t> own;
  for (int64_t t = 0; t < live(); ++t) {
    if (reads[p * live() + t] >= 0) own.push_back(t);
  }
  return own;
}

void SmallMapConv::ForwardPerPixel(const float* data, const float* weight, int64_t weights_id, const float* bias,
                                   bool relu, float* out) const {
  const int64_t p_count = pixels(), plane = height * width, kernel = kernel_h * kernel_w;
  float* y = Scratch(kRowsSlot, p_count * images * filters);
  for (int64_t p = 0; p < p_count; ++p) {
    std::vector<int64_t> own = PixelTaps(p);
    const int64_t t_count = static_cast<int64_t>(own.size()), k = channels * t_count;
    float* rows = y + p * images * filters;
    if (t_count == 0) {  // every tap in padding: the bias alone
      for (int64_t n = 0; n < images; ++n) {
        for (int64_t o = 0; o < filters; ++o) rows[n * filters + o] = bias != nullptr ? bias[o] : 0.0f;
      }
    } else {
      std::vector<int64_t> kernel_taps;
      for (int64_t t : own) kernel_taps.push_back(taps[t]);
      std::shared_ptr<const std::vector<float>> w = PixelWeights().Get(
          {weights_id, filters, channels, kernel, kernel_taps}, [&] {
            std::vector<float> gathered(static_cast<size_t>(filters * k));
            float* dst = gathered.data();
            for (int64_t oc = 0; oc < filters * channels; ++oc) {
              for (int64_t tap : kernel_taps) *dst++ = weight[oc * kernel + tap];
            }
            return gathered;
          });
      // cols (N, C x own taps): what this pixel reads of each image.
      float* cols = Scratch(kColsSlot, images * k);
      const int64_t* offsets = reads.data() + p * live();
      ForImages([&](int64_t first, int64_t end) {
        for (int64_t n = first; n < end; ++n) {
          const float* image = data + n * channels * plane;
          float* dst = cols + n * k;
          for (int64_t c = 0; c < channels; ++c) {
            for (int64_t j = 0; j < t_count; ++j) dst[c * t_count + j] = image[c * plane + offsets[own[j]]];
          }
        }
      });
      RunGemm(Gemm{false, true, images, filters, k, cols, k, w->data(), k, rows, bias, false});
    }
  }
  for (int64_t n = 0; n < images; ++n) {
    for (int64_t o = 0; o < filters; ++o) {
      for (int64_t p = 0; p < p_count; ++p) {
        float v = y[(p * images + n) * filters + o];
        out[(n * filters + o) * p_count + p] = relu ? std::max(v, 0.0f) : v;
      }
    }
  }
}

void SmallMapConv::Forward(const float* data, const float* weight, const float* bias, bool relu, float* out,
                           int64_t weights_id) const {
  if (weights_id != 0 && pixels() > 1) {
    // Only for at least half the work saved: GEMMs of one pixel's rows run slower per
    // multiply-add (a stride-2 convolution from 4x4 to 2x2, 25 of 36 pixel taps live, ran slower).
    int64_t own_taps = 0;
    for (int64_t p = 0; p < pixels(); ++p) own_taps += static_cast<int64_t>(PixelTaps(p).size());
    if (2 * own_taps <= pixels() * live()) return ForwardPerPixel(data, weight, weights_id, bias, relu, out);
  }
  int64_t rows = images * pixels(), k = channels * live();
  float* cols = Scratch(kColsSlot, rows * k);
  Unfold(data, cols);
  const float* w = LiveWeights(weight, all_taps() ? nullptr : Scratch(kWeightSlot, filters * k));
  // (N x P, O) = cols (N x P, C x T) times wᵀ; for 1-pixel maps that is the output itself.
  int64_t p = pixels();
  float* y = p == 1 ? out : Scratch(kRowsSlot, rows * filters);
  RunGemm(Gemm{false, true, rows, filters, k, cols, k, w, k, y, bias, relu});
  if (p == 1) return;
  for (int64_t n = 0; n < images; ++n) {
    for (int64_t o = 0; o < filters; ++o) {
      for (int64_t i = 0; i < p; ++i) out[(n * filters + o) * p + i] = y[(n * p + i) * filters + o];
    }
  }
}

void SmallMapConv::BackwardData(const float* dz, const float* weight, float* ddata) const {
  int64_t rows = images * pixels(), k = channels * live();
  const float* g = PixelRows(dz, Scratch(kRowsSlot, rows * filters));
  const float* w = LiveWeights(weight, all_taps() ? nullptr : Scratch(kWeightSlot, filters * k));
  // The columns' gradient (N x P, C x T) = g (N x P, O) times w (O, C x T).
  float* dcols = Scratch(kColsSlot, rows * k);
  RunGemm(Gemm{false, false, rows, k, filters, g, filters, w, k, dcols, nullptr, false});
  Fold(dcols, ddata);
}

void SmallMapConv::BackwardWeights(const float* data, const float* dz, float* dweight, float* dbias) const {
  int64_t rows = images * pixels(), k = channels * live();
  const float* g = PixelRows(dz, Scratch(kRowsSlot, rows * filters));
  float* cols = Scratch(kColsSlot, rows * k);
  Unfold(data, cols);
  // dw (O, C x T) = gᵀ (O, N x P) times cols (N x P, C x T): OIHW itself when every tap is live.
  float* dw = all_taps() ? dweight : Scratch(kWeightSlot, filters * k);
  RunGemm(Gemm{true, false, filters, k, rows, g, filters, cols, k, dw, nullptr, false});
  if (!all_taps()) {
    // One pass: each (filter, channel)'s kernel zeroed, then its live taps written.
    int64_t kernel = kernel_h * kernel_w;
    ForFilters([&](int64_t first, int64_t end) {
      const float* src = dw + first * channels * live();
      for (int64_t oc = first * channels; oc < end * channels; ++oc) {
        float* dst = dweight + oc * kernel;
        std::fill(dst, dst + kernel, 0.0f);
        for (int64_t tap : taps) dst[tap] = *src++;
      }
    });
  }
  if (dbias != nullptr) {
    std::fill(dbias, dbias + filters, 0.0f);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t o = 0; o < filters; ++o) dbias[o] += g[r * filters + o];
    }
  }
}

}  // namespace rxt::lib_dnnl
