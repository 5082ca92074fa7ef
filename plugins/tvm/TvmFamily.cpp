#include "TvmFamily.h"

#include "capture/WorkerJob.h"

namespace fusescope {

TvmFamily::TvmFamily(WorkerConfig config)
    : m_config(std::move(config)) {
}

std::unique_ptr<BackendJob> TvmFamily::createJob(const RunRequest& request, QObject* parent) {
    return std::make_unique<WorkerJob>(m_config, request, id(), parent);
}

} // namespace fusescope
