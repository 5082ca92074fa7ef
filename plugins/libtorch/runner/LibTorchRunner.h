#pragma once

#include "model/BackendRun.h"
#include "model/RunRequest.h"

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fusescope {

// Peak CPU memory of one call (docs/libtorch.md, "Peak memory"): `bytes` when measured, else
// `reason` says why not.
struct PeakMemory {
    std::optional<int64_t> bytes;
    std::string method; // as the worker names the same measure: "profiler-allocator-peak"
    std::string reason;
    int64_t events = 0; // allocator events (allocations and frees) the profiler recorded
};

// What fusescope-libtorch-runner (RunnerMain.cpp) drives, phase by phase (docs/libtorch.md): the
// model the worker exported is loaded, compiled (or made ready), timed and checked in the runner's
// process. Phases are separate calls so the runner can stop between them. Implementations: TorchScriptRunner,
// AotInductorRunner. Not thread-safe: construct, use and destroy a runner on one thread.
class LibTorchRunner {
public:
    virtual ~LibTorchRunner() = default;

    // Loads what the worker wrote; `exported` is its reply (torchscript_exported, aoti_exported).
    virtual std::optional<RunError> load(const nlohmann::json& exported) = 0;
    // Makes the model ready to be timed; stages known only in-process are converted here.
    virtual std::optional<RunError> compile() = 0;
    // One call of the ready model, for the runner's interleaved timing (core/capture/PairedTiming.h,
    // RunnerMain.cpp); throws what the call throws. The timed loop is the runner's, not ours.
    virtual void call() = 0;
    // What a failing call is, for its error: "the TorchScript module", "the AOTInductor package".
    virtual std::string callee() const = 0;
    virtual std::optional<RunError> checkAccuracy() = 0;
    // One more call, outside the timed samples, under LibTorch's memory profiler
    // (libtorch::profilerAllocatorPeak). Never throws: a failure is the result's reason.
    virtual PeakMemory measurePeakMemory() = 0;

    virtual double compileSeconds() const = 0;
    virtual double firstCallSeconds() const = 0;
    // Time spent capturing stages inside the compile, already left out of compileSeconds().
    virtual std::optional<double> captureOverheadSeconds() const { return std::nullopt; }
    // Stages built in-process (the worker may have streamed others already).
    virtual const std::vector<StageGraph>& stages() const = 0;
    virtual const std::optional<Accuracy>& accuracy() const = 0;
    // What the run found out, recorded as run.options.libtorch.
    virtual const nlohmann::json& info() const = 0;
};

} // namespace fusescope
