#pragma once

#include "analysis/Confidence.h"
#include "capture/MachineCheck.h"
#include "model/BackendRun.h"
#include "model/RunRequest.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fusescope {

// Interleaved eager/compiled timing for a backend whose compiled model runs on this side of the
// process boundary (the LibTorch runner, docs/libtorch.md "Interleaved timing"), with the worker's
// protocol (docs/measurement.md, "Latency"): warm-up pairs, then pairs of { settle untimed eager
// calls, one timed eager call; settle untimed compiled calls, one timed compiled call } until the
// stopping rule says stop. Eager runs elsewhere (the export worker, which times its own call), so
// it is a callback that makes the calls and returns what it measured.
struct EagerSample {
    std::optional<double> ms;      // the timed call, milliseconds; nullopt for untimed-only requests
    std::optional<int64_t> faults; // minor page faults of the timed call, when the other side counts them
};

struct PairedCalls {
    // `untimed` untimed eager calls, then one timed call when `timed`. Throws on failure.
    std::function<EagerSample(int untimed, bool timed)> eager;
    // One compiled call (timed here with steady_clock). Throws on failure.
    std::function<void()> compiled;
    std::function<bool()> cancelled = [] { return false; };
    // Chunks of at most 50 samples (ms) of series "eager" or "compiled", as they are taken.
    std::function<void(const std::string& series, std::vector<double> ms)> onSamples =
        [](const std::string&, std::vector<double>) {};
    // Fraction 0..1 of the loop's expected length, and a line for the progress bar.
    std::function<void(double fraction, const std::string& message)> onProgress = [](double,
                                                                                     const std::string&) {};
    // The machine check's snapshots (readMachineSnapshot); processes whose CPU time is ours go in.
    std::function<MachineSnapshot()> snapshot = [] { return readMachineSnapshot(); };
    std::string window = "while samples were taken"; // names the window in machine warnings
};

struct PairedTimingResult {
    int pairs = 0;
    int warmup = 0;
    double elapsedSeconds = 0;
    std::string stoppedBy; // confidence | min | max_runs | max_time | cancelled
    RunMeasure measure;    // the result's `measure` record (confidence_pct, stopped_by, settle, faults)
    std::vector<RunWarning> machineWarnings; // machine_busy / cpu_steal of the timing window
    std::optional<double> lastHalfWidth;     // of the speedup's interval, percent, at the last check
};

// Why a loop stops after `runs` pairs and `elapsed` seconds, or "" to go on: the caps win; then
// both minimums must be met; then the confidence target, when the rule has one (measure.py
// stop_reason).
std::string stopReason(int runs, double elapsed, const MeasureSettings& settings, ConfidenceRule& rule);

// Runs the loop; exceptions of the callbacks propagate (the samples sent so far stay sent).
PairedTimingResult timePairs(const MeasureSettings& settings, const PairedCalls& calls);

} // namespace fusescope
