#pragma once

#include "Confidence.h"
#include "model/BackendRun.h"

#include <optional>
#include <vector>

namespace fusescope {

// Speedup over eager with its spread (docs/workloads.md, "Recommendation"). The worker times
// eager and compiled calls alternately in one process, so sample k of each series are neighbours
// in time: the ratio eager[k] / compiled[k] cancels slow drift, and the interquartile range of
// those per-iteration ratios is their spread. How sure the median is: the 95 % order-statistic
// confidence interval of the median ratio (Confidence.h), what a difference must clear before we
// call it a win.
struct SpeedupEstimate {
    double median = 0;
    double q1 = 0; // lower quartile of the per-iteration ratios
    double q3 = 0;
    int pairs = 0;
    std::optional<MedianInterval> ci95; // nullopt under 6 pairs

    double relativeSpread() const { return median > 0 ? (q3 - q1) / median : 0; }
};

std::optional<SpeedupEstimate> pairedSpeedup(const std::vector<double>& eagerMs,
                                             const std::vector<double>& compiledMs);
// Of an ok run; nullopt when it has no samples.
std::optional<SpeedupEstimate> pairedSpeedup(const BackendRun& run);

// `a` is faster than `b` beyond the measurement's uncertainty: their 95 % confidence intervals
// do not overlap (a's lower end above b's upper end). Without an interval (fewer than 6 pairs)
// nothing is clearly faster.
bool clearlyFaster(const SpeedupEstimate& a, const SpeedupEstimate& b);

} // namespace fusescope
