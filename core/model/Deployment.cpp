#include "Deployment.h"

namespace fusescope {

namespace {
template <typename T> nlohmann::json orNull(const std::optional<T>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
} // namespace

void to_json(nlohmann::json& j, const Deployment& d) {
    j = {{"artifact", d.artifact},
         {"loader", d.loader},
         {"artifact_bytes", orNull(d.artifactBytes)},
         {"eager_model_bytes", orNull(d.eagerModelBytes)},
         {"load_s", orNull(d.loadSeconds)},
         {"first_call_s", orNull(d.firstCallSeconds)},
         {"process_s", orNull(d.processSeconds)},
         {"fresh_processes", d.freshProcesses},
         {"load_samples_s", d.loadSamplesSeconds},
         {"first_call_samples_s", d.firstCallSamplesSeconds},
         {"file_cache", d.fileCache.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.fileCache)},
         {"file_cache_resident", orNull(d.fileCacheResident)}};
    if (!d.error.empty())
        j["error"] = d.error;
}

} // namespace fusescope
