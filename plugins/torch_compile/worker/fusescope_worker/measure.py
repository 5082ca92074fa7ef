"""Latency measurement: eager and compiled calls interleaved (docs/measurement.md).

Alternating the two cancels slow drift (CPU frequency, thermal state, other load) between the
series, as PyTorch's dynamo benchmark harness does. Each call is timed alone with
perf_counter_ns, with a device synchronize before and after on CUDA.
"""
import time

CHUNK = 50  # samples per `samples` message (protocol: at most 50)


class SampleStream:
    """Buffers one series and sends it in chunks as it grows."""

    def __init__(self, channel, series: str):
        self.channel = channel
        self.series = series
        self.pending: list[float] = []
        self.count = 0

    def add(self, ms: float) -> None:
        self.pending.append(ms)
        self.count += 1
        if len(self.pending) >= CHUNK:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.channel.send("samples", series=self.series, ms=self.pending)
            self.pending = []


def timed_call(fn, sync) -> float:
    """Milliseconds of one call, device work included."""
    sync()
    start = time.perf_counter_ns()
    fn()
    sync()
    return (time.perf_counter_ns() - start) / 1e6


def interleaved(eager, compiled, settings: dict, sync, channel, on_progress, watch=None) -> dict:
    """Warm up both, then time eager/compiled pairs until both min_runs and min_time_s are
    reached, or max_runs or max_time_s is. Returns counts per series. `watch`
    (machine_probe.MachineWatch) is started after the warm-up and stopped after the last sample."""
    for _ in range(settings["warmup"]):
        eager()
        compiled()
    sync()
    streams = {"eager": SampleStream(channel, "eager"), "compiled": SampleStream(channel, "compiled")}
    min_runs, max_runs = settings["min_runs"], max(settings["max_runs"], 1)
    min_time, max_time = settings["min_time_s"], settings["max_time_s"]
    if watch is not None:
        watch.start()
    start = time.perf_counter()
    runs, reported = 0, 0.0
    while True:
        streams["eager"].add(timed_call(eager, sync))
        streams["compiled"].add(timed_call(compiled, sync))
        runs += 1
        elapsed = time.perf_counter() - start
        if runs >= max_runs or elapsed >= max_time or (runs >= min_runs and elapsed >= min_time):
            break
        done = max(min(runs / max(min_runs, 1), elapsed / min_time if min_time > 0 else 1.0),
                   runs / max_runs, elapsed / max_time if max_time > 0 else 0.0)
        if done - reported >= 0.1:
            reported = done
            on_progress(min(done, 1.0), f"{runs} runs per series in {elapsed:.1f} s")
    if watch is not None:
        watch.stop()
    for stream in streams.values():
        stream.flush()
    return {"eager": streams["eager"].count, "compiled": streams["compiled"].count,
            "warmup": settings["warmup"], "elapsed_s": time.perf_counter() - start}
