#include "Registry.h"

#include "libtorch/LibTorchFamily.h"
#include "torch_compile/TorchCompileFamily.h"
#include "tvm/TvmFamily.h"

namespace fusescope {

std::vector<std::unique_ptr<BackendFamily>> createBackendFamilies() {
    std::vector<std::unique_ptr<BackendFamily>> families;
    WorkerConfig worker = WorkerConfig::fromEnvironment();
#ifdef FUSESCOPE_CUPTI_LIB_PATH
    if (!worker.environment.contains("FUSESCOPE_CUPTI_LIB"))
        worker.environment.insert("FUSESCOPE_CUPTI_LIB", QStringLiteral(FUSESCOPE_CUPTI_LIB_PATH));
#endif
    // Before TorchCompileFamily, which claims every name: torchscript, torchscript_nnc and
    // aot_inductor are ours.
    families.push_back(std::make_unique<LibTorchFamily>(worker));
    families.push_back(std::make_unique<TvmFamily>(worker));
    families.push_back(std::make_unique<TorchCompileFamily>(std::move(worker)));
    return families;
}

std::vector<BackendFamily*> familyPointers(const std::vector<std::unique_ptr<BackendFamily>>& families) {
    std::vector<BackendFamily*> out;
    out.reserve(families.size());
    for (const auto& f : families)
        out.push_back(f.get());
    return out;
}

} // namespace fusescope
