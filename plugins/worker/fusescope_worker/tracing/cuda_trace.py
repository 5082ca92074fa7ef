"""Kernel traces on CUDA with FuseScope's CUPTI tracer (docs/cupti-tracer.md).

Same shape as the CPU path (profiler.py): untraced and traced calls in the same run give the
overhead; the chunks stream while the traced iterations run.
"""
from ..measure import timed_call
from . import cupti, overhead

SOURCE = "cupti"


def available() -> tuple[bool, str]:
    return cupti.cupti_availability()


def record(call, sync, channel, iterations: int = 3) -> dict:
    def traced_block():
        times = []
        with cupti.CuptiTrace(channel.send) as tracer:
            for i in range(iterations):
                sync()
                tracer.begin_iteration(i)
                times.append(timed_call(call, sync))
        return times, tracer

    timing, tracer = overhead.measure(call, sync, iterations, traced_block)
    return {"source": SOURCE, "iterations": iterations, "chunks": tracer.chunks, "dropped": tracer.dropped, **timing}
