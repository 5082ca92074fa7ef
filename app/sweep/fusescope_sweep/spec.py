"""The sweep spec (TOML, docs/sweeps.md) and the jobs it expands to."""
import hashlib
import itertools
import json
import os
import re
import tomllib
from dataclasses import dataclass, field


class SpecError(Exception):
    """A spec that cannot run: the message names the file, the key and what is wrong."""


SWEEP_KEYS = {"name", "models", "backends", "device", "timeout"}
AXES = {"precision": "--precision", "mode": "--mode", "threads": "--threads", "shapes": "--shapes",
        "compile_mode": "--compile-mode"}
MEASURE = {"warmup": ("--warmup", int), "min_runs": ("--min-runs", int), "max_runs": ("--max-runs", int),
           "min_time": ("--min-time", float), "max_time": ("--max-time", float),
           "backend_timeout": ("--timeout", float), "stages": (None, bool), "warm_cache": (None, bool)}
DEFAULT_JOB_TIMEOUT = 3600.0


@dataclass
class Job:
    id: str
    model: str          # as the spec names it (a path is made absolute)
    backends: list      # entries as --backends takes them
    axes: dict          # axis name -> value for this job
    args: list = field(default_factory=list)  # compare arguments after MODEL, without --out

    def describe(self) -> dict:
        return {"id": self.id, "model": self.model, "backends": self.backends, "axes": self.axes,
                "args": self.args}


@dataclass
class Spec:
    path: str
    name: str
    jobs: list
    timeout: float
    text: str


def _fail(path, what):
    raise SpecError(f"{path}: {what}")


def _string_list(path, key, value):
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        _fail(path, f"{key} must be a non-empty list of strings")
    return value


def _backend_sets(path, value):
    # ["eager", "inductor"] is one set (one job per model and axis point); a list of lists is
    # several sets, each its own job.
    if isinstance(value, list) and value and all(isinstance(v, list) for v in value):
        return [_string_list(path, "backends[]", v) for v in value]
    return [_string_list(path, "backends", value)]


def _slug(text: str) -> str:
    base = os.path.basename(text.rstrip("/")) or text
    base = re.sub(r"\.(py|pt|pt2)$", "", base)
    return re.sub(r"[^A-Za-z0-9]+", "_", base).strip("_")[:40] or "model"


def job_id(model: str, backends: list, axes: dict, args: list) -> str:
    # Stable across reruns of the same spec (resume finds its jobs again), distinct for any
    # difference that changes what is measured.
    identity = json.dumps({"model": model, "backends": backends, "axes": axes, "args": args}, sort_keys=True)
    digest = hashlib.sha256(identity.encode()).hexdigest()[:8]
    return f"{_slug(model)}-{_slug('+'.join(backends))}-{digest}"


def load(path: str) -> Spec:
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as exc:
        raise SpecError(f"{path}: cannot read the spec ({exc.strerror})") from exc
    try:
        text = raw.decode("utf-8")
        doc = tomllib.loads(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SpecError(f"{path}: not a TOML file ({exc})") from exc
    return parse(doc, path, text)


def parse(doc: dict, path: str, text: str = "") -> Spec:
    unknown = set(doc) - {"sweep", "axes", "measure"}
    if unknown:
        _fail(path, f"unknown table(s) {sorted(unknown)}; a spec has [sweep], [axes] and [measure]")
    sweep = doc.get("sweep")
    if not isinstance(sweep, dict):
        _fail(path, "missing [sweep] table with models and backends")
    if bad := set(sweep) - SWEEP_KEYS:
        _fail(path, f"[sweep] has unknown key(s) {sorted(bad)}; known: {sorted(SWEEP_KEYS)}")
    if "models" not in sweep or "backends" not in sweep:
        _fail(path, "[sweep] needs models and backends")
    base = os.path.dirname(os.path.abspath(path))
    models = []
    for m in _string_list(path, "models", sweep["models"]):
        # A file is named relative to the spec; demo: and hf: names are kept as they are.
        if re.match(r"^[a-z]+:", m) or os.path.isabs(m):
            models.append(m)
        else:
            models.append(os.path.normpath(os.path.join(base, m)))
    backend_sets = _backend_sets(path, sweep["backends"])
    device = sweep.get("device", "cpu")
    if device not in ("cpu", "cuda"):
        _fail(path, f"[sweep] device must be cpu or cuda, not {device!r}")
    timeout = sweep.get("timeout", DEFAULT_JOB_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= 7 * 86400:
        _fail(path, "[sweep] timeout is the seconds one job may take: more than 0, up to 604800")

    axes = doc.get("axes", {})
    if not isinstance(axes, dict):
        _fail(path, "[axes] must be a table")
    if bad := set(axes) - set(AXES):
        _fail(path, f"[axes] has unknown key(s) {sorted(bad)}; known: {sorted(AXES)}")
    axis_values = {}
    for key in sorted(axes):
        values = axes[key] if isinstance(axes[key], list) else [axes[key]]
        if not values or not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in values):
            _fail(path, f"[axes] {key} must be a non-empty list of strings or whole numbers")
        axis_values[key] = values

    measure = doc.get("measure", {})
    if not isinstance(measure, dict):
        _fail(path, "[measure] must be a table")
    if bad := set(measure) - set(MEASURE):
        _fail(path, f"[measure] has unknown key(s) {sorted(bad)}; known: {sorted(MEASURE)}")
    common = ["--device", device]
    for key in sorted(measure):
        flag, kind = MEASURE[key]
        value = measure[key]
        if kind is bool:
            if not isinstance(value, bool):
                _fail(path, f"[measure] {key} must be true or false")
            if key == "stages" and not value:
                common.append("--no-stages")
            if key == "warm_cache" and value:
                common.append("--warm-cache")
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and value != int(value)):
            _fail(path, f"[measure] {key} must be a {'whole number' if kind is int else 'number'}")
        common += [flag, str(int(value) if kind is int else value)]

    jobs, seen = [], set()
    names = list(axis_values)
    for model in models:
        for backends in backend_sets:
            for point in itertools.product(*(axis_values[n] for n in names)):
                job_axes = dict(zip(names, point))
                args = ["--backends", ",".join(backends), *common]
                for n in names:
                    args += [AXES[n], str(job_axes[n])]
                jid = job_id(model, backends, job_axes, args)
                if jid in seen:
                    continue
                seen.add(jid)
                jobs.append(Job(jid, model, list(backends), job_axes, args))
    name = sweep.get("name") or os.path.splitext(os.path.basename(path))[0]
    return Spec(os.path.abspath(path), str(name), jobs, float(timeout), text)
