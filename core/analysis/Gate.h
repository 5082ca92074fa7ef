#pragma once

#include "analysis/RunDiff.h"
#include "model/Report.h"
#include "model/Result.h"

#include <string>
#include <vector>

namespace fusescope {

// `fusescope-cli check NEW --baseline OLD` (docs/ci.md): whether a new report regressed against a
// baseline, beyond the thresholds *and* beyond the measured uncertainty, per backend and check.

struct GateThresholds {
    // A backend is slower only when the whole 95 % interval of its latency ratio new/baseline lies
    // above 1 + maxSlowdownPct / 100 and the two runs' quartile ranges are apart (the diff's
    // `slower` verdict): noise is never a regression, nor a change inside the threshold.
    double maxSlowdownPct = 5;
    // Compile time is one measurement per run (no samples, no interval): the threshold alone.
    double maxCompileGrowthPct = 25;
};

enum class CheckOutcome { Pass, Regression, Improvement, NotCompared };
const char* toString(CheckOutcome outcome);

// The checks, per backend, in this order: status (it still runs), latency, accuracy (its
// harness status), compile (time), graph_breaks, kernels (added/removed by provenance).
struct GateCheck {
    std::string scope;   // the sweep job's id when suites are compared, else empty
    std::string backend; // as the new report names it (the baseline's name when it is missing there)
    std::string check;   // status, latency, accuracy, compile, graph_breaks, kernels, job
    CheckOutcome outcome = CheckOutcome::Pass;
    std::string message; // one sentence with the numbers; names the backend
};

struct GateResult {
    std::vector<GateCheck> checks;
    // Warnings that the verdict rests on (machine_busy, drift, high_variance, baseline_drift on
    // either side, or an eager baseline that moved): each names the side and the backend.
    std::vector<std::string> warned;
    std::vector<std::string> notes; // what was not compared, and why

    int count(CheckOutcome outcome) const;
    bool passed() const { return count(CheckOutcome::Regression) == 0; }
};

GateResult gateReports(const Report& baseline, const Report& candidate, const GateThresholds& thresholds);

// Sweep folder against sweep folder, job by job (matched by job id): each job's reports gated as
// above, with the job as scope; a job of the baseline that is missing or failed in the new sweep is
// a regression. Errors: either folder unreadable (suite_not_found, suite_corrupt).
Result<GateResult> gateSweeps(const std::string& baselineDir, const std::string& candidateDir,
                              const GateThresholds& thresholds);

// Outputs (docs/ci.md): Markdown for a pull-request comment, JUnit XML for CI systems. Every
// string from a report is escaped (a report can be hostile: no markup of its own gets through).
struct GateLabels {
    std::string baseline; // how the outputs name each input (a file or folder path)
    std::string candidate;
};
std::string gateText(const GateResult& result, const GateThresholds& thresholds, const GateLabels& labels);
std::string gateMarkdown(const GateResult& result, const GateThresholds& thresholds,
                         const GateLabels& labels);
std::string gateJUnit(const GateResult& result, const GateThresholds& thresholds, const GateLabels& labels);

// Markdown's markup characters backslash-escaped, line breaks as spaces, then HTML-escaped
// (codec/Markup.h): a report's strings stay text in a pull-request comment. Exposed for tests.
std::string escapeMarkdown(const std::string& text);

} // namespace fusescope
