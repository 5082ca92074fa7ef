#include "Report.h"

#include <algorithm>

namespace fusescope {

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
    if (!e.torchGit.empty())
        j["torch_git"] = e.torchGit;
    if (!e.torchBuild.empty())
        j["torch_build"] = e.torchBuild;
}

void to_json(json& j, const Report& r) {
    j = {{"format", kReportFormatName}, {"schema", r.schema},           {"created", r.created},
         {"generator", r.generator},    {"model_spec", r.modelSpec},    {"model", r.model},
         {"device", r.device},          {"environment", r.environment}, {"settings", r.settings},
         {"backends", r.backends},      {"search", r.search},           {"warnings", r.warnings}};
    if (r.provenance)
        j["provenance"] = *r.provenance;
}

} // namespace fusescope
