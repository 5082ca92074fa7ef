#include "RunRequest.h"

namespace fusescope {

nlohmann::json RunRequest::toProtocol(const std::string& id) const {
    return {{"type", "run"},
            {"id", id},
            {"model", model},
            {"backend", backend},
            {"device", device},
            {"options", options},
            {"cache", warmCache ? "warm" : "cold"},
            {"measure",
             {{"warmup", measure.warmup},
              {"min_runs", measure.minRuns},
              {"min_time_s", measure.minTimeSeconds},
              {"max_runs", measure.maxRuns},
              {"max_time_s", measure.maxTimeSeconds}}},
            {"capture", {{"stages", captureStages}, {"code", captureCode}}},
            {"inputs", inputs}};
}

} // namespace fusescope
