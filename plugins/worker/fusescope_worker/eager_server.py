"""Eager calls on request, after an export (docs/libtorch.md, "Interleaved timing").

Once `export_torchscript` or `export_aoti` has replied, the worker stays alive with the eager
model loaded and answers `eager_call` requests from the LibTorch runner, which alternates them
with its own compiled calls: eager and compiled samples are neighbours in time, as in a worker
run (measure.py), though they run in two processes.

    {"type": "eager_call", "untimed": N, "timed": true}   N untimed calls, then one timed call
    -> {"type": "eager_ms", "ms": 1.234, "faults": 0}     ms null when not timed; faults: minor
                                                          page faults of the timed call
    {"type": "shutdown"}  (or end of input)               the worker says bye and exits

The runner decides how many calls, when to stop and what the samples are (its stopping rule);
this side only calls the model and reads the clock, so the two processes never run at once.
"""
from .errors import BAD_REQUEST, MODEL_FAILED, WorkerError, describe
from .measure import _minor_faults, timed_call
from .request import parse_line

MAX_UNTIMED = 1000  # per request: warm-up and settle calls (the runner asks for far fewer)


def _untimed(request: dict) -> int:
    value = request.get("untimed", 0)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_UNTIMED:
        raise WorkerError(BAD_REQUEST, f"eager_call: 'untimed' must be a number of calls from 0 to {MAX_UNTIMED}")
    return value


def serve(loaded, channel, lines) -> int:
    """Answers eager_call requests read from `lines` until shutdown or the end of input; returns
    how many timed calls it made. Call under torch.no_grad(), as the export times eager."""
    timed_calls = 0
    for line in lines:
        if not line.strip():
            continue
        request = parse_line(line)
        kind = request["type"]
        if kind == "shutdown":
            break
        if kind != "eager_call":
            raise WorkerError(BAD_REQUEST, f"after an export the worker takes eager_call or shutdown, not '{kind}'")
        untimed = _untimed(request)
        timed = request.get("timed", True) is not False
        try:
            for _ in range(untimed):
                loaded()
            ms, faults = None, None
            if timed:
                before = _minor_faults()
                ms = timed_call(loaded, lambda: None)
                faults = _minor_faults() - before
                timed_calls += 1
        except Exception as exc:
            raise WorkerError(MODEL_FAILED, f"model {loaded.source}: forward raised {describe(exc)} while eager "
                              "was timed beside the LibTorch backend", file=loaded.file) from exc
        channel.send("eager_ms", ms=ms, faults=faults)
    return timed_calls
