#pragma once

#include "model/BackendRun.h"

#include <set>
#include <string>
#include <vector>

namespace fusescope {

// The kernels of one of the run's post-fusion stages that compute in int8 (docs/quantization.md):
// an int8 op (aten._int_mm, onednn.qlinear_*/qconv*, _weight_int8pack_mm, quantize_per_*), an int8
// or uint8 output, or a kernel whose generated source takes int8/uint8 pointers (Inductor's C++
// `const int8_t*`, Triton's `*i8`, an AOTInductor package's `void name(const int8_t* ...)`), found
// in the run's code artifact the group names. Their
// FusionGroup ids.
std::set<std::string> int8KernelGroups(const BackendRun& run, const StageGraph& stage);

// Kernels of the run's post-fusion stages (every graph, forward and backward) that compute in
// int8: a name per kernel, in stage order (two oneDNN linears give the same name twice).
std::vector<std::string> int8KernelNames(const BackendRun& run);

// The quantization account of one int8 run for the comparison table, `show`, the GUI's details
// and the HTML report (model/Quantization.h): the summary line with the int8 kernels found in its
// post-fusion stages, then what it was calibrated on, one line per layer left in floating point,
// and the worker's notes. Empty when the run has no quantization record.
std::vector<std::string> quantizationLines(const BackendRun& run);

} // namespace fusescope
