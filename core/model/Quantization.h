#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fusescope {

// The int8 precisions (workload.precision; docs/quantization.md): the model is quantized by
// torchao into a copy the backend compiles, timed and judged against fp32 eager.
bool isQuantizedPrecision(const std::string& precision);
// Every workload precision a run accepts, fp32 first: fp32, bf16, fp16, int8_weight_only,
// int8_dynamic, int8_static.
const std::vector<std::string>& workloadPrecisions();

struct SkippedModule {
    std::string module; // the layer's path in the model, as named_modules() names it
    std::string reason; // why it stayed floating point

    bool operator==(const SkippedModule&) const = default;
};

// A quantized row's record (result `quantization`, docs/protocol.md): what was quantized, with what
// and how big its weights are against the fp32 model's. Only int8 rows have one.
struct Quantization {
    std::string mode;    // int8_weight_only, int8_dynamic, int8_static
    std::string library; // torchao
    std::string version; // the library's version
    std::vector<std::string> quantizedModules;
    std::vector<SkippedModule> skippedModules;
    std::optional<int64_t> weightBytes;     // the quantized model's parameters, buffers, constants
    std::optional<int64_t> fp32WeightBytes; // the fp32 model's parameters and buffers
    std::optional<double> quantizeSeconds;  // quantize_s: quantizing (export, calibration), not in compile
    std::string calibration;                // int8_static: what it was calibrated on
    std::vector<std::string> notes;         // what the worker set for it (freezing=true)

    bool operator==(const Quantization&) const = default;
};

// "int8_dynamic (torchao 0.18.0): 2 of 3 layers quantized, weights 266 KiB = 26 % of fp32's 1.0 MiB"
std::string quantizationText(const Quantization& q);

// Encoder and decoder: codec/RunCodec.h.

} // namespace fusescope
