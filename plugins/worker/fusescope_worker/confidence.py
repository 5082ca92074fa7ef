"""The stopping rule's confidence interval (docs/measurement.md, "Stopping rule").

Distribution-free 95 % confidence interval of a median from order statistics: of n sorted
samples the interval is [x(k), x(n + 1 - k)] (1-based ranks), k the largest rank with
P(B <= k - 1) <= 0.025 for B ~ Binomial(n, 1/2). The C++ side computes the interval it shows
with the same ranks, summed the same way (core/analysis/Confidence.cpp); tests/e2e/test_confidence.py
checks that both agree on the same samples. This copy only decides when to stop timing.
"""
import math

LEVEL = 0.95


def median_ci_ranks(n: int, level: float = LEVEL) -> tuple[int, int] | None:
    """1-based ranks (k, n + 1 - k) of the interval's ends, or None when n is too small (n < 6 at 95 %)."""
    if n <= 0 or not 0 < level < 1:
        return None
    tail = (1.0 - level) / 2.0
    # Binomial(n, 1/2) probabilities by p(i + 1) = p(i) (n - i) / (i + 1), in logs, in the same
    # order as Confidence.cpp.
    log_p = -float(n) * math.log(2.0)
    cdf = 0.0
    k = 0
    for i in range(n):
        cdf += math.exp(log_p)
        if cdf > tail:
            break
        k = i + 1
        log_p += math.log(float(n - i)) - math.log(float(i + 1))
    if k < 1:
        return None
    return k, n + 1 - k


def median_ci(samples: list, level: float = LEVEL) -> tuple[float, float, float] | None:
    """(median, lo, hi) of `samples`, or None under 6 samples."""
    ranks = median_ci_ranks(len(samples), level)
    if ranks is None:
        return None
    s = sorted(samples)
    n = len(s)
    median = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0
    return median, s[ranks[0] - 1], s[ranks[1] - 1]


def half_width_pct(samples: list, level: float = LEVEL) -> float | None:
    """How far the interval reaches from the median, in percent of it (the larger side)."""
    ci = median_ci(samples, level)
    if ci is None:
        return None
    median, lo, hi = ci
    if not median > 0:
        return math.inf
    return 100.0 * max(median - lo, hi - median) / median


class ConfidenceRule:
    """Decides, every few pairs, whether the paired ratios eager/compiled are known to +-target %.
    Checks at geometrically spaced pair counts (every 5 pairs, then every 5 % more), so the
    sort and the rank sum stay a small share of the loop however long it runs."""

    def __init__(self, target_pct: float):
        self.target_pct = float(target_pct or 0.0)
        self.ratios: list[float] = []
        self.next_check = 6
        self.last_half_width: float | None = None

    @property
    def enabled(self) -> bool:
        return self.target_pct > 0

    def add(self, eager_ms: float, compiled_ms: float) -> None:
        if eager_ms > 0 and compiled_ms > 0:  # as pairedSpeedup in core/analysis/Speedup.cpp
            self.ratios.append(eager_ms / compiled_ms)

    def reached(self, pairs: int) -> bool:
        """True when the target is met; checked at `pairs` >= the next check point only."""
        if not self.enabled or pairs < self.next_check:
            return False
        self.next_check = pairs + max(5, int(pairs * 0.05))
        self.last_half_width = half_width_pct(self.ratios)
        return self.last_half_width is not None and self.last_half_width <= self.target_pct
