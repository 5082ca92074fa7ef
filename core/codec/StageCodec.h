#pragma once

#include "Reader.h"
#include "model/Result.h"
#include "model/StageGraph.h"

#include <nlohmann/json.hpp>
#include <string>

// One captured stage graph (model/StageGraph.h; docs/graph-schema.json), as a report saves it and
// the protocol's `stage` message carries it: encoder and decoder side by side.

namespace fusescope {

void to_json(nlohmann::json& j, const StageGraph& stage);

} // namespace fusescope

namespace fusescope::codec {

Result<StageGraph> decodeStageGraph(const nlohmann::json& j, const std::string& origin = {});
void readStageGraph(const Reader& r, StageGraph& s);

} // namespace fusescope::codec
