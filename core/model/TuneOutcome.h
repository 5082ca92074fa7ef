#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fusescope {

// `fusescope-cli tune` (docs/tuning.md): what the tuner measured and what it concluded, report
// `tuning` and `tune --json`'s `tuning` object, the same record in both. Written by
// analysis/Tuner, read by the CLI, the summary and the GUI alike. Absent in reports of `compare`.

// A 95 % interval of a speedup, [low, high].
using SpeedupInterval = std::pair<double, double>;

// One setting the tuner considered: a `--backends` entry and where it came from.
struct TuneCandidate {
    std::string entry;  // as --backends takes it: inductor@max-autotune{freezing=true}
    std::string origin; // space | advice | assignment
    // A run status (ok, failed, unavailable, cancelled), or pending: never measured.
    std::string status = "pending";
    std::optional<double> speedup;              // over eager, the median of every round's paired ratios
    std::optional<SpeedupInterval> speedupCi95; // widened across processes (docs/tuning.md)
    std::optional<double> compileSeconds;       // the first, cold round's compile_s
    std::optional<int64_t> peakMemoryBytes;
    std::string accuracyStatus;         // as the harness names it (pass, fail_accuracy, ...); empty: none
    std::optional<std::string> dropped; // why the race left it, or nullopt while in it
    int rounds = 0;                     // worker processes that measured it
    std::string advice;                 // the rule that proposed it (origin advice), else empty
    bool operator==(const TuneCandidate&) const = default;
};

struct TuneBest {
    std::string entry;
    double speedup = 0;
    std::optional<SpeedupInterval> speedupCi95;
    std::string snippet; // the torch.compile call to paste (analysis/Tuner.h tuneSnippet)
    bool operator==(const TuneBest&) const = default;
};

// Whether one piece of advice, tried, helped: its entry against the row the advice was about.
struct AdviceOutcome {
    std::string entry; // the advice's try entry
    std::string rule;  // docs/advice.md's rule id
    std::string base;  // the row the advice was about
    // helped | hurt | no_difference, or empty when it was never measured (`reason` says why)
    std::string outcome;
    std::string reason; // the numbers behind the outcome, or why there is none
    bool operator==(const AdviceOutcome&) const = default;
};

struct TuneOutcome {
    double budgetSeconds = 0;
    double elapsedSeconds = 0;
    std::string goal = "latency"; // latency | throughput | memory | compile
    std::vector<TuneCandidate> candidates;
    std::optional<TuneBest> best;       // none when nothing measured passed accuracy
    std::vector<std::string> runnersUp; // entries the race could not separate from the best
    std::vector<std::string> pareto;    // entries on the latency x compile time x peak memory front
    std::vector<AdviceOutcome> adviceOutcomes;
    // separated | budget | max_rounds | exhausted | model_error | cancelled | running
    std::string stoppedBy = "running";
    std::string verdict;            // one or two sentences for people
    std::vector<std::string> notes; // what the space left out here and why, the cache used on revisits
    bool operator==(const TuneOutcome&) const = default;
};

} // namespace fusescope
