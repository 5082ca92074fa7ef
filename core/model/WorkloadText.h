#pragma once

#include "model/Result.h"
#include "model/RunSettings.h"

#include <string>
#include <utility>
#include <vector>

namespace fusescope {

inline constexpr const char* kMixedBackend = "mixed";

// `4x16:float32,4:int64` -> two inputs, [4, 16] float32 and [4] int64 (docs/workloads.md). dtype
// defaults to float32. format::inputSet (analysis/Format.h) writes it back.
Result<InputSet> parseInputSpec(const std::string& text);
// Input sets separated by ';': `1x8:int64;4x8:int64;4x32:int64`.
Result<std::vector<InputSet>> parseShapeList(const std::string& text);
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
