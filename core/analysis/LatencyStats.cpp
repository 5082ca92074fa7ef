#include "LatencyStats.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace fusescope {

namespace {

double percentileSorted(const std::vector<double>& sorted, double p) {
    const double pos = p * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<size_t>(pos);
    const size_t hi = std::min(lo + 1, sorted.size() - 1);
    const double frac = pos - static_cast<double>(lo);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

} // namespace

LatencyStats computeLatencyStats(std::span<const double> samplesMs) {
    LatencyStats s;
    if (samplesMs.empty())
        return s;
    std::vector<double> sorted(samplesMs.begin(), samplesMs.end());
    std::sort(sorted.begin(), sorted.end());
    s.n = static_cast<int>(sorted.size());
    s.min = sorted.front();
    s.max = sorted.back();
    s.median = percentileSorted(sorted, 0.5);
    s.q1 = percentileSorted(sorted, 0.25);
    s.q3 = percentileSorted(sorted, 0.75);
    s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / s.n;
    return s;
}

} // namespace fusescope
