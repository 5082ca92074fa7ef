"""Tracing overhead: the same process times untraced calls before and after the traced ones
(docs/measurement.md "Kernel traces"). Splitting the untraced calls around the traced block
keeps slow drift (CPU frequency, caches, other load) from reading as overhead."""
import statistics

from ..measure import timed_call


def measure(call, sync, iterations: int, traced_block) -> tuple[dict, object]:
    """`traced_block()` runs the traced iterations and returns (their times in ms, its result).
    Returns the overhead fields of the protocol's `trace` summary, and that result."""
    before = [timed_call(call, sync) for _ in range(iterations)]
    traced, result = traced_block()
    after = [timed_call(call, sync) for _ in range(iterations)]
    untraced_ms, traced_ms = statistics.median(before + after), statistics.median(traced)
    return {"untraced_ms": untraced_ms, "traced_ms": traced_ms,
            "overhead_ratio": traced_ms / untraced_ms if untraced_ms > 0 else None}, result
