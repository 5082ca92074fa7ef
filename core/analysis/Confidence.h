#pragma once

#include <optional>
#include <span>
#include <utility>
#include <vector>

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

// The stopping rule's confidence target (docs/measurement.md, "Stopping rule") for timing loops
// on this side (the LibTorch runner's pairs, core/capture/PairedTiming.h), the same rule as the
// worker's fusescope_worker/confidence.py ConfidenceRule: the paired ratios eager/compiled are
// checked at 6 pairs, then every 5 pairs or 5 % more, whichever is more, and the target is
// reached when the 95 % interval of their median is within +-targetPct % of it.
class ConfidenceRule {
public:
    explicit ConfidenceRule(double targetPct)
        : m_targetPct(targetPct > 0 ? targetPct : 0) {}

    bool enabled() const { return m_targetPct > 0; }
    double targetPct() const { return m_targetPct; }
    // A pair where either side is not > 0 is left out, as pairedSpeedup leaves it out.
    void add(double eagerMs, double compiledMs);
    // True when the target is met; computed only when `pairs` reached the next check point.
    bool reached(int pairs);
    // The half-width (percent) found at the last check, or nullopt before one (or under 6 ratios).
    std::optional<double> lastHalfWidth() const { return m_lastHalfWidth; }

private:
    double m_targetPct = 0;
    std::vector<double> m_ratios;
    int m_nextCheck = 6;
    std::optional<double> m_lastHalfWidth;
};

} // namespace fusescope
