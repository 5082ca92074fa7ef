#include "Report.h"

#include "JsonUtil.h"

#include <algorithm>

namespace fusescope {

using jsonutil::valueOr;
using nlohmann::json;

BackendRun* Report::findBackend(const std::string& name) {
    auto it =
        std::find_if(backends.begin(), backends.end(), [&](const BackendRun& r) { return r.name == name; });
    return it == backends.end() ? nullptr : &*it;
}

const BackendRun* Report::findBackend(const std::string& name) const {
    return const_cast<Report*>(this)->findBackend(name);
}

void to_json(json& j, const WorkerEnvironment& e) {
    j = {{"protocol", e.protocolVersion}, {"worker", e.worker}, {"python", e.python}, {"torch", e.torch},
         {"devices", e.devices},          {"cuda", e.cuda}};
}

void from_json(const json& j, WorkerEnvironment& e) {
    // A report stores the version as "protocol"; the handshake names the protocol there and
    // carries the version in "version".
    const auto protocol = j.find("protocol");
    e.protocolVersion = protocol != j.end() && protocol->is_number_integer() ? protocol->get<int>()
                                                                             : valueOr<int>(j, "version", 0);
    e.worker = valueOr<std::string>(j, "worker", "");
    e.python = valueOr<std::string>(j, "python", "");
    e.torch = valueOr<std::string>(j, "torch", "");
    e.devices = valueOr<std::vector<std::string>>(j, "devices", {});
    e.cuda = valueOr<json>(j, "cuda", nullptr);
}

void to_json(json& j, const Report& r) {
    j = {{"format", kReportFormatName}, {"schema", r.schema},
         {"created", r.created},        {"generator", r.generator},
         {"model_spec", r.modelSpec},   {"model", r.model},
         {"device", r.device},          {"environment", r.environment},
         {"settings", r.settings},      {"backends", r.backends},
         {"search", r.search}};
}

void from_json(const json& j, Report& r) {
    r.schema = j.at("schema").get<int>();
    r.created = valueOr<std::string>(j, "created", "");
    r.generator = valueOr<std::string>(j, "generator", "");
    r.modelSpec = valueOr<std::string>(j, "model_spec", "");
    r.model = valueOr<ModelInfo>(j, "model", {});
    r.device = valueOr<std::string>(j, "device", "cpu");
    r.environment = valueOr<WorkerEnvironment>(j, "environment", {});
    r.settings = valueOr<json>(j, "settings", json::object());
    r.backends = valueOr<std::vector<BackendRun>>(j, "backends", {});
    r.search = valueOr<json>(j, "search", nullptr);
}

} // namespace fusescope
