#pragma once

#include "capture/BackendFamily.h"
#include "capture/WorkerConfig.h"

namespace fusescope {

// Apache TVM through Relax (docs/tvm.md). The work happens in the Python capture worker's
// tvm_relax package (torch.export -> Relax -> FuseOps/FuseTIR -> llvm), one process per run
// like every worker backend; this family claims the name and labels the runs.
class TvmFamily : public BackendFamily {
public:
    explicit TvmFamily(WorkerConfig config);

    std::string id() const override { return "tvm"; }
    // The worker's list_backends answers for tvm too; the torch.compile family's probe lists it.
    std::vector<BackendInfo> probe() override { return {}; }
    bool handles(const std::string& backend) const override { return backend == "tvm"; }
    std::unique_ptr<BackendJob> createJob(const RunRequest& request, QObject* parent) override;

private:
    WorkerConfig m_config;
};

} // namespace fusescope
