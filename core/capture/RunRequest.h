#pragma once

#include "Workload.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fusescope {

// How long and how often to time (docs/measurement.md). Defaults suit a laptop CPU.
struct MeasureSettings {
    int warmup = 3;
    int minRuns = 10;
    double minTimeSeconds = 1.0;
    int maxRuns = 1000;
    double maxTimeSeconds = 30.0;
    // Keep timing, past the minimums, until the 95 % confidence interval of the speedup is within
    // +-confidencePct % of it (or a cap is reached); 0 turns the rule off.
    double confidencePct = 2.0;
    // Untimed calls of each side right before each of its timed calls, so that no timed call is
    // the first after the other side evicted its caches (docs/measurement.md, "Settle calls");
    // 0 times every call right after the other side's, as before.
    int settle = 1;
    static constexpr int kMaxSettle = 16; // the worker refuses more (request.py MAX_SETTLE)

    // The "measure" object of a run request and of a report's settings (docs/protocol.md,
    // docs/report-format.md): written and read here only, by the CLI, the GUI and the runner.
    nlohmann::json toJson() const;
    // A key that is missing (or not a number) keeps the value in `defaults`.
    static MeasureSettings fromJson(const nlohmann::json& measure, const MeasureSettings& defaults);
    static MeasureSettings fromJson(const nlohmann::json& measure);
};

// Where the worker runs (docs/measurement.md, "Threads and placement"): torch's intra-op threads
// (unset: the worker's default, one CPU fewer than it may use) and the CPUs it may run on
// (empty: all it inherits).
struct Placement {
    std::optional<int> threads;
    std::vector<int> pin;
    // The C allocator's policy (docs/measurement.md "The allocator"): steady (fixed glibc
    // thresholds, the default) or system (glibc as it starts).
    std::string malloc = "steady";
    // The "placement" object of a run request and of a report's settings (null: unset); fromJson
    // reads it back, ignoring what is not a thread count or a CPU number.
    nlohmann::json toProtocol() const;
    static Placement fromJson(const nlohmann::json& placement);
};

// One backend on one model: what the C++ side asks a backend family to do.
struct RunRequest {
    std::string model;   // demo:transformer, /path/model.py, /path/model.pt
    std::string backend; // eager, aot_eager, inductor, ...
    std::string device = "cpu";
    nlohmann::json options = nlohmann::json::object(); // mode, fullgraph, dynamic, inductor{}
    nlohmann::json inputs;                             // input spec for TorchScript files, or null
    MeasureSettings measure;
    Placement placement;
    Workload workload; // training, precision, shape list, per-submodule backends
    bool captureStages = true;
    bool captureCode = true;
    bool captureTrace = false; // kernels of a few extra iterations (profiler on CPU, CUPTI on CUDA)
    // Bisect an accuracy failure within this many seconds (docs/accuracy.md); unset: no bisect.
    std::optional<double> bisectBudgetSeconds;
    bool warmCache = false;      // reuse compile caches: faster, but compile time is then not cold
    double timeoutSeconds = 900; // the whole run, load to result

    // The `run` request line of docs/protocol.md.
    nlohmann::json toProtocol(const std::string& id) const;
};

} // namespace fusescope
