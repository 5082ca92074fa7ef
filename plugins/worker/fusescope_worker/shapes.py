"""Shape lists (`workload.shapes`, docs/protocol.md and docs/workloads.md).

After the main measurement the backend is compiled afresh (torch._dynamo.reset()) once with
dynamic=False and once with dynamic=True, and each compile is fed every input set in order. Per
set: the first call's wall time, whether Dynamo compiled (and recompiled) during it, whether it
gave up because of the recompile limit, and a short interleaved eager/compiled timing with
measure.interleaved (the samples go into the result, not into `samples` messages, which belong
to the main measurement). Per compile: Dynamo's recompiles, its guard-failure records, the
recompile limit and whether it was hit.

What Dynamo counts (torch 2.13):
- A recompile is a compile of a frame that already has cache entries: its CompileId has
  frame_compile_id > 0 (the "[0/2]" of Dynamo's logs). The tracking backend below reads
  torch._guards.CompileContext.current_compile_id() for every graph it is handed.
- torch._dynamo.utils.guard_failures gets one entry per cache entry whose guards failed each time
  Dynamo looks for the reason of a recompile (convert_frame -> get_and_maybe_log_recompilation_reasons),
  so a frame recompiled for the n-th time adds n entries. Cleared by torch._dynamo.reset().
- When a frame exceeds torch._dynamo.config.recompile_limit (alias cache_size_limit, default 8;
  or accumulated_recompile_limit), Dynamo logs "torch._dynamo hit config.recompile_limit",
  counts "Dynamo recompile limit exceeded" in counters['unimplemented'] and marks the frame
  run-only: it runs eager from then on without a word to the caller. Both signals are watched.
"""
import logging
import time

import torch
import torch._dynamo
from torch._dynamo import utils as dynamo_utils

from . import accuracy, measure, precision, reference
from .capture.backend_wrapper import CapturingBackend
from .capture.session import CaptureSession
from .compile_timing import compile_module
from .errors import BAD_REQUEST, WorkerError, describe
from .models import input_spec

# The per-set timing budget; each value is also capped by the request's own `measure` value.
SHAPE_MEASURE = {"warmup": 1, "min_runs": 5, "min_time_s": 0.2, "max_runs": 100, "max_time_s": 1.0}

LIMIT_COUNTER_TEXT = "recompile limit exceeded"
LIMIT_LOG_TEXT = "torch._dynamo hit config."


# -- the request --------------------------------------------------------------------------
def requested(request) -> list | None:
    return request.workload.get("shapes") or None


def check_request(request) -> None:
    """bad_request unless workload.shapes is null or a non-empty list of input sets (lists)."""
    sets = request.workload.get("shapes")
    if sets is None:
        return
    if not isinstance(sets, list) or not sets or not all(isinstance(s, list) for s in sets):
        raise WorkerError(BAD_REQUEST, "request field 'workload.shapes' must be null or a non-empty list of "
                          "input sets, each a list of {\"shape\": [...], \"dtype\": \"...\"}")


def describe_set(entries) -> str:
    """`4x999:int64, 4:float32` for error messages."""
    parts = []
    for entry in entries if isinstance(entries, list) else [entries]:
        if isinstance(entry, dict) and isinstance(entry.get("shape"), list):
            dims = "x".join(str(d) for d in entry["shape"]) or "scalar"
            parts.append(f"{dims}:{entry.get('dtype', 'float32')}")
        else:
            parts.append(repr(entry))
    return ", ".join(parts)


def settings_for(request_measure: dict) -> dict:
    return {key: min(value, request_measure.get(key, value)) for key, value in SHAPE_MEASURE.items()}


# -- inputs for one set -------------------------------------------------------------------
def _tensor_slots(loaded) -> list[tuple[str, object, torch.Tensor]]:
    """The model's tensor inputs in the order the `model` message lists them."""
    slots = [("arg", i, a) for i, a in enumerate(loaded.args) if isinstance(a, torch.Tensor)]
    slots += [("kwarg", k, v) for k, v in loaded.kwargs.items() if isinstance(v, torch.Tensor)]
    return slots


def build_inputs(loaded, entries: list, device: torch.device) -> tuple[tuple, dict]:
    """(args, kwargs) with the tensors of `entries` in place of the model's tensor inputs.

    Values are made like the model's own: floats standard normal, and integer tensors uniform
    in [min, max + 1) of the model's default tensor at that position (token ids stay inside
    the vocabulary) unless the entry gives `low`/`high`; seeded (models/input_spec.py).
    ValueError when the set does not fit the model's inputs."""
    slots = _tensor_slots(loaded)
    if len(entries) != len(slots):
        raise ValueError(f"the model takes {len(slots)} tensor input(s), the set has {len(entries)}")
    specs = []
    for entry, (_, _, template) in zip(entries, slots):
        if not isinstance(entry, dict):
            raise ValueError(f"each input must be an object with shape and dtype, got {entry!r}")
        spec = dict(entry)
        dtype = getattr(torch, str(spec.get("dtype", "float32")), None)
        integer = isinstance(dtype, torch.dtype) and not (dtype.is_floating_point or dtype.is_complex) \
            and dtype != torch.bool
        if integer and "low" not in spec and "high" not in spec and template.numel() \
                and not (template.is_floating_point() or template.is_complex()) and template.dtype != torch.bool:
            spec["low"], spec["high"] = int(template.min()), int(template.max()) + 1
        specs.append(spec)
    tensors = [t.to(device) for t in input_spec.tensors_from_spec(specs)]
    args, kwargs = list(loaded.args), dict(loaded.kwargs)
    for (kind, key, _), tensor in zip(slots, tensors):
        if kind == "arg":
            args[key] = tensor
        else:
            kwargs[key] = tensor
    return tuple(args), kwargs


# -- what Dynamo did ----------------------------------------------------------------------
class Tracker:
    """Compile ids of the graphs the backend was handed, and recompile-limit hits."""

    def __init__(self):
        self.compiled: list[tuple[int, int]] = []  # (frame_id, frame_compile_id) per graph kept
        self.limit_logs = 0

    def recompiles(self, since: int = 0) -> int:
        return len({cid for cid in self.compiled[since:] if cid[1] > 0})


class _LimitLog(logging.Handler):
    def __init__(self, tracker: Tracker):
        super().__init__(level=logging.WARNING)
        self.tracker = tracker

    def emit(self, record):
        try:
            if LIMIT_LOG_TEXT in record.getMessage():
                self.tracker.limit_logs += 1
        except Exception:
            pass


def _compile_id() -> tuple[int, int]:
    try:
        cid = torch._guards.CompileContext.current_compile_id()
        return (int(cid.frame_id or 0), int(cid.frame_compile_id or 0))
    except Exception:
        return (-1, -1)


class TrackingBackend(CapturingBackend):
    """The capturing backend (same delegate as torch.compile would build) noting compile ids."""

    def __init__(self, backend: str, options: dict, session, tracker: Tracker):
        super().__init__(backend, options, session)
        self.tracker = tracker

    def __call__(self, gm, example_inputs):
        cid = _compile_id()
        compiled = super().__call__(gm, example_inputs)  # a restarted graph raises: not counted
        self.tracker.compiled.append(cid)
        return compiled


class _NullChannel:
    def send(self, *args, **kwargs):
        pass

    def progress(self, *args, **kwargs):
        pass


class _Collector:
    """Stands in for the channel in measure.interleaved: keeps the samples for the result."""

    def __init__(self):
        self.ms = {"eager": [], "compiled": []}

    def send(self, kind, series=None, ms=(), **_):
        if kind == "samples":
            self.ms[series].extend(ms)


def quiet_session(backend: str) -> CaptureSession:
    """A session that captures nothing: the shape phase sends no stages (they would collide with
    the main compile's graph indices)."""
    return CaptureSession(_NullChannel(), backend, stages_wanted=False, code_wanted=False)


def limit_counter() -> int:
    return sum(count for text, count in dynamo_utils.counters["unimplemented"].items()
               if LIMIT_COUNTER_TEXT in text.lower())


def guard_failure_count() -> int:
    return sum(len(v) for v in dynamo_utils.guard_failures.values())


def recompile_limit() -> int | None:
    config = torch._dynamo.config
    for name in ("recompile_limit", "cache_size_limit"):
        value = getattr(config, name, None)
        if isinstance(value, int):
            return value
    return None


# -- the phase ----------------------------------------------------------------------------
def plain_factory(run):
    """make(dynamic) -> (compiled module, tracker) for a single-backend run."""
    def make(dynamic: bool):
        tracker = Tracker()
        options = {**run.request.options, "dynamic": dynamic}
        backend = TrackingBackend(run.backend, options, quiet_session(run.backend), tracker)
        return compile_module(run.loaded.module, backend, options), tracker
    return make


def run_phase(run, device: torch.device, sync, make=None, unsupported: str | None = None) -> dict:
    """Feed every input set to a fresh dynamic=False and a fresh dynamic=True compile; `make`
    builds them (plain_factory by default); `unsupported`: why the run's compiler has no shape
    phase (its Compiler.shapes_error, pipelines.py)."""
    sets = requested(run.request)
    if unsupported is not None:
        return {"sets": sets, "runs": [], "measure": None, "error": unsupported}
    make = make or plain_factory(run)
    settings = settings_for(run.request.measure)
    runs = []
    total = 2 * len(sets)
    for order, dynamic in enumerate((False, True)):
        def progress(i, message, order=order):
            run.progress("shapes", (order * len(sets) + i) / total, message)
        runs.append(_one_setting(run, dynamic, sets, make, settings, device, sync, progress))
    run.progress("shapes", 1.0, "shape list done")
    return {"sets": sets, "runs": runs, "measure": settings}


def _one_setting(run, dynamic: bool, sets: list, make, settings: dict, device, sync, progress) -> dict:
    entry = {"dynamic": dynamic, "recompiles": None, "guard_failures": None, "recompile_limit": recompile_limit(),
             "limit_hit": False, "graphs": None, "per_shape": [], "error": None}
    torch._dynamo.reset()  # a fresh compile: no cache entries, guard failures or counters from before
    try:
        compiled, tracker = make(dynamic)
    except Exception as exc:
        entry["error"] = f"{run.backend} (dynamic={dynamic}) could not be set up: {describe(exc)}"
        return entry
    handler = _LimitLog(tracker)
    logger = logging.getLogger("torch._dynamo")
    logger.addHandler(handler)
    counter_before = limit_counter()
    try:
        for index, entries in enumerate(sets):
            progress(index, f"dynamic={str(dynamic).lower()}: input set {index} ({describe_set(entries)})")
            entry["per_shape"].append(_one_set(run, dynamic, index, entries, compiled, tracker, settings,
                                               device, sync))
    finally:
        logger.removeHandler(handler)
    entry.update(recompiles=tracker.recompiles(), guard_failures=guard_failure_count(),
                 graphs=len(tracker.compiled),
                 limit_hit=limit_counter() > counter_before or tracker.limit_logs > 0
                 or any(p.get("limit_hit") for p in entry["per_shape"]))
    return entry


def _one_set(run, dynamic: bool, index: int, entries, compiled, tracker: Tracker, settings: dict,
             device, sync) -> dict:
    point = {"index": index, "status": "failed", "recompiled": False, "compiled_graphs": 0, "limit_hit": False,
             "first_call_s": None, "eager_ms": [], "compiled_ms": [], "accuracy": None, "error": None}
    label = f"shape set {index} ({describe_set(entries)})"
    try:
        args, kwargs = build_inputs(run.loaded, entries, device)
    except Exception as exc:
        point["error"] = f"{label}: invalid input set: {describe(exc)}"
        return point
    module = run.loaded.module
    try:
        eager_out = reference.detached(module(*args, **kwargs))
        sync()
    except Exception as exc:
        point["error"] = f"{label}: forward raised {describe(exc)}"
        return point
    graphs_before, logs_before, counter_before = len(tracker.compiled), tracker.limit_logs, limit_counter()
    compiled_call = lambda: compiled(*args, **kwargs)  # noqa: E731
    try:
        start = time.perf_counter()
        out = compiled_call()
        sync()
        point["first_call_s"] = time.perf_counter() - start
        point["accuracy"] = accuracy.compare(eager_out, reference.detached(out),
                                             **precision.accuracy_options(run.request))
        collector = _Collector()
        measure.interleaved(lambda: module(*args, **kwargs), compiled_call, settings, sync, collector,
                            lambda fraction, message: None)
        point.update(eager_ms=collector.ms["eager"], compiled_ms=collector.ms["compiled"], status="ok")
    except Exception as exc:
        point["error"] = f"{label}: {run.backend} (dynamic={str(dynamic).lower()}) raised {describe(exc)}"
    finally:
        point["compiled_graphs"] = len(tracker.compiled) - graphs_before
        point["recompiled"] = tracker.recompiles(graphs_before) > 0
        point["limit_hit"] = tracker.limit_logs > logs_before or limit_counter() > counter_before
    return point
