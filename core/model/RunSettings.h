#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fusescope {

// One input tensor: its sizes (an integer, or a symbolic name such as "s0" where the graph is
// dynamic) and dtype. Sizes are kept as text; one that is all digits is an integer.
struct TensorSpec {
    std::vector<std::string> shape;
    std::string dtype; // empty: not said (the worker then uses float32)
    bool operator==(const TensorSpec&) const = default;
};

// One input set of a shape list: the model's inputs for one call.
using InputSet = std::vector<TensorSpec>;

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
    bool operator==(const MeasureSettings&) const = default;
};

// The `measure` object of a report's settings as it was written: reports older than a member
// lack it (no confidence_pct before the confidence rule, no settle before settle calls).
struct MeasureRecord {
    std::optional<int> warmup;
    std::optional<int> minRuns;
    std::optional<double> minTimeSeconds;
    std::optional<int> maxRuns;
    std::optional<double> maxTimeSeconds;
    std::optional<double> confidencePct;
    std::optional<int> settle;

    static MeasureRecord of(const MeasureSettings& m) {
        return {m.warmup,         m.minRuns,       m.minTimeSeconds, m.maxRuns,
                m.maxTimeSeconds, m.confidencePct, m.settle};
    }
    // The settings it records, a member it lacks taken from `defaults`.
    MeasureSettings resolved(const MeasureSettings& defaults) const {
        MeasureSettings m = defaults;
        m.warmup = warmup.value_or(m.warmup);
        m.minRuns = minRuns.value_or(m.minRuns);
        m.minTimeSeconds = minTimeSeconds.value_or(m.minTimeSeconds);
        m.maxRuns = maxRuns.value_or(m.maxRuns);
        m.maxTimeSeconds = maxTimeSeconds.value_or(m.maxTimeSeconds);
        m.confidencePct = confidencePct.value_or(m.confidencePct);
        m.settle = settle.value_or(m.settle);
        return m;
    }
    bool operator==(const MeasureRecord&) const = default;
};

// Where the worker runs (docs/measurement.md, "Threads and placement"): torch's intra-op threads
// (unset: the worker's default, one CPU fewer than it may use) and the CPUs it may run on
// (empty: all it inherits).
struct Placement {
    std::optional<int> threads;
    std::vector<int> pin;
    // The C allocator's policy (docs/measurement.md "The allocator"): steady (fixed glibc
    // thresholds, the default) or system (glibc as it starts). Empty only in a record read from a
    // report written before the option, which does not say.
    std::string malloc = "steady";
    bool operator==(const Placement&) const = default;
};

// What one run exercises beyond "one forward on the model's own inputs" (docs/protocol.md,
// "workload"; docs/workloads.md): training steps, autocast precision, a list of input shapes, and
// per-submodule backends for a mixed run. The request's `workload`, the worker's echo of it in a
// result, and a report's `settings.workload` are this record.
struct Workload {
    std::string mode = "inference"; // inference | training
    std::string precision = "fp32"; // fp32 | bf16 | fp16
    std::vector<InputSet> shapes;   // the shape list; empty: none
    // Submodule -> backend, in the order given. Non-empty only for the `mixed` backend.
    std::vector<std::pair<std::string, std::string>> assign;

    bool isDefault() const {
        return mode == "inference" && precision == "fp32" && shapes.empty() && assign.empty();
    }
    bool isTraining() const { return mode == "training"; }
    bool operator==(const Workload&) const = default;
};

// Where an imported report came from (docs/import.md): the importer's name and the file or folder.
struct ImportSource {
    std::string format; // torch_trace, kineto, ...
    std::string source;
    std::optional<int64_t> records; // torch_trace: the log's records
    bool operator==(const ImportSource&) const = default;
};

// A report's run-wide `settings` (docs/report-format.md): what every row was asked to do, as
// recorded. Members are absent in reports written before them; `unknown` keeps, as written, the
// members a newer FuseScope wrote that this build does not know, so saving again loses nothing.
struct RunSettings {
    std::optional<MeasureRecord> measure;
    std::optional<double> timeoutSeconds;
    std::string cache; // warm | cold; empty: not said
    // The compile options every row shares (mode, fullgraph, dynamic, inductor{...}): an open map
    // handed to torch.compile as it is (model/BackendEntry.h), so kept as JSON.
    nlohmann::json options = nlohmann::json::object();
    std::optional<Placement> placement;        // reports before --threads have none
    std::optional<Workload> workload;          // absent: the default workload
    std::optional<double> bisectBudgetSeconds; // only when --bisect was given
    std::optional<ImportSource> import;        // reports made by `fusescope-cli import`
    nlohmann::json unknown = nlohmann::json::object();
    bool operator==(const RunSettings&) const = default;
};

} // namespace fusescope
