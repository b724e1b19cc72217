#include "converters.h"

namespace rxt::import_onnx {

const ConverterMap& Converters() {
  static const ConverterMap map = [] {
    ConverterMap m;
    AddElementwiseConverters(m);
    AddNNConverters(m);
    AddShapeConverters(m);
    AddReduceConverters(m);
    AddIndexConverters(m);
    AddResizeConverters(m);
    AddSignalConverters(m);
    AddEinsumConverters(m);
    AddQuantizeConverters(m);
    AddTrainingConverters(m);
    return m;
  }();
  return map;
}

}  // namespace rxt::import_onnx
