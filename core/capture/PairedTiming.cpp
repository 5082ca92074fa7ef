#include "PairedTiming.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sys/resource.h>
#include <utility>

namespace fusescope {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

int64_t minorFaults() {
    rusage usage{};
    return ::getrusage(RUSAGE_SELF, &usage) == 0 ? static_cast<int64_t>(usage.ru_minflt) : 0;
}

// A series buffered and sent in chunks of 50 (the protocol's limit per samples message).
class Series {
public:
    Series(std::string name, const PairedCalls& calls)
        : m_name(std::move(name))
        , m_calls(calls) {}
    void add(double ms) {
        m_pending.push_back(ms);
        if (m_pending.size() >= 50)
            flush();
    }
    void flush() {
        if (!m_pending.empty())
            m_calls.onSamples(m_name, std::exchange(m_pending, {}));
    }

private:
    std::string m_name;
    const PairedCalls& m_calls;
    std::vector<double> m_pending;
};

} // namespace

std::string stopReason(int runs, double elapsed, const MeasureSettings& settings, ConfidenceRule& rule) {
    if (runs >= std::max(settings.maxRuns, 1))
        return "max_runs";
    if (elapsed >= settings.maxTimeSeconds)
        return "max_time";
    if (runs < settings.minRuns || elapsed < settings.minTimeSeconds)
        return "";
    if (!rule.enabled())
        return "min";
    return rule.reached(runs) ? "confidence" : "";
}

PairedTimingResult timePairs(const MeasureSettings& settings, const PairedCalls& calls) {
    PairedTimingResult out;
    out.warmup = std::max(settings.warmup, 0);
    const int settle = std::clamp(settings.settle, 0, MeasureSettings::kMaxSettle);
    for (int i = 0; i < out.warmup && !calls.cancelled(); ++i) {
        calls.eager(1, false);
        calls.compiled();
    }
    Series eager("eager", calls), compiled("compiled", calls);
    ConfidenceRule rule(settings.confidencePct);
    int64_t eagerFaults = 0, compiledFaults = 0;
    bool eagerFaultsKnown = true;
    double reported = 0;
    const MachineSnapshot before = calls.snapshot();
    const auto start = Clock::now();
    while (true) {
        if (calls.cancelled()) {
            out.stoppedBy = "cancelled";
            break;
        }
        const EagerSample e = calls.eager(settle, true);
        for (int i = 0; i < settle; ++i)
            calls.compiled();
        const int64_t faultsBefore = minorFaults();
        const auto callStart = Clock::now();
        calls.compiled();
        const double compiledMs = secondsSince(callStart) * 1000.0;
        compiledFaults += minorFaults() - faultsBefore;
        const double eagerMs = e.ms.value_or(0.0);
        if (e.faults)
            eagerFaults += *e.faults;
        else
            eagerFaultsKnown = false;
        eager.add(eagerMs);
        compiled.add(compiledMs);
        rule.add(eagerMs, compiledMs);
        ++out.pairs;
        const double elapsed = secondsSince(start);
        out.stoppedBy = stopReason(out.pairs, elapsed, settings, rule);
        if (!out.stoppedBy.empty())
            break;
        // Progress as measure.py reports it: against the minimums first, then against the caps.
        const int minRuns = std::max(settings.minRuns, 1), maxRuns = std::max(settings.maxRuns, 1);
        const double byMin = std::min(static_cast<double>(out.pairs) / minRuns,
                                      settings.minTimeSeconds > 0 ? elapsed / settings.minTimeSeconds : 1.0);
        const double byCap = std::max(static_cast<double>(out.pairs) / maxRuns,
                                      settings.maxTimeSeconds > 0 ? elapsed / settings.maxTimeSeconds : 0.0);
        const bool pastMinimums = out.pairs >= settings.minRuns && elapsed >= settings.minTimeSeconds;
        const double done = rule.enabled() && pastMinimums ? byCap : std::max(byMin, byCap);
        if (done - reported >= 0.1) {
            reported = done;
            char line[160];
            std::snprintf(line, sizeof line, "%d runs per series in %.1f s", out.pairs, elapsed);
            std::string message = line;
            if (rule.lastHalfWidth()) {
                std::snprintf(line, sizeof line, ", speedup known to +-%.1f %% (target %g %%)",
                              *rule.lastHalfWidth(), rule.targetPct());
                message += line;
            }
            calls.onProgress(std::min(done, 1.0), message);
        }
    }
    out.elapsedSeconds = secondsSince(start);
    eager.flush();
    compiled.flush();
    out.machineWarnings = assessWindow(before, calls.snapshot(), ownAffinity(), calls.window);
    out.lastHalfWidth = rule.lastHalfWidth();
    out.measure.confidencePct = rule.targetPct();
    out.measure.stoppedBy = out.stoppedBy;
    out.measure.settle = settle;
    if (out.pairs > 0) {
        out.measure.compiledFaultsPerCall = static_cast<double>(compiledFaults) / out.pairs;
        if (eagerFaultsKnown)
            out.measure.eagerFaultsPerCall = static_cast<double>(eagerFaults) / out.pairs;
    }
    return out;
}

} // namespace fusescope
