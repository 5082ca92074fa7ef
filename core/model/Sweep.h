#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fusescope {

// One job of a sweep (docs/sweeps.md): a model, the backends it compares and the axis values it
// was run with, and how it ended, as the sweep driver keeps it in DIR/sweep.json.
struct SuiteJob {
    std::string id;
    std::string model;
    std::vector<std::string> backends; // entries as --backends took them
    // The sweep spec's axes for this job ({"precision": "bf16", "threads": 2}): the spec's own
    // names and values, kept as JSON.
    nlohmann::json axes = nlohmann::json::object();
    std::string status = "pending"; // ok, partial, failed, interrupted, pending, running
    std::string report;             // path relative to the sweep folder
    std::string reason;             // why the job failed as a whole, when it did
    std::optional<double> seconds;
    std::string node;

    bool finished() const { return status == "ok" || status == "partial" || status == "failed"; }
    // "demo:mlp" or "demo:mlp [precision=bf16, threads=2]": one grid row.
    std::string label() const;
};

// "precision=bf16, threads=2".
std::string axesText(const nlohmann::json& axes);

// DIR/sweep.json: the sweep's name and its jobs.
struct SweepState {
    std::string name;
    std::vector<SuiteJob> jobs;
};

// One line of the sweep driver's event stream (its stdout; docs/sweeps.md "Progress").
struct SweepEvent {
    enum class Kind { Plan, Started, Finished, Done, Other };
    Kind kind = Kind::Other;
    std::string name;     // plan: the sweep's name
    std::string executor; // plan
    int jobs = 0;         // plan: all jobs; skipped already finished; toRun the rest
    int skipped = 0;
    int toRun = 0;
    SuiteJob job; // started, finished: the job as it stands (id, model, backends, axes, status ...)
    int done = 0; // finished: jobs finished so far, of total
    int total = 0;
    std::optional<int> exitCode; // done: the driver's exit code
};

} // namespace fusescope
