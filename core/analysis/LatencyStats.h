#pragma once

#include <span>

namespace fusescope {

// Robust summary of per-iteration latencies (docs/measurement.md).
struct LatencyStats {
    int n = 0;
    double median = 0;
    double q1 = 0;
    double q3 = 0;
    double min = 0;
    double max = 0;
    double mean = 0;

    double iqr() const { return q3 - q1; }
    bool empty() const { return n == 0; }
};

// Quartiles by linear interpolation between order statistics (NumPy's default "linear" method),
// so a small sample gives the same numbers as numpy.percentile on the same data.
LatencyStats computeLatencyStats(std::span<const double> samplesMs);

} // namespace fusescope
