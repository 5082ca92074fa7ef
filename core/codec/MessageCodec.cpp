#include "MessageCodec.h"

#include "Reader.h"
#include "ReportCodec.h"
#include "SettingsCodec.h"
#include "model/ErrorCode.h"

namespace fusescope::codec {

using nlohmann::json;

json encodeRunRequest(const RunRequest& request, const std::string& id) {
    json opts = request.options.is_object() ? request.options : json::object();
    opts["cache"] = request.warmCache ? "warm" : "cold";
    return {{"type", "run"},
            {"id", id},
            {"model", request.model},
            {"backend", request.backend},
            {"device", request.device},
            {"options", opts},
            {"measure", request.measure},
            {"capture",
             {{"stages", request.captureStages},
              {"code", request.captureCode},
              {"trace", request.captureTrace},
              {"roofs", request.roofs},
              {"bisect_budget_s",
               request.bisectBudgetSeconds ? json(*request.bisectBudgetSeconds) : json(nullptr)}}},
            {"placement", request.placement},
            {"inputs", request.inputs.empty() ? json(nullptr) : json(request.inputs)},
            {"workload", request.workload}};
}

Result<Hello> decodeHello(const json& message) {
    const Reader r(message);
    Hello hello;
    hello.protocol = r.str("protocol");
    hello.version = r.int64("version");
    if (auto e = r.error(toString(ErrorCode::ProtocolError)))
        return *e;
    auto env = decodeEnvironment(message);
    if (!env)
        return env.error();
    hello.environment = std::move(env).value();
    return hello;
}

Result<Progress> decodeProgress(const json& message) {
    const Reader r(message);
    Progress p;
    p.phase = r.str("phase");
    p.fraction = r.number("fraction", -1);
    p.message = r.str("message");
    if (auto e = r.error(toString(ErrorCode::ProtocolError)))
        return *e;
    return p;
}

Result<Samples> decodeSamples(const json& message) {
    const Reader r(message);
    Samples s;
    s.series = r.str("series");
    s.ms = r.numbers("ms");
    if (auto e = r.error(toString(ErrorCode::ProtocolError)))
        return *e;
    return s;
}

} // namespace fusescope::codec
