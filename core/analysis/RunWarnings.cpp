#include "RunWarnings.h"

#include "Format.h"
#include "LatencyStats.h"
#include "Speedup.h"
#include "codec/SettingsCodec.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

namespace fusescope {

namespace {

std::optional<RunWarning> highVariance(const std::vector<double>& samplesMs, const std::string& series) {
    if (static_cast<int>(samplesMs.size()) < kHighVarianceMinSamples)
        return std::nullopt;
    const auto stats = computeLatencyStats(samplesMs);
    if (!(stats.median > 0) || !(stats.iqr() > kHighVarianceIqrFraction * stats.median))
        return std::nullopt;
    const int percent = static_cast<int>(std::lround(100.0 * stats.iqr() / stats.median));
    return RunWarning{"high_variance", series + " samples vary: IQR " + format::milliseconds(stats.iqr()) +
                                           " ms is " + std::to_string(percent) + " % of the " +
                                           format::milliseconds(stats.median) +
                                           " ms median (over 10 %); small differences are within the noise "
                                           "(docs/measurement.md)"};
}

// The median of the first and of the last quarter of a series, in the order the samples were
// taken; nullopt under kDriftMinSamples or without a positive median.
struct QuarterMedians {
    double first = 0;
    double last = 0;
    double change() const { return last / first - 1.0; }
};
std::optional<QuarterMedians> quarterMedians(const std::vector<double>& samplesMs) {
    if (static_cast<int>(samplesMs.size()) < kDriftMinSamples)
        return std::nullopt;
    const size_t quarter = samplesMs.size() / 4;
    const std::vector<double> head(samplesMs.begin(),
                                   samplesMs.begin() + static_cast<std::ptrdiff_t>(quarter));
    const std::vector<double> tail(samplesMs.end() - static_cast<std::ptrdiff_t>(quarter), samplesMs.end());
    QuarterMedians q{computeLatencyStats(head).median, computeLatencyStats(tail).median};
    if (!(q.first > 0) || !(q.last > 0) || !std::isfinite(q.change()))
        return std::nullopt;
    return q;
}

std::optional<RunWarning> drift(const BackendRun& run) {
    std::optional<std::pair<std::string, QuarterMedians>> worst;
    for (const auto& [series, samples] :
         {std::pair<std::string, const std::vector<double>*>{"eager", &run.eagerSamplesMs},
          {"compiled", &run.compiledSamplesMs}}) {
        const auto q = quarterMedians(*samples);
        if (q && std::abs(q->change()) > kDriftFraction &&
            (!worst || std::abs(q->change()) > std::abs(worst->second.change())))
            worst = std::make_pair(series, *q);
    }
    if (!worst)
        return std::nullopt;
    const auto& [series, q] = *worst;
    const long percent = std::lround(100.0 * q.change());
    return RunWarning{
        "drift", series + " calls took " + format::milliseconds(q.first) +
                     " ms (median) in the first quarter of the timing and " + format::milliseconds(q.last) +
                     " ms in the last (" + (percent > 0 ? "+" : "") + std::to_string(percent) +
                     " %): the machine's speed changed while samples were taken. The paired "
                     "speedup cancels what slows both calls of a pair alike; the milliseconds of "
                     "this run will not reproduce (docs/measurement.md, \"Drift\")"};
}

std::string percentText(double value) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", value);
    return buf;
}

std::optional<RunWarning> lowConfidence(const BackendRun& run) {
    const auto outcome = confidenceOutcome(run);
    if (!outcome || outcome->targetPct <= 0 || outcome->reached || run.status != RunStatus::Ok)
        return std::nullopt;
    const auto speedup = pairedSpeedup(run);
    if (!speedup)
        return std::nullopt;
    const std::string cap = outcome->stoppedBy == "max_runs"   ? "the max_runs cap (--max-runs)"
                            : outcome->stoppedBy == "max_time" ? "the max_time_s cap (--max-time)"
                                                               : "the timing loop";
    const std::string reached = outcome->halfWidthPct ? "is +-" + percentText(*outcome->halfWidthPct) + " %"
                                                      : "cannot be computed (fewer than 6 pairs)";
    return RunWarning{"low_confidence", "the speedup's 95 % confidence interval " + reached + " after " +
                                            std::to_string(speedup->pairs) + " pairs, wider than the +-" +
                                            percentText(outcome->targetPct) + " % asked for: " + cap +
                                            " stopped first; measure longer or on a quieter machine "
                                            "(docs/measurement.md)"};
}

// Fresh pages faulted in on every call, under an allocator policy that lets glibc's thresholds
// move with the process's history: the numbers depend on what the process did before.
std::optional<RunWarning> pageFaults(const BackendRun& run) {
    if (!run.measure || !run.placement || run.placement->malloc == "steady")
        return std::nullopt;
    const double eager = run.measure->eagerFaultsPerCall.value_or(0);
    const double compiled = run.measure->compiledFaultsPerCall.value_or(0);
    if (!(std::max(eager, compiled) > kPageFaultsPerCall))
        return std::nullopt;
    return RunWarning{"page_faults",
                      "each timed call took page faults (" + std::to_string(std::lround(eager)) +
                          " per eager call, " + std::to_string(std::lround(compiled)) +
                          " per compiled call) under malloc " +
                          (run.placement->malloc.empty() ? std::string("(unknown)") : run.placement->malloc) +
                          ": the times include the kernel supplying fresh pages, which depends on what the "
                          "process allocated before; --malloc steady avoids it (docs/measurement.md)"};
}

// Calls so short that switching sides costs a visible share of each timed call, with too few
// settle calls to hide it: the interleaved medians read high against blocks of one function.
std::optional<RunWarning> shortCalls(const BackendRun& run) {
    if (!run.measure || run.status != RunStatus::Ok)
        return std::nullopt;
    const int settle = run.measure->settle.value_or(0);
    if (settle >= kShortCallSettle)
        return std::nullopt;
    std::optional<double> shortest;
    for (const auto* samples : {&run.eagerSamplesMs, &run.compiledSamplesMs}) {
        if (static_cast<int>(samples->size()) < kHighVarianceMinSamples)
            continue;
        const double median = computeLatencyStats(*samples).median;
        if (median > 0 && (!shortest || median < *shortest))
            shortest = median;
    }
    if (!shortest || !(*shortest < kShortCallMs))
        return std::nullopt;
    return RunWarning{
        "short_calls",
        "calls of " + format::milliseconds(*shortest) + " ms measured with settle " + std::to_string(settle) +
            ": on calls this short the first call after the other side ran reads "
            "up to 12 % slow; settle " +
            std::to_string(kShortCallSettle) +
            " or more narrows it (--settle, Options > Settle calls; docs/measurement.md, \"Settle calls\")"};
}

} // namespace

std::optional<ConfidenceOutcome> confidenceOutcome(const BackendRun& run) {
    if (!run.measure)
        return std::nullopt;
    ConfidenceOutcome out;
    out.targetPct = run.measure->confidencePct;
    out.stoppedBy = run.measure->stoppedBy;
    if (const auto s = pairedSpeedup(run); s && s->ci95)
        out.halfWidthPct = s->ci95->halfWidthPercent();
    out.reached = out.targetPct > 0 && out.halfWidthPct && *out.halfWidthPct <= out.targetPct;
    return out;
}

std::string confidenceText(const BackendRun& run) {
    const auto speedup = pairedSpeedup(run);
    if (!speedup)
        return {};
    std::string text = "speedup " + format::ratio(speedup->median);
    if (speedup->ci95)
        text += " [" + format::ratio(speedup->ci95->lo) + "-" + format::ratio(speedup->ci95->hi) + "] +-" +
                percentText(speedup->ci95->halfWidthPercent()) + " %";
    else
        text += " (no interval under 6 pairs)";
    if (const auto latency = medianConfidenceInterval(run.compiledSamplesMs))
        text += "; compiled " + format::milliseconds(latency->median) + " ms [" +
                format::milliseconds(latency->lo) + "-" + format::milliseconds(latency->hi) + "]";
    if (const auto c = confidenceOutcome(run); c && c->targetPct > 0)
        text += "; target +-" + percentText(c->targetPct) + " %" +
                (c->reached ? " reached" : " NOT reached") +
                (c->stoppedBy.empty() ? std::string() : " (stopped by " + c->stoppedBy + ")");
    if (run.measure && (run.measure->eagerFaultsPerCall || run.measure->compiledFaultsPerCall)) {
        char faults[96];
        std::snprintf(faults, sizeof faults, "; page faults per call: eager %.0f, compiled %.0f",
                      run.measure->eagerFaultsPerCall.value_or(0),
                      run.measure->compiledFaultsPerCall.value_or(0));
        text += faults;
    }
    return text;
}

std::vector<RunWarning> derivedWarnings(const BackendRun& run) {
    std::vector<RunWarning> out;
    if (auto w = highVariance(run.compiledSamplesMs, "compiled"))
        out.push_back(std::move(*w));
    if (auto w = highVariance(run.eagerSamplesMs, "eager"))
        out.push_back(std::move(*w));
    if (auto w = drift(run))
        out.push_back(std::move(*w));
    if (auto w = lowConfidence(run))
        out.push_back(std::move(*w));
    if (auto w = shortCalls(run))
        out.push_back(std::move(*w));
    if (auto w = pageFaults(run))
        out.push_back(std::move(*w));
    return out;
}

namespace {
std::vector<RunWarning> storedThenDerived(std::vector<RunWarning> stored, std::vector<RunWarning> derived) {
    stored.insert(stored.end(), std::make_move_iterator(derived.begin()),
                  std::make_move_iterator(derived.end()));
    return stored;
}
} // namespace

std::vector<RunWarning> runWarnings(const BackendRun& run) {
    return storedThenDerived(run.warnings, derivedWarnings(run));
}

std::vector<RunWarning> derivedReportWarnings(const Report& report) {
    // Rows whose eager calls are the same work: the same workload echo and placement.
    struct Baseline {
        std::string name;
        double medianMs = 0;
    };
    std::map<std::string, std::vector<Baseline>> groups;
    for (const auto& run : report.backends) {
        if (run.status != RunStatus::Ok ||
            static_cast<int>(run.eagerSamplesMs.size()) < kHighVarianceMinSamples)
            continue;
        const double median = computeLatencyStats(run.eagerSamplesMs).median;
        if (!(median > 0) || !std::isfinite(median))
            continue;
        nlohmann::json key = {{"workload", run.workload ? nlohmann::json(*run.workload) : nlohmann::json()}};
        if (run.placement)
            key["placement"] = {run.placement->threads, run.placement->pin, run.placement->malloc};
        groups[key.dump()].push_back({run.name, median});
    }
    std::vector<RunWarning> out;
    for (const auto& [key, rows] : groups) {
        if (rows.size() < 2)
            continue;
        const auto [low, high] =
            std::minmax_element(rows.begin(), rows.end(),
                                [](const Baseline& a, const Baseline& b) { return a.medianMs < b.medianMs; });
        const double change = high->medianMs / low->medianMs - 1.0;
        if (!(change > kDriftFraction))
            continue;
        out.push_back(RunWarning{
            "baseline_drift",
            "the same eager calls took " + format::milliseconds(low->medianMs) + " ms (median) beside " +
                low->name + " and " + format::milliseconds(high->medianMs) + " ms beside " + high->name +
                " (+" + std::to_string(std::lround(100.0 * change)) +
                " %): the machine's speed changed between backends (or a backend's process runs eager "
                "differently). Compare them by speedup, each against the eager calls timed beside it, not by "
                "their milliseconds (docs/measurement.md, \"Drift\")"});
    }
    return out;
}

std::vector<RunWarning> reportWarnings(const Report& report) {
    return storedThenDerived(report.warnings, derivedReportWarnings(report));
}

bool sampledOnBusyMachine(const BackendRun& run) {
    return std::any_of(run.warnings.begin(), run.warnings.end(),
                       [](const RunWarning& w) { return w.code == "machine_busy"; });
}

} // namespace fusescope
