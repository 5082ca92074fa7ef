#pragma once

#include "model/BackendRun.h"
#include "model/Report.h"

#include <optional>
#include <string>
#include <vector>

namespace fusescope {

// high_variance: a series whose IQR passes this share of its median (torch.utils.benchmark's
// threshold for its own warning). Series of fewer than kHighVarianceMinSamples are not judged.
inline constexpr double kHighVarianceIqrFraction = 0.10;
inline constexpr int kHighVarianceMinSamples = 4;
// page_faults: more minor page faults per timed call than this, on either side, in a worker
// whose allocator was not the steady policy (docs/measurement.md "The allocator").
inline constexpr double kPageFaultsPerCall = 100;
// short_calls: a median call under kShortCallMs on either side, measured with fewer than
// kShortCallSettle settle calls. The first call after the other side ran cost 8-12 % on a
// 0.11 ms compiled MLP at settle 1 (docs/measurement.md, "Re-run on a second VM").
inline constexpr double kShortCallMs = 0.25;
inline constexpr int kShortCallSettle = 4;

// drift: one series' calls took a different time at the end of the timing than at its start: the
// median of its last quarter against its first differs by more than kDriftFraction, on series of
// at least kDriftMinSamples. The machine's speed moved under the run (a shared VM's host, another
// tenant, frequency): the paired speedup cancels what hits both calls of a pair alike, absolute
// times do not reproduce (docs/measurement.md, "Drift").
inline constexpr double kDriftFraction = 0.10;
inline constexpr int kDriftMinSamples = 16;

// baseline_drift (run-wide): the eager baselines of comparable rows (same workload echo and
// placement) differ by more than kDriftFraction between their medians: the machine's speed moved
// between backends, each row's milliseconds were taken at a different speed. Each row's speedup
// is against the eager calls timed beside it, so speedups still compare.

// Warnings derived from a run's own samples: high_variance, drift, page_faults (kPageFaultsPerCall),
// short_calls (kShortCallMs, kShortCallSettle) and low_confidence when the worker
// was asked for a confidence target (RunMeasure::confidencePct) and the speedup's 95 % interval
// computed from the samples is wider, i.e. a cap stopped the timing first (docs/measurement.md, "Warnings").
// Never stored in a report: computed from the samples each time, so the report cannot disagree with itself.
std::vector<RunWarning> derivedWarnings(const BackendRun& run);

// How sure a run's speedup is against its target (docs/measurement.md, "Stopping rule").
struct ConfidenceOutcome {
    double targetPct = 0;               // 0: the rule was off
    std::optional<double> halfWidthPct; // of the speedup's 95 % CI; nullopt under 6 pairs
    bool reached = false;               // halfWidthPct <= targetPct (false when the rule was off)
    std::string stoppedBy;              // as the worker said
};
// nullopt for a run without a `measure` record (older reports, the LibTorch family).
std::optional<ConfidenceOutcome> confidenceOutcome(const BackendRun& run);

// One line for the CLI's confidence section and the GUI's details: "speedup 1.82x [1.79x-1.85x]
// +-1.6 %; compiled 0.412 ms [0.409-0.418]; target +-2.0 % reached (stopped by confidence)".
// Empty when the run has no paired samples.
std::string confidenceText(const BackendRun& run);

// What to show next to a run: the worker's stored warnings, then the derived ones.
std::vector<RunWarning> runWarnings(const BackendRun& run);

// Run-wide warnings derived from the rows together (baseline_drift); never stored.
std::vector<RunWarning> derivedReportWarnings(const Report& report);
// What to show for the whole run: the stored ones (the machine check before the first backend),
// then the derived ones.
std::vector<RunWarning> reportWarnings(const Report& report);

// Whether the worker saw other processes keep a core busy while this run's samples were taken.
bool sampledOnBusyMachine(const BackendRun& run);

} // namespace fusescope
