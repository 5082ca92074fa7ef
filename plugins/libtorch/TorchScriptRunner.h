#pragma once

#include "capture/RunRequest.h"
#include "model/BackendRun.h"

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fusescope {

// One TorchScript module run in-process with LibTorch (docs/libtorch.md). Phases are separate
// calls so the caller can stop between them. Not thread-safe: construct, use and destroy it on
// one thread; it sets LibTorch's process-wide JIT switches for its lifetime and restores them.
class TorchScriptRunner {
public:
    enum class Mode { Interpreter, Nnc };

    explicit TorchScriptRunner(Mode mode);
    ~TorchScriptRunner();
    TorchScriptRunner(const TorchScriptRunner&) = delete;
    TorchScriptRunner& operator=(const TorchScriptRunner&) = delete;

    // Which code generator NNC uses on the CPU in this LibTorch: "llvm", or "ir_eval" when the
    // build has no LLVM (NNC then runs its fused kernels with its IR interpreter).
    static std::string nncCpuCodegen();

    std::optional<RunError> load(const std::string& modelPath, const std::string& dataPath);
    // Calls the module until the executor has its optimized plan (NNC: after the profiling runs),
    // then converts the graphs before and after into stages.
    std::optional<RunError> compile();
    // Warm-up, then timed calls with docs/measurement.md's stopping rule; `onSamples` receives
    // chunks of at most 50 samples (ms). Stops early, without error, when `cancelled` says so.
    std::optional<RunError> measure(const MeasureSettings& settings, const std::function<bool()>& cancelled,
                                    const std::function<void(std::vector<double>)>& onSamples);
    std::optional<RunError> checkAccuracy();

    double loadSeconds() const;
    double compileSeconds() const; // load + calls until the optimized plan exists
    double firstCallSeconds() const;
    const std::vector<StageGraph>& stages() const;
    const std::optional<Accuracy>& accuracy() const;
    // What the run found out: executor settings, NNC code generator, fusion groups, calls needed.
    const nlohmann::json& info() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace fusescope
