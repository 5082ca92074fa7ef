#include "Confidence.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace fusescope {

std::optional<std::pair<int, int>> medianCiRanks(int n, double level) {
    if (n <= 0 || !(level > 0 && level < 1))
        return std::nullopt;
    const double tail = (1.0 - level) / 2.0;
    // Binomial(n, 1/2) probabilities by the recurrence p(i + 1) = p(i) (n - i) / (i + 1), in logs
    // so large n does not underflow; the worker sums them in the same order.
    double logP = -static_cast<double>(n) * std::log(2.0);
    double cdf = 0;
    int k = 0;
    for (int i = 0; i < n; ++i) {
        cdf += std::exp(logP);
        if (cdf > tail)
            break;
        k = i + 1; // P(B <= k - 1) <= tail
        logP += std::log(static_cast<double>(n - i)) - std::log(static_cast<double>(i + 1));
    }
    if (k < 1)
        return std::nullopt;
    return std::make_pair(k, n + 1 - k);
}

double MedianInterval::halfWidthPercent() const {
    if (!(median > 0))
        return INFINITY;
    return 100.0 * std::max(median - lo, hi - median) / median;
}

std::optional<MedianInterval> medianConfidenceInterval(std::span<const double> samples, double level) {
    const auto ranks = medianCiRanks(static_cast<int>(samples.size()), level);
    if (!ranks)
        return std::nullopt;
    std::vector<double> sorted(samples.begin(), samples.end());
    std::sort(sorted.begin(), sorted.end());
    const size_t n = sorted.size();
    MedianInterval ci;
    ci.median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
    ci.lowerRank = ranks->first;
    ci.upperRank = ranks->second;
    ci.lo = sorted[ranks->first - 1];
    ci.hi = sorted[ranks->second - 1];
    return ci;
}

void ConfidenceRule::add(double eagerMs, double compiledMs) {
    if (eagerMs > 0 && compiledMs > 0)
        m_ratios.push_back(eagerMs / compiledMs);
}

bool ConfidenceRule::reached(int pairs) {
    if (!enabled() || pairs < m_nextCheck)
        return false;
    m_nextCheck = pairs + std::max(5, static_cast<int>(pairs * 0.05));
    const auto ci = medianConfidenceInterval(m_ratios);
    m_lastHalfWidth.reset();
    if (ci)
        m_lastHalfWidth = ci->halfWidthPercent();
    return m_lastHalfWidth && *m_lastHalfWidth <= m_targetPct;
}

} // namespace fusescope
