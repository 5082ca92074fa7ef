#pragma once

#include "LibTorchRunner.h"

#include <memory>

namespace fusescope {

// One TorchScript module run in-process with LibTorch (docs/libtorch.md). Phases are separate
// calls so the caller can stop between them. Not thread-safe: construct, use and destroy it on
// one thread; it sets LibTorch's process-wide JIT switches for its lifetime and restores them.
class TorchScriptRunner : public LibTorchRunner {
public:
    enum class Mode { Interpreter, Nnc };

    explicit TorchScriptRunner(Mode mode);
    ~TorchScriptRunner() override;
    TorchScriptRunner(const TorchScriptRunner&) = delete;
    TorchScriptRunner& operator=(const TorchScriptRunner&) = delete;

    // Which code generator NNC uses on the CPU in this LibTorch: "llvm", or "ir_eval" when the
    // build has no LLVM (NNC then runs its fused kernels with its IR interpreter).
    static std::string nncCpuCodegen();

    std::optional<RunError> load(const std::string& modelPath, const std::string& dataPath);
    // The reply to export_torchscript: its model_path and data_path.
    std::optional<RunError> load(const nlohmann::json& exported) override;
    // Calls the module until the executor has its optimized plan (NNC: after the profiling runs),
    // then converts the graphs before and after into stages.
    std::optional<RunError> compile() override;
    // The deployment probe (DeploymentProbe.cpp): compile() stops after the first call, as a
    // deployed module's first call is; no optimized plan is waited for and no stage converted.
    void setFirstCallOnly(bool firstCallOnly);
    void call() override;
    std::string callee() const override { return "the TorchScript module"; }
    std::optional<RunError> checkAccuracy() override;
    PeakMemory measurePeakMemory() override;

    double loadSeconds() const;
    double compileSeconds() const override; // load + calls until the optimized plan exists
    double firstCallSeconds() const override;
    const std::vector<StageGraph>& stages() const override;
    const std::optional<Accuracy>& accuracy() const override;
    // What the run found out: executor settings, NNC code generator, fusion groups, calls needed.
    const nlohmann::json& info() const override;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace fusescope
