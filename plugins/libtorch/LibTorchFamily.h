#pragma once

#include "capture/BackendFamily.h"
#include "capture/WorkerConfig.h"

#include <mutex>
#include <optional>

namespace fusescope {

// Models run by LibTorch: `torchscript` (the plain interpreter), `torchscript_nnc` (the profiling
// executor with the NNC fuser on the CPU) and `aot_inductor` (an AOTInductor package loaded with
// AOTIModelPackageLoader). They run in fusescope-libtorch-runner, a process of their own that
// speaks the worker protocol (docs/libtorch.md): jobs are WorkerJobs, and the apps do not link
// LibTorch.
class LibTorchFamily : public BackendFamily {
public:
    explicit LibTorchFamily(WorkerConfig config);

    std::string id() const override { return "libtorch"; }
    std::vector<BackendInfo> probe() override;
    bool handles(const std::string& backend) const override;
    std::unique_ptr<BackendJob> createJob(const RunRequest& request, QObject* parent) override;

    // Where the runner is (docs/libtorch.md, "The runner"): FUSESCOPE_LIBTORCH_RUNNER when set,
    // else next to the application, <app>/../lib/fusescope, the build tree. Empty when none
    // exists; `why` then says where it looked.
    static QString locateRunner(const QProcessEnvironment& environment, std::string* why = nullptr);

    // The torch release the runner was built against ("2.13.0"), from the configure step.
    static std::string runnerTorchVersion();

private:
    // The config the runner starts with: the chosen interpreter's torch/lib first on
    // LD_LIBRARY_PATH when its torch is the release the runner was built against (a packaged
    // runner has no RPATH; docs/packaging.md). Asked of the interpreter once (inspectPython).
    WorkerConfig runnerConfig();

    WorkerConfig m_config;
    std::mutex m_mutex;
    std::optional<WorkerConfig> m_runnerConfig;
};

} // namespace fusescope
