#pragma once

#include "Reader.h"
#include "model/Result.h"
#include "model/RunSettings.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

// What a run is asked to do (model/RunSettings.h), as the run request, a result's workload echo
// and a report's `settings` write it (docs/protocol.md "workload", docs/report-format.md). Each
// record's encoder and decoder are side by side here; the decoders never throw and name the
// first bad field's path.

namespace fusescope {

// {"shape": [4, "s0"], "dtype": "float32"}: a size that is all digits is written as an integer.
void to_json(nlohmann::json& j, const TensorSpec& input);
// The seven members every request and new report write (docs/protocol.md "run").
void to_json(nlohmann::json& j, const MeasureSettings& measure);
// The members the record has, only.
void to_json(nlohmann::json& j, const MeasureRecord& measure);
// {threads, pin, malloc}: threads and pin null when unset, malloc when said.
void to_json(nlohmann::json& j, const Placement& placement);
// {mode, precision, shapes, assign}: shapes and assign null when there are none.
void to_json(nlohmann::json& j, const Workload& workload);
void to_json(nlohmann::json& j, const ImportSource& source);
void to_json(nlohmann::json& j, const RunSettings& settings);

} // namespace fusescope

namespace fusescope::codec {

Result<RunSettings> decodeRunSettings(const nlohmann::json& j, const std::string& origin = {});
// A workload object; null is the default workload.
Result<Workload> decodeWorkload(const nlohmann::json& j, const std::string& origin = {});

// The run request's `measure` and `placement` as the LibTorch runner reads them from its parent:
// a member that is missing or of the wrong kind keeps the value in `defaults` (threads and CPU
// numbers that are not integers >= 0 are ignored, malloc other than steady or system too).
MeasureSettings measureSettingsFrom(const nlohmann::json& measure, const MeasureSettings& defaults = {});
Placement placementFrom(const nlohmann::json& placement);

// For the other decoders: the same records at a Reader, into `out` (failures go to the Reader).
void readRunSettings(const Reader& r, RunSettings& out);
void readWorkload(const Reader& r, Workload& out);
void readInputSets(const Reader& list, std::vector<InputSet>& out);
// Compile options stay JSON (RunSettings::options): the members the views read are checked, and
// null mode/fullgraph/inductor dropped (dynamic: null is "auto" and kept).
nlohmann::json checkedOptions(const Reader& options);

} // namespace fusescope::codec
