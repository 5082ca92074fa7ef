#pragma once

#include "model/Result.h"
#include "model/Sweep.h"

#include <nlohmann/json.hpp>

// A sweep's files and stream (docs/sweeps.md): DIR/sweep.json, which the Python sweep driver
// writes and FuseScope reads, and the driver's event lines. Both come from another process and
// are decoded here once, never throwing; errors name the field.

namespace fusescope::codec {

// DIR/sweep.json. Error code: suite_corrupt (not a sweep state, or a field that does not decode).
Result<SweepState> decodeSweepState(const nlohmann::json& j);
// One event line. Error code: protocol_error.
Result<SweepEvent> decodeSweepEvent(const nlohmann::json& j);

} // namespace fusescope::codec
