"""The stopping rule by confidence (docs/measurement.md, "Stopping rule"): the order-statistic
interval of the median on scripted samples, checked against exact binomial arithmetic, and the
timing loop driven by scripted call times."""
import math
import random
from fractions import Fraction

import pytest

from conftest import FAST_MEASURE, run_model
from fusescope_worker import confidence, measure
from fusescope_worker.confidence import ConfidenceRule


def exact_ranks(n: int, level: float = 0.95):
    """The same ranks from exact rationals: largest k with P(B <= k - 1) <= (1 - level) / 2."""
    tail = (1 - Fraction(level).limit_denominator(1000)) / 2
    cdf, k = Fraction(0), 0
    for i in range(n):
        cdf += Fraction(math.comb(n, i), 2 ** n)
        if cdf > tail:
            break
        k = i + 1
    return (k, n + 1 - k) if k else None


def test_ranks_match_exact_binomial_arithmetic():
    for n in list(range(0, 300)) + [499, 500, 1000, 2001]:
        assert confidence.median_ci_ranks(n) == exact_ranks(n), n


def test_ranks_cover_at_least_95_percent_and_are_the_tightest_that_do():
    for n in (6, 7, 10, 31, 100, 257):
        k, u = confidence.median_ci_ranks(n)
        assert u == n + 1 - k
        below = sum(Fraction(math.comb(n, i), 2 ** n) for i in range(k))  # P(B <= k - 1)
        assert 1 - 2 * below >= Fraction(95, 100)
        tighter = below + Fraction(math.comb(n, k), 2 ** n)  # with rank k + 1
        assert 1 - 2 * tighter < Fraction(95, 100)


def test_too_few_samples_have_no_interval():
    assert confidence.median_ci_ranks(5) is None
    assert confidence.median_ci([1.0, 2.0, 3.0, 4.0, 5.0]) is None
    assert confidence.half_width_pct([1.0] * 5) is None
    assert confidence.median_ci_ranks(6) == (1, 6)  # 1 - 2/64 = 96.9 % coverage


def test_interval_takes_the_order_statistics_at_the_ranks():
    samples = [float(x) for x in (9, 1, 8, 2, 7, 3, 6, 4, 5, 10)]  # n = 10: ranks 2 and 9
    median, lo, hi = confidence.median_ci(samples)
    assert (median, lo, hi) == (5.5, 2.0, 9.0)
    # The larger side, in percent of the median.
    assert confidence.half_width_pct(samples) == pytest.approx(100 * 3.5 / 5.5)


def test_rule_is_reached_on_tight_ratios_and_not_on_noisy_ones():
    tight, noisy = ConfidenceRule(2.0), ConfidenceRule(2.0)
    rng = random.Random(1)
    for _ in range(60):
        tight.add(2.0, 1.0 * (1 + rng.uniform(-0.01, 0.01)))
        noisy.add(2.0, 1.0 * (1 + rng.uniform(-0.4, 0.4)))
    assert tight.reached(60) and tight.last_half_width <= 2.0
    assert not noisy.reached(60) and noisy.last_half_width > 2.0
    # Off: never reached, never computed.
    off = ConfidenceRule(0)
    off.add(2.0, 1.0)
    assert not off.enabled and not off.reached(1000) and off.last_half_width is None


def test_rule_checks_only_every_few_pairs():
    rule = ConfidenceRule(50.0)
    for _ in range(5):
        rule.add(2.0, 1.0)
    assert not rule.reached(5)  # under 6 pairs: no interval yet
    rule.add(2.0, 1.0)
    assert rule.reached(6)
    assert rule.next_check == 11
    assert not rule.reached(7)  # before the next check point nothing is computed


class Scripted:
    """Stands in for timed_call: the eager and compiled times in turn, from a list of pairs."""

    def __init__(self, pairs):
        self.times = [t for pair in pairs for t in pair]
        self.i = 0

    def __call__(self, fn, sync):
        t = self.times[self.i % len(self.times)]
        self.i += 1
        return t


class Sink:
    def send(self, *args, **kwargs):
        pass


def loop(monkeypatch, pairs, **settings):
    monkeypatch.setattr(measure, "timed_call", Scripted(pairs))
    base = {"warmup": 0, "min_runs": 10, "min_time_s": 0.0, "max_runs": 400, "max_time_s": 60.0,
            "confidence_pct": 2.0}
    return measure.interleaved(lambda: None, lambda: None, {**base, **settings}, lambda: None, Sink(),
                               lambda f, m: None)


def test_loop_stops_once_the_target_is_reached(monkeypatch):
    rng = random.Random(2)
    pairs = [(2.0, 1.0 + rng.uniform(-0.005, 0.005)) for _ in range(400)]
    runs = loop(monkeypatch, pairs)
    assert runs["stopped_by"] == "confidence" and runs["confidence_pct"] == 2.0
    assert runs["compiled"] == 10  # the first check at or after min_runs already meets +-2 %
    outcome = measure.outcome(runs)
    assert ({k: outcome[k] for k in ("confidence_pct", "stopped_by")}
            == {"confidence_pct": 2.0, "stopped_by": "confidence"})
    assert set(outcome["faults_per_call"]) == {"eager", "compiled"}  # counted around each timed call
    assert all(v >= 0 for v in outcome["faults_per_call"].values())


def test_loop_runs_to_the_cap_when_the_target_is_not_met(monkeypatch):
    rng = random.Random(3)
    pairs = [(2.0, 1.0 + rng.uniform(-0.5, 0.5)) for _ in range(400)]
    runs = loop(monkeypatch, pairs, max_runs=150)
    assert runs["stopped_by"] == "max_runs" and runs["compiled"] == 150
    ratios = [e / c for e, c in pairs[:150]]
    assert confidence.half_width_pct(ratios) > 2.0  # what the C++ side will find: low_confidence


def test_minimums_come_first_and_off_stops_at_them(monkeypatch):
    pairs = [(2.0, 1.0)] * 10
    assert loop(monkeypatch, pairs, min_runs=40)["compiled"] == 40  # reached at 6, but min_runs 40
    off = loop(monkeypatch, pairs, min_runs=12, confidence_pct=0)
    assert off["stopped_by"] == "min" and off["compiled"] == 12


def test_settle_calls_come_right_before_each_timed_call_of_their_side():
    calls = []

    def timed(fn, sync):
        fn()
        calls[-1] = calls[-1].upper()  # the call timed_call made is the timed one
        return 1.0
    settings = {"warmup": 1, "min_runs": 3, "min_time_s": 0.0, "max_runs": 3, "max_time_s": 60.0,
                "confidence_pct": 0, "settle": 2}
    import unittest.mock
    with unittest.mock.patch.object(measure, "timed_call", timed):
        runs = measure.interleaved(lambda: calls.append("e"), lambda: calls.append("c"), settings, lambda: None,
                                   Sink(), lambda f, m: None)
    # warm-up e c, then per pair: two untimed eager calls, the timed eager, the same for compiled
    assert "".join(calls) == "ec" + "eeEccC" * 3
    assert runs["settle"] == 2 and measure.outcome(runs)["settle"] == 2
    calls.clear()
    with unittest.mock.patch.object(measure, "timed_call", timed):
        measure.interleaved(lambda: calls.append("e"), lambda: calls.append("c"), {**settings, "settle": 0},
                            lambda: None, Sink(), lambda f, m: None)
    assert "".join(calls) == "ec" + "EC" * 3  # settle 0: each timed call right after the other side's


def test_request_takes_and_checks_settle():
    from fusescope_worker import request
    base = {"type": "run", "id": "r", "model": "demo:mlp", "backend": "eager"}
    assert request.parse_run(base).measure["settle"] == 0  # absent (older clients): none
    assert request.parse_run({**base, "measure": {"settle": 3}}).measure["settle"] == 3
    for bad in (-1, 17, 1.5, "1", True):
        with pytest.raises(Exception, match="settle"):
            request.parse_run({**base, "measure": {"settle": bad}})


def test_request_takes_and_checks_confidence_pct():
    from fusescope_worker import request
    base = {"type": "run", "id": "r", "model": "demo:mlp", "backend": "eager"}
    assert request.parse_run(base).measure["confidence_pct"] == 0.0  # absent: off
    assert request.parse_run({**base, "measure": {"confidence_pct": 2}}).measure["confidence_pct"] == 2
    for bad in (-1, 101, "2", True):
        with pytest.raises(Exception, match="confidence_pct"):
            request.parse_run({**base, "measure": {"confidence_pct": bad}})


def test_a_worker_run_reports_its_measure_record():
    run = run_model("demo:mlp", "eager", measure={**FAST_MEASURE, "max_runs": 12, "confidence_pct": 0.001})
    result = run.one("result")
    assert result["measure"]["confidence_pct"] == 0.001
    # +-0.001 % is out of reach in 12 pairs: the cap stops the loop.
    assert result["measure"]["stopped_by"] in ("max_runs", "max_time"), result["measure"]
