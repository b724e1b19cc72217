#include "conv_params.h"

#include "tensor_args.h"

namespace rxt::lib_dnnl {

using dnnl::memory;

ConvWindow ConvWindow::Read(void* const* args, int first) {
  static const char* const kNames[] = {"stride_h", "stride_w", "pad_top", "pad_left", "pad_bottom",
                                       "pad_right", "dilation_h", "dilation_w", "groups"};
  int64_t v[9];
  for (int i = 0; i < 9; ++i) {
    v[i] = IntArg(args, first + i, kNames[i]);
    bool positive = i < 2 || i >= 6;
    if (positive ? v[i] < 1 : v[i] < 0) throw ArgumentError(std::string(kNames[i]) + " is " + std::to_string(v[i]));
  }
  ConvWindow w;
  w.stride[0] = v[0], w.stride[1] = v[1];
  for (int i = 0; i < 4; ++i) w.pad[i] = v[2 + i];
  w.dilation[0] = v[6], w.dilation[1] = v[7];
  w.groups = v[8];
  return w;
}

int64_t ConvWindow::OutSize(int axis, int64_t in, int64_t k) const {
  int64_t span = in + pad[axis] + pad[axis + 2] - dilation[axis] * (k - 1) - 1;
  return span < 0 ? 0 : span / stride[axis] + 1;
}

void ConvShapes::Check(const ConvWindow& w, const char* function, const char* data_name, const char* weight_name,
                       const char* out_name) const {
  auto fail = [&](const std::string& what) { throw ArgumentError(std::string(function) + ": " + what); };
  if (data[1] != weight[1] * w.groups || weight[0] % w.groups != 0) {
    fail(std::string(data_name) + " " + ShapeText(data) + " and " + weight_name + " " + ShapeText(weight) +
         " do not match with groups " + std::to_string(w.groups));
  }
  std::vector<int64_t> expected = {data[0], weight[0], w.OutSize(0, data[2], weight[2]),
                                   w.OutSize(1, data[3], weight[3])};
  if (out != expected) {
    fail(std::string(out_name) + " has shape " + ShapeText(out) + ", expected " + ShapeText(expected) + " for " +
         data_name + " " + ShapeText(data) + " and " + weight_name + " " + ShapeText(weight));
  }
}

memory::desc PlainDesc(const std::vector<int64_t>& dims) {
  memory::format_tag tag = dims.size() == 4 ? memory::format_tag::nchw
                           : dims.size() == 5 ? memory::format_tag::goihw
                                              : memory::format_tag::x;
  return memory::desc(memory::dims(dims.begin(), dims.end()), memory::data_type::f32, tag);
}

memory::desc AnyDesc(const std::vector<int64_t>& dims) {
  return memory::desc(memory::dims(dims.begin(), dims.end()), memory::data_type::f32, memory::format_tag::any);
}

memory::desc SourceDesc(const std::vector<int64_t>& nchw, int64_t groups) {
  return nchw[1] / groups < 16 ? PlainDesc(nchw) : AnyDesc(nchw);
}

memory::desc WeightDesc(const std::vector<int64_t>& oihw, int64_t groups, bool any) {
  std::vector<int64_t> dims = oihw;
  if (groups > 1) dims = {groups, oihw[0] / groups, oihw[1], oihw[2], oihw[3]};
  return any ? AnyDesc(dims) : PlainDesc(dims);
}

}  // namespace rxt::lib_dnnl
