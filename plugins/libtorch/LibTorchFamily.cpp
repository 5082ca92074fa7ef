#include "LibTorchFamily.h"

#include "AotInductorRunner.h"
#include "LibTorchJob.h"
#include "TorchScriptRunner.h"

namespace fusescope {

LibTorchFamily::LibTorchFamily(WorkerConfig config)
    : m_config(std::move(config)) {
}

std::vector<BackendInfo> LibTorchFamily::probe() {
    const std::string codegen = TorchScriptRunner::nncCpuCodegen();
    BackendInfo plain{"torchscript", id(), true, {}, {"cpu", "in-process", "libtorch"}};
    BackendInfo nnc{"torchscript_nnc", id(), true, {}, {"cpu", "in-process", "libtorch", "fusion"}};
    if (codegen != "llvm")
        nnc.reason = "this LibTorch has no LLVM: NNC's fused kernels run on its IR interpreter (slow)";
    const std::string aotiMissing = AotInductorRunner::unavailableReason();
    BackendInfo aoti{
        "aot_inductor", id(), aotiMissing.empty(), aotiMissing, {"cpu", "in-process", "libtorch", "fusion"}};
    return {plain, nnc, aoti};
}

bool LibTorchFamily::handles(const std::string& backend) const {
    return backend == "torchscript" || backend == "torchscript_nnc" || backend == "aot_inductor";
}

std::unique_ptr<BackendJob> LibTorchFamily::createJob(const RunRequest& request, QObject* parent) {
    return std::make_unique<LibTorchJob>(m_config, request, parent);
}

} // namespace fusescope
