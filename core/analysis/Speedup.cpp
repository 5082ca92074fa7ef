#include "Speedup.h"

#include "LatencyStats.h"

#include <algorithm>

namespace fusescope {

std::optional<SpeedupEstimate> pairedSpeedup(const std::vector<double>& eagerMs,
                                             const std::vector<double>& compiledMs) {
    const size_t n = std::min(eagerMs.size(), compiledMs.size());
    std::vector<double> ratios;
    ratios.reserve(n);
    for (size_t i = 0; i < n; ++i)
        if (compiledMs[i] > 0 && eagerMs[i] > 0)
            ratios.push_back(eagerMs[i] / compiledMs[i]);
    if (ratios.empty())
        return std::nullopt;
    const auto stats = computeLatencyStats(ratios);
    return SpeedupEstimate{stats.median, stats.q1, stats.q3, stats.n, medianConfidenceInterval(ratios)};
}

std::optional<SpeedupEstimate> pairedSpeedup(const BackendRun& run) {
    if (run.status != RunStatus::Ok)
        return std::nullopt;
    return pairedSpeedup(run.eagerSamplesMs, run.compiledSamplesMs);
}

bool clearlyFaster(const SpeedupEstimate& a, const SpeedupEstimate& b) {
    return a.ci95 && b.ci95 && a.ci95->lo > b.ci95->hi;
}

} // namespace fusescope
