#pragma once

#include "LibTorchRunner.h"
#include "model/BackendRun.h"
#include "model/RunRequest.h"

#include <ATen/core/ivalue.h>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

// Pieces the LibTorch runners share (docs/libtorch.md). Includes torch headers: only the
// family's own translation units include it.
namespace fusescope::libtorch {

// The example inputs and eager reference outputs the worker saved in data.pt (a scripted
// module whose attributes inputs, kwarg_names, kwarg_values, outputs hold them).
struct TensorData {
    std::vector<c10::IValue> args;
    std::unordered_map<std::string, c10::IValue> kwargs;
    std::vector<at::Tensor> reference;
};
// Throws (c10::Error, std::exception) when the file is missing or not such a module.
TensorData readTensorData(const std::string& path);

// Every tensor of an output, in order: tuples, lists and dict values are walked depth first
// (the order pytree's tree_leaves gives on the Python side).
void flattenTensors(const c10::IValue& value, std::vector<at::Tensor>& out);

// The outputs of one compiled call against the eager reference (float64): allclose at 1e-3
// (1e-2 for float16/bfloat16), exact for integer and bool, "structure" when the number of
// tensors differs. With `quantized` (an int8 mode: an AOTInductor package of torchao's quantized
// model), floating outputs are judged by the worker's quantization rule instead (accuracy.py,
// docs/quantization.md): cosine similarity >= 0.99 and relative L2 error <= 0.1 per output.
Accuracy compareOutputs(const std::vector<at::Tensor>& outputs, const std::vector<at::Tensor>& reference,
                        const std::string& quantized = {});

// docs/measurement.md "Peak memory" on the CPU, the way the worker measures it (memory.py):
// `call` once under LibTorch's Kineto profiler (ProfilerConfig KINETO, profile_memory, CPU
// activity, this thread: torch::autograd::profiler::prepareProfiler / enableProfiler /
// disableProfiler, as torch.profiler.profile does); the CPU allocator reports each allocation
// and free as a `[memory]` event with a signed byte count; sorted by time, the peak of their
// running sum is the most memory the call held beyond what existed when it started. One
// profiling session at a time in this process (libkineto is process-wide). Never throws.
inline constexpr const char* kPeakMemoryMethod = "profiler-allocator-peak";
PeakMemory profilerAllocatorPeak(const std::function<void()>& call);

} // namespace fusescope::libtorch
