#pragma once

#include "LibTorchRunner.h"

#include <memory>

namespace fusescope {

// One AOTInductor package run in-process (docs/libtorch.md, "AOTInductor"): the worker built
// the .pt2 (export_aoti, which also streamed the stages); this loads it with
// torch::inductor::AOTIModelPackageLoader, times it and checks it against the eager outputs.
class AotInductorRunner : public LibTorchRunner {
public:
    AotInductorRunner();
    ~AotInductorRunner() override;
    AotInductorRunner(const AotInductorRunner&) = delete;
    AotInductorRunner& operator=(const AotInductorRunner&) = delete;

    // Why aot_inductor cannot run here (this LibTorch has no package loader, no C++ compiler
    // for Inductor to build the package with), or empty when it can.
    static std::string unavailableReason();

    // The reply to export_aoti: package_path, data_path, export_s, aoti_compile_s, ...
    std::optional<RunError> load(const nlohmann::json& exported) override;
    // Loads the package (extracts it, opens its library), then makes the first call.
    std::optional<RunError> compile() override;
    void call() override;
    std::string callee() const override { return "the AOTInductor package"; }
    std::optional<RunError> checkAccuracy() override;
    PeakMemory measurePeakMemory() override;

    // torch.export + AOTInductor compile and package build (worker, capture left out) + loading
    // the package here.
    double compileSeconds() const override;
    double firstCallSeconds() const override;
    std::optional<double> captureOverheadSeconds() const override;
    const std::vector<StageGraph>& stages() const override; // none: the worker streamed them
    const std::optional<Accuracy>& accuracy() const override;
    const nlohmann::json& info() const override;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace fusescope
