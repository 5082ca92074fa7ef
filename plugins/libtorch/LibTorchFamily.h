#pragma once

#include "capture/BackendFamily.h"
#include "capture/WorkerConfig.h"

namespace fusescope {

// Models run in-process by LibTorch: `torchscript` (the plain interpreter), `torchscript_nnc`
// (the profiling executor with the NNC fuser on the CPU) and `aot_inductor` (an AOTInductor
// package loaded with AOTIModelPackageLoader). docs/libtorch.md.
class LibTorchFamily : public BackendFamily {
public:
    explicit LibTorchFamily(WorkerConfig config);

    std::string id() const override { return "libtorch"; }
    std::vector<BackendInfo> probe() override;
    bool handles(const std::string& backend) const override;
    std::unique_ptr<BackendJob> createJob(const RunRequest& request, QObject* parent) override;

private:
    WorkerConfig m_config;
};

} // namespace fusescope
