#pragma once

#include "model/Result.h"

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace fusescope {

// What one run exercises beyond "one forward on the model's own inputs" (docs/protocol.md,
// "workload"; docs/workloads.md): training steps, autocast precision, a list of input shapes, and
// per-submodule backends for a mixed run.
struct Workload {
    std::string mode = "inference"; // inference | training
    std::string precision = "fp32"; // fp32 | bf16 | fp16
    nlohmann::json shapes;          // null, or a list of input sets (each a list of {shape, dtype})
    // Submodule -> backend, in the order given. Non-empty only for the `mixed` backend.
    std::vector<std::pair<std::string, std::string>> assign;

    bool isDefault() const {
        return mode == "inference" && precision == "fp32" && shapes.is_null() && assign.empty();
    }
    nlohmann::json toProtocol() const;
};

inline constexpr const char* kMixedBackend = "mixed";

// `4x16:float32,4:int64` -> [{"shape": [4, 16], "dtype": "float32"}, {"shape": [4], "dtype": "int64"}].
// dtype defaults to float32.
Result<nlohmann::json> parseInputSpec(const std::string& text);
// Input sets separated by ';': `1x8:int64;4x8:int64;4x32:int64`.
Result<nlohmann::json> parseShapeList(const std::string& text);
// `encoder=inductor,decoder=aot_eager` -> ordered pairs. Names must be unique and non-empty.
Result<std::vector<std::pair<std::string, std::string>>> parseAssignment(const std::string& text);

// A comparison row for a mixed run is labelled `mixed[encoder=inductor,decoder=aot_eager]`, so a
// report row says what ran and requestFor() can rebuild the request from the label alone.
std::string mixedLabel(const std::vector<std::pair<std::string, std::string>>& assign);
bool isMixedLabel(const std::string& label);

// Validity checks shared by the CLI and the GUI, each message naming the bad value.
Status checkMode(const std::string& mode);
Status checkPrecision(const std::string& precision);

} // namespace fusescope
