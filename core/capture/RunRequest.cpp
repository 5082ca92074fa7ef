#include "RunRequest.h"

#include "codec/Reader.h"

namespace fusescope {

nlohmann::json MeasureSettings::toJson() const {
    return {{"warmup", warmup},    {"min_runs", minRuns},          {"min_time_s", minTimeSeconds},
            {"max_runs", maxRuns}, {"max_time_s", maxTimeSeconds}, {"confidence_pct", confidencePct},
            {"settle", settle}};
}

MeasureSettings MeasureSettings::fromJson(const nlohmann::json& measure, const MeasureSettings& defaults) {
    MeasureSettings m = defaults;
    if (!measure.is_object())
        return m;
    const codec::Reader r(measure);
    m.warmup = r.integer("warmup", m.warmup);
    m.minRuns = r.integer("min_runs", m.minRuns);
    m.minTimeSeconds = r.number("min_time_s", m.minTimeSeconds);
    m.maxRuns = r.integer("max_runs", m.maxRuns);
    m.maxTimeSeconds = r.number("max_time_s", m.maxTimeSeconds);
    m.confidencePct = r.number("confidence_pct", m.confidencePct);
    m.settle = r.integer("settle", m.settle);
    return m;
}

MeasureSettings MeasureSettings::fromJson(const nlohmann::json& measure) {
    return fromJson(measure, MeasureSettings{});
}

Placement Placement::fromJson(const nlohmann::json& placement) {
    Placement p;
    if (!placement.is_object())
        return p;
    if (const auto it = placement.find("threads"); it != placement.end() && it->is_number_integer())
        p.threads = it->get<int>();
    if (const auto it = placement.find("pin"); it != placement.end() && it->is_array())
        for (const auto& cpu : *it)
            if (cpu.is_number_integer() && cpu.get<int>() >= 0)
                p.pin.push_back(cpu.get<int>());
    if (const auto it = placement.find("malloc");
        it != placement.end() && it->is_string() && (*it == "steady" || *it == "system"))
        p.malloc = it->get<std::string>();
    return p;
}

nlohmann::json Placement::toProtocol() const {
    return {{"threads", threads ? nlohmann::json(*threads) : nlohmann::json(nullptr)},
            {"pin", pin.empty() ? nlohmann::json(nullptr) : nlohmann::json(pin)},
            {"malloc", malloc}};
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
            {"measure", measure.toJson()},
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
