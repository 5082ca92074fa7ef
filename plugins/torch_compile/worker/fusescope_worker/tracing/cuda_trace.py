"""Kernel traces on CUDA with FuseScope's CUPTI tracer (docs/cupti-tracer.md).

Same shape as the CPU path (profiler.py): untraced and traced calls in the same run give the
overhead; the chunks stream while the traced iterations run.
"""
import statistics

from ..measure import timed_call
from . import cupti

SOURCE = "cupti"


def available() -> tuple[bool, str]:
    return cupti.cupti_availability()


def record(call, sync, channel, iterations: int = 3) -> dict:
    untraced = [timed_call(call, sync) for _ in range(iterations)]
    traced = []
    with cupti.CuptiTrace(channel.send) as tracer:
        for i in range(iterations):
            sync()
            tracer.begin_iteration(i)
            traced.append(timed_call(call, sync))
    untraced_ms, traced_ms = statistics.median(untraced), statistics.median(traced)
    return {"source": SOURCE, "iterations": iterations, "chunks": tracer.chunks, "dropped": tracer.dropped,
            "untraced_ms": untraced_ms, "traced_ms": traced_ms,
            "overhead_ratio": traced_ms / untraced_ms if untraced_ms > 0 else None}
