#pragma once

#include "capture/BackendFamily.h"
#include "capture/WorkerConfig.h"

namespace fusescope {

// torch.compile backends (eager, aot_eager, inductor, cudagraphs, third-party entry points), run by
// the Python capture worker in worker/ as a child process per backend.
class TorchCompileFamily : public BackendFamily {
public:
    explicit TorchCompileFamily(WorkerConfig config);

    std::string id() const override { return "torch_compile"; }
    std::vector<BackendInfo> probe() override;
    // Any name: the worker knows what torch registered and answers backend_unavailable otherwise.
    bool handles(const std::string&) const override { return true; }
    std::unique_ptr<BackendJob> createJob(const RunRequest& request, QObject* parent) override;

private:
    WorkerConfig m_config;
};

} // namespace fusescope
