#include "TorchCompileFamily.h"

#include "capture/WorkerJob.h"
#include "model/JsonUtil.h"

namespace fusescope {

TorchCompileFamily::TorchCompileFamily(WorkerConfig config)
    : m_config(std::move(config)) {
}

std::vector<BackendInfo> TorchCompileFamily::probe() {
    std::vector<BackendInfo> out;
    const auto answer = queryWorker(m_config, {{"type", "list_backends"}, {"id", "probe"}}, 120'000);
    if (!answer.ok) {
        // Without a worker nothing of this family can run; say so for the backends users expect.
        for (const char* name : {"eager", "aot_eager", "inductor", "cudagraphs"})
            out.push_back({name, id(), false, answer.error, {}});
        return out;
    }
    for (const auto& b : answer.backends) {
        BackendInfo info;
        info.name = jsonutil::valueOr<std::string>(b, "name", "");
        info.family = jsonutil::valueOr<std::string>(b, "family", id());
        info.available = jsonutil::valueOr<bool>(b, "available", false);
        info.reason = jsonutil::valueOr<std::string>(b, "reason", "");
        info.tags = jsonutil::valueOr<std::vector<std::string>>(b, "tags", {});
        out.push_back(std::move(info));
    }
    return out;
}

std::unique_ptr<BackendJob> TorchCompileFamily::createJob(const RunRequest& request, QObject* parent) {
    return std::make_unique<WorkerJob>(m_config, request, id(), parent);
}

} // namespace fusescope
