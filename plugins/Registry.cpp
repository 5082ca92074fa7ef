#include "Registry.h"

#include "torch_compile/TorchCompileFamily.h"

namespace fusescope {

std::vector<std::unique_ptr<BackendFamily>> createBackendFamilies() {
    std::vector<std::unique_ptr<BackendFamily>> families;
    families.push_back(std::make_unique<TorchCompileFamily>(WorkerConfig::fromEnvironment()));
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
