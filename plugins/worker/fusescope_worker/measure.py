"""Latency measurement: eager and compiled calls interleaved (docs/measurement.md).

Alternating the two cancels slow drift (CPU frequency, thermal state, other load) between the
series, as PyTorch's dynamo benchmark harness does. Each call is timed alone with
perf_counter_ns, with a device synchronize before and after on CUDA.
"""
import resource
import time

from .confidence import ConfidenceRule

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


def _minor_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def timed_call(fn, sync) -> float:
    """Milliseconds of one call, device work included."""
    sync()
    start = time.perf_counter_ns()
    fn()
    sync()
    return (time.perf_counter_ns() - start) / 1e6


def interleaved(eager, compiled, settings: dict, sync, channel, on_progress, watch=None) -> dict:
    """Warm up both, then time eager/compiled pairs (docs/measurement.md, "Stopping rule"): at
    least min_runs pairs and min_time_s seconds; then, with a `confidence_pct` target, until the
    95 % confidence interval of the median ratio eager/compiled is within +-target % of it; at
    most max_runs pairs or max_time_s seconds. Returns counts per series and what stopped the loop.
    `watch` (machine_probe.MachineWatch) is started after the warm-up and stopped after the last sample."""
    for _ in range(settings["warmup"]):
        eager()
        compiled()
    sync()
    streams = {"eager": SampleStream(channel, "eager"), "compiled": SampleStream(channel, "compiled")}
    min_runs, max_runs = settings["min_runs"], max(settings["max_runs"], 1)
    min_time, max_time = settings["min_time_s"], settings["max_time_s"]
    rule = ConfidenceRule(settings.get("confidence_pct", 0.0))
    if watch is not None:
        watch.start()
    start = time.perf_counter()
    runs, reported = 0, 0.0
    # Minor page faults of the whole process during each side's calls (read outside the timed
    # span): fresh pages a call's tensors fault in, which the allocator policy decides
    # (placement.py, docs/measurement.md "The allocator").
    faults = {"eager": 0, "compiled": 0}
    # Settle calls: the first call after the other side ran pays for refilling the caches and
    # branch predictors that side evicted (bench/fidelity's small MLP: +13 % on eager, +9 % on
    # compiled; +1 % on a 6.6 ms transformer), which a block of calls of one function, as
    # torch.utils.benchmark times, does not. `settle` untimed calls of each side right before
    # its timed one take that cost; the pair stays neighbours in time (docs/measurement.md).
    settle = settings.get("settle", 0)
    while True:
        for _ in range(settle):
            eager()
        before = _minor_faults()
        eager_ms = timed_call(eager, sync)
        middle = _minor_faults()
        for _ in range(settle):
            compiled()
        settled = _minor_faults()
        compiled_ms = timed_call(compiled, sync)
        faults["eager"] += middle - before
        faults["compiled"] += _minor_faults() - settled
        streams["eager"].add(eager_ms)
        streams["compiled"].add(compiled_ms)
        rule.add(eager_ms, compiled_ms)
        runs += 1
        elapsed = time.perf_counter() - start
        stopped_by = stop_reason(runs, elapsed, settings, rule)
        if stopped_by:
            break
        done = max(min(runs / max(min_runs, 1), elapsed / min_time if min_time > 0 else 1.0),
                   runs / max_runs, elapsed / max_time if max_time > 0 else 0.0)
        if rule.enabled and runs >= min_runs and elapsed >= min_time:
            # Past the minimums, only the caps bound the loop: report against them.
            done = max(runs / max_runs, elapsed / max_time if max_time > 0 else 0.0)
        if done - reported >= 0.1:
            reported = done
            width = "" if rule.last_half_width is None else \
                f", speedup known to +-{rule.last_half_width:.1f} % (target {rule.target_pct:g} %)"
            on_progress(min(done, 1.0), f"{runs} runs per series in {elapsed:.1f} s{width}")
    if watch is not None:
        watch.stop()
    for stream in streams.values():
        stream.flush()
    return {"eager": streams["eager"].count, "compiled": streams["compiled"].count,
            "warmup": settings["warmup"], "elapsed_s": time.perf_counter() - start,
            "stopped_by": stopped_by, "confidence_pct": rule.target_pct, "settle": settle,
            "faults_per_call": {side: count / runs for side, count in faults.items()}}


def stop_reason(runs: int, elapsed: float, settings: dict, rule: ConfidenceRule) -> str | None:
    """Why the loop stops after `runs` pairs and `elapsed` seconds, or None to go on. The caps win;
    then both minimums must be met; then the confidence target, when one is set."""
    if runs >= max(settings["max_runs"], 1):
        return "max_runs"
    if elapsed >= settings["max_time_s"]:
        return "max_time"
    if runs < settings["min_runs"] or elapsed < settings["min_time_s"]:
        return None
    if not rule.enabled:
        return "min"
    return "confidence" if rule.reached(runs) else None


def outcome(runs: dict) -> dict:
    """The result's `measure` record (docs/protocol.md): the target and what stopped the loop.
    The interval itself is computed from the samples by the C++ side."""
    record = {"confidence_pct": runs.get("confidence_pct", 0.0), "stopped_by": runs.get("stopped_by"),
              "settle": runs.get("settle", 0)}
    if "faults_per_call" in runs:
        record["faults_per_call"] = runs["faults_per_call"]
    return record
