#pragma once

#include <optional>
#include <span>
#include <utility>

namespace fusescope {

// Distribution-free confidence interval of a median from order statistics (docs/measurement.md,
// "Confidence intervals"). Of n samples sorted x(1) <= ... <= x(n), the interval is
// [x(k), x(n + 1 - k)] with k the largest rank for which P(B <= k - 1) <= (1 - level) / 2,
// B ~ Binomial(n, 1/2): the median lies below x(k) only when fewer than k samples fall below
// it. Its coverage is 1 - 2 P(B <= k - 1) >= level, for any continuous distribution.
// The worker's stopping rule (fusescope_worker/confidence.py) computes the same ranks the same
// way; tests/e2e/test_confidence.py checks that both agree on the same samples.
inline constexpr double kConfidenceLevel = 0.95;

// 1-based ranks (k, n + 1 - k), or nullopt when n is too small for any interval at this level
// (n < 6 at 95 %).
std::optional<std::pair<int, int>> medianCiRanks(int n, double level = kConfidenceLevel);

struct MedianInterval {
    double median = 0; // the sample median (mean of the two middle samples when n is even)
    double lo = 0;
    double hi = 0;
    int lowerRank = 0; // 1-based ranks of lo and hi among the sorted samples
    int upperRank = 0;

    // How far the interval reaches from the median, in percent of it: the larger of the two
    // sides, so "within +-2 %" means both ends are.
    double halfWidthPercent() const;
};

std::optional<MedianInterval> medianConfidenceInterval(std::span<const double> samples,
                                                       double level = kConfidenceLevel);

} // namespace fusescope
