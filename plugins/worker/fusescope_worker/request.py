"""Parsing and checking of request lines (docs/protocol.md, "Requests")."""
import json
import os
from dataclasses import dataclass, field

from .errors import BAD_REQUEST, WorkerError
from .placement import MALLOC_POLICIES

# confidence_pct: the stopping rule's target (measure.py); absent from a request, the rule is off.
# settle: untimed calls of a side right before each of its timed calls (measure.py); absent, none.
DEFAULT_MEASURE = {"warmup": 3, "min_runs": 10, "min_time_s": 1.0, "max_runs": 1000, "max_time_s": 30.0,
                   "confidence_pct": 0.0, "settle": 0}
MAX_SETTLE = 16
DEFAULT_OPTIONS = {"mode": None, "fullgraph": False, "dynamic": None, "inductor": {}, "dynamo": {}, "cache": "cold"}
DEFAULT_CAPTURE = {"stages": True, "code": True, "trace": False, "roofs": "cached"}  # roofs: roofs.MODES
DEFAULT_WORKLOAD = {"mode": "inference", "precision": "fp32", "shapes": None, "assign": None}
DEFAULT_PLACEMENT = {"threads": None, "pin": None, "malloc": None}  # placement.py
MAX_THREADS = 1024
WORKLOAD_MODES = ("inference", "training")
WORKLOAD_PRECISIONS = ("fp32", "bf16", "fp16", "int8_weight_only", "int8_dynamic", "int8_static")


@dataclass
class RunRequest:
    id: str
    model: str
    backend: str
    device: str = "cpu"
    options: dict = field(default_factory=lambda: dict(DEFAULT_OPTIONS))
    measure: dict = field(default_factory=lambda: dict(DEFAULT_MEASURE))
    capture: dict = field(default_factory=lambda: dict(DEFAULT_CAPTURE))
    inputs: list | None = None
    workload: dict = field(default_factory=lambda: dict(DEFAULT_WORKLOAD))
    placement: dict = field(default_factory=lambda: dict(DEFAULT_PLACEMENT))


def _bad(message: str) -> WorkerError:
    return WorkerError(BAD_REQUEST, message)


def parse_line(line: str) -> dict:
    try:
        request = json.loads(line)
    except json.JSONDecodeError as exc:
        raise _bad(f"request line is not valid JSON: {exc.msg} at column {exc.colno}") from exc
    if not isinstance(request, dict) or not isinstance(request.get("type"), str):
        raise _bad("request must be a JSON object with a string field 'type'")
    return request


def _string(request: dict, name: str) -> str:
    value = request.get(name)
    if not isinstance(value, str) or not value:
        raise _bad(f"request field '{name}' must be a non-empty string")
    return value


def _merged(request: dict, name: str, defaults: dict) -> dict:
    value = request.get(name)
    if value is None:
        return dict(defaults)
    if not isinstance(value, dict):
        raise _bad(f"request field '{name}' must be an object")
    return {**defaults, **value}


def _number(section: dict, prefix: str, name: str, integer: bool) -> None:
    value = section[name]
    kinds = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or value < 0:
        kind = "a non-negative integer" if integer else "a non-negative number"
        raise _bad(f"request field '{prefix}.{name}' must be {kind}")


def _placement(request: dict) -> dict:
    """placement.threads: null or 1..1024; placement.pin: null or a list of distinct CPU numbers
    below os.cpu_count(); placement.malloc: null (steady), "steady" or "system" (docs/protocol.md)."""
    placement = _merged(request, "placement", DEFAULT_PLACEMENT)
    threads = placement["threads"]
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                or not 1 <= threads <= MAX_THREADS):
        raise _bad(f"request field 'placement.threads' must be null or an integer from 1 to {MAX_THREADS}")
    pin = placement["pin"]
    if pin is not None:
        count = os.cpu_count() or 1
        if not isinstance(pin, list) or not pin or any(
                isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < count for c in pin) \
                or len(set(pin)) != len(pin):
            raise _bad(f"request field 'placement.pin' must be null or a non-empty list of distinct CPU numbers "
                       f"from 0 to {count - 1}")
        placement["pin"] = sorted(pin)
    if placement["malloc"] is not None and placement["malloc"] not in MALLOC_POLICIES:
        raise _bad("request field 'placement.malloc' must be null, \"steady\" or \"system\"")
    return placement


def parse_run(request: dict) -> RunRequest:
    run = RunRequest(id=_string(request, "id"), model=_string(request, "model"),
                     backend=_string(request, "backend"))
    device = request.get("device", "cpu")
    if not isinstance(device, str) or not device:
        raise _bad("request field 'device' must be a non-empty string")
    run.device = device
    run.measure = _merged(request, "measure", DEFAULT_MEASURE)
    for name in ("warmup", "min_runs", "max_runs", "settle"):
        _number(run.measure, "measure", name, integer=True)
    if run.measure["settle"] > MAX_SETTLE:
        raise _bad(f"request field 'measure.settle' must be a number of calls from 0 to {MAX_SETTLE}")
    for name in ("min_time_s", "max_time_s", "confidence_pct"):
        _number(run.measure, "measure", name, integer=False)
    if run.measure["confidence_pct"] > 100:
        raise _bad("request field 'measure.confidence_pct' must be a percentage from 0 to 100")
    run.placement = _placement(request)
    run.options = _merged(request, "options", DEFAULT_OPTIONS)
    if run.options["mode"] is not None and not isinstance(run.options["mode"], str):
        raise _bad("request field 'options.mode' must be a string or null")
    if not isinstance(run.options["fullgraph"], bool):
        raise _bad("request field 'options.fullgraph' must be true or false")
    if run.options["dynamic"] not in (None, True, False):
        raise _bad("request field 'options.dynamic' must be true, false or null")
    if not isinstance(run.options["inductor"] or {}, dict):
        raise _bad("request field 'options.inductor' must be an object")
    dynamo = run.options["dynamo"] or {}
    if not isinstance(dynamo, dict) or not all(isinstance(v, (bool, int, float, str)) for v in dynamo.values()):
        raise _bad("request field 'options.dynamo' must be an object of torch._dynamo.config names to "
                   "booleans, numbers or strings")
    run.options["dynamo"] = dict(dynamo)  # never the shared default
    if run.options["cache"] not in ("cold", "warm"):
        raise _bad("request field 'options.cache' must be \"cold\" or \"warm\"")
    run.capture = _merged(request, "capture", DEFAULT_CAPTURE)
    if run.capture["roofs"] is None:
        run.capture["roofs"] = DEFAULT_CAPTURE["roofs"]
    if run.capture["roofs"] not in ("cached", "measure", "skip"):
        raise _bad("request field 'capture.roofs' must be \"cached\", \"measure\" or \"skip\"")
    inputs = request.get("inputs")
    if inputs is not None and not isinstance(inputs, list):
        raise _bad("request field 'inputs' must be a list of {shape, dtype} or null")
    run.inputs = inputs
    # workload (docs/protocol.md): mode and precision checked here; shapes and assign by
    # shapes.py and mixed.py. Unknown fields are kept.
    run.workload = _merged(request, "workload", DEFAULT_WORKLOAD)
    for name in ("mode", "precision"):  # null means the default, as absent does
        if run.workload[name] is None:
            run.workload[name] = DEFAULT_WORKLOAD[name]
    if run.workload["mode"] not in WORKLOAD_MODES:
        raise _bad("request field 'workload.mode' must be \"inference\" or \"training\"")
    if run.workload["precision"] not in WORKLOAD_PRECISIONS:
        raise _bad("request field 'workload.precision' must be one of " + ", ".join(WORKLOAD_PRECISIONS))
    return run
