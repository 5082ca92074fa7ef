#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fusescope {

// What deploying a backend's artifact costs (result `deployment`, docs/protocol.md; measured by
// the LibTorch runner, docs/libtorch.md "Deployment"): the artifact's size on disk next to the
// eager model's, and its load and first call in processes that had never loaded it. Only the
// backends that produce a file a user would ship have one (aot_inductor, torchscript,
// torchscript_nnc from the LibTorch runner; tvm from the worker, tvm_relax/deploy.py); absent in
// older reports.
struct Deployment {
    std::string artifact; // file name: model.pt2, model.pt
    std::string loader;   // what loads it: torch::inductor::AOTIModelPackageLoader, torch::jit::load
    std::optional<int64_t> artifactBytes;
    std::optional<int64_t> eagerModelBytes; // torch.save(model.state_dict()) of the eager model
    // Medians over the fresh processes (the samples below, one per process).
    std::optional<double> loadSeconds;
    std::optional<double> firstCallSeconds;
    std::optional<double> processSeconds; // one fresh process's whole life, start to exit
    int freshProcesses = 0;
    std::vector<double> loadSamplesSeconds;
    std::vector<double> firstCallSamplesSeconds;
    // The OS page cache for the artifact before each load: warm, cold, partial or unknown, and
    // the least resident fraction of its pages seen (mincore).
    std::string fileCache;
    std::optional<double> fileCacheResident;
    std::string error; // why the loads were not (all) measured; empty when they were

    bool operator==(const Deployment&) const = default;
};

// Encoder and decoder: codec/RunCodec.h.

} // namespace fusescope
