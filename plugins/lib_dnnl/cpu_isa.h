// Whether the plugin's own vector loops (single_channel_conv.cc, row_gemv.cc) may use AVX-512.
#pragma once

namespace rxt::lib_dnnl {

/// True if the CPU has AVX-512F and ONEDNN_MAX_CPU_ISA (oneDNN's own knob, honoured here too
/// so that one setting limits both; tests use it to run the portable loops) does not rule it out.
bool UseAvx512();

}  // namespace rxt::lib_dnnl
