#include "RunRequest.h"

namespace fusescope {

nlohmann::json Placement::toProtocol() const {
    return {{"threads", threads ? nlohmann::json(*threads) : nlohmann::json(nullptr)},
            {"pin", pin.empty() ? nlohmann::json(nullptr) : nlohmann::json(pin)}};
}

nlohmann::json RunRequest::toProtocol(const std::string& id) const {
    nlohmann::json opts = options.is_object() ? options : nlohmann::json::object();
    opts["cache"] = warmCache ? "warm" : "cold";
    return {{"type", "run"},
            {"id", id},
            {"model", model},
            {"backend", backend},
            {"device", device},
            {"options", opts},
            {"measure",
             {{"warmup", measure.warmup},
              {"min_runs", measure.minRuns},
              {"min_time_s", measure.minTimeSeconds},
              {"max_runs", measure.maxRuns},
              {"max_time_s", measure.maxTimeSeconds},
              {"confidence_pct", measure.confidencePct}}},
            {"capture",
             {{"stages", captureStages},
              {"code", captureCode},
              {"trace", captureTrace},
              {"bisect_budget_s",
               bisectBudgetSeconds ? nlohmann::json(*bisectBudgetSeconds) : nlohmann::json(nullptr)}}},
            {"placement", placement.toProtocol()},
            {"inputs", inputs},
            {"workload", workload.toProtocol()}};
}

} // namespace fusescope
