"""Result: a comparison's table, recommendation, advice and warnings as plain Python objects, read
from fusescope-cli's JSON summary (docs/cli.md, "The JSON summary"); load() reads any report."""

from __future__ import annotations

import html
import json
import math
import os
import subprocess
from dataclasses import dataclass, field

from . import _cli
from .errors import FuseScopeError, ReportError


@dataclass(frozen=True)
class RunWarning:
    code: str
    message: str


@dataclass(frozen=True)
class Advice:
    rule: str
    backend: str
    message: str
    evidence: str
    try_: str | None  # the `backends` entry to add next (JSON "try"), None when the advice is not a row
    backends: tuple[str, ...] = ()  # every backend it applies to (grouped advice), ``backend`` first


@dataclass(frozen=True)
class Recommendation:
    goal: str
    verdict: str
    winners: tuple[str, ...]
    ranked: tuple[dict, ...]
    excluded: tuple[dict, ...]


@dataclass(frozen=True)
class BackendResult:
    """One row: a backend (or backend entry) as it ran."""

    name: str
    status: str  # ok | failed | unavailable
    error: str | None
    error_code: str | None
    compile_s: float | None
    latency_ms: float | None  # median of the compiled samples
    eager_latency_ms: float | None  # median of the eager samples interleaved with them
    speedup: float | None  # median of the paired eager/compiled ratios
    speedup_ci95: tuple[float, float] | None
    accuracy_pass: bool | None
    peak_memory_bytes: int | None
    warnings: tuple[RunWarning, ...]
    raw: dict = field(repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def _number(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) else None


def _median(stats):
    return _number(stats.get("median")) if isinstance(stats, dict) else None


def _warnings(items) -> tuple[RunWarning, ...]:
    return tuple(
        RunWarning(str(w.get("code", "")), str(w.get("message", ""))) for w in items or () if isinstance(w, dict)
    )


def _backend(row: dict) -> BackendResult:
    ci = row.get("speedup_ci95")
    accuracy = row.get("accuracy") if isinstance(row.get("accuracy"), dict) else {}
    passed = accuracy.get("pass")
    return BackendResult(
        name=str(row.get("name", "")),
        status=str(row.get("status", "")),
        error=row.get("error"),
        error_code=row.get("error_code"),
        compile_s=_number(row.get("compile_s")),
        latency_ms=_median(row.get("latency_ms")),
        eager_latency_ms=_median(row.get("eager_latency_ms")),
        speedup=_number(row.get("speedup_vs_eager")),
        speedup_ci95=(float(ci[0]), float(ci[1]))
        if isinstance(ci, list) and len(ci) == 2 and all(_number(v) is not None for v in ci)
        else None,
        accuracy_pass=passed if isinstance(passed, bool) else None,
        peak_memory_bytes=_number(row.get("peak_memory_bytes")),
        warnings=_warnings(row.get("warnings")),
        raw=row,
    )


def _fmt(value, spec: str, missing: str = "-") -> str:
    return format(value, spec) if value is not None else missing


class Result:
    """What a comparison measured. ``summary`` is the JSON summary itself, every field of it."""

    def __init__(self, summary: dict, path: str | None = None, interrupted: bool = False, cli: str | None = None):
        if not isinstance(summary, dict) or not isinstance(summary.get("backends"), list):
            raise ReportError("fusescope-cli's summary has no backends list")
        self.summary = summary
        self.path = os.fspath(path) if path is not None else None
        self.interrupted = interrupted
        self._cli = cli  # the fusescope-cli that made or read it: open() finds the GUI beside it
        self.model = summary.get("model")
        self.device = summary.get("device")
        self.torch = summary.get("torch")
        self.completion = summary.get("completion")
        self.backends = tuple(_backend(r) for r in summary["backends"] if isinstance(r, dict))
        rec = summary.get("recommendation") if isinstance(summary.get("recommendation"), dict) else None
        self.recommendation = (
            Recommendation(
                goal=str(rec.get("goal", "")),
                verdict=str(rec.get("verdict", "")),
                winners=tuple(rec.get("winners") or ()),
                ranked=tuple(rec.get("ranked") or ()),
                excluded=tuple(rec.get("excluded") or ()),
            )
            if rec
            else None
        )
        self.advice = tuple(
            Advice(
                rule=str(a.get("rule", "")),
                backend=str(a.get("backend", "")),
                message=str(a.get("message", "")),
                evidence=str(a.get("evidence", "")),
                try_=a.get("try"),
                backends=tuple(a.get("backends") or ([a["backend"]] if a.get("backend") else [])),
            )
            for a in summary.get("advice") or ()
            if isinstance(a, dict)
        )
        self.warnings = _warnings(summary.get("warnings"))

    # --- access -----------------------------------------------------------------------------------
    def __getitem__(self, name: str) -> BackendResult:
        for row in self.backends:
            if row.name == name:
                return row
        raise KeyError(f"no backend {name!r} in this result (it has {', '.join(r.name for r in self.backends)})")

    def __iter__(self):
        return iter(self.backends)

    def __len__(self) -> int:
        return len(self.backends)

    @property
    def best(self) -> str | None:
        """The recommended backend for the run's goal, or None when nothing could be recommended."""
        if self.recommendation and self.recommendation.winners:
            return self.recommendation.winners[0]
        return None

    def table(self) -> list[dict]:
        """One plain dict per row (e.g. for ``pandas.DataFrame(result.table())``)."""
        return [
            {
                "backend": r.name,
                "status": r.status,
                "compile_s": r.compile_s,
                "latency_ms": r.latency_ms,
                "eager_latency_ms": r.eager_latency_ms,
                "speedup": r.speedup,
                "speedup_ci95": r.speedup_ci95,
                "accuracy_pass": r.accuracy_pass,
                "peak_memory_bytes": r.peak_memory_bytes,
                "error_code": r.error_code,
                "error": r.error,
            }
            for r in self.backends
        ]

    def open(self):
        """Open the report in the FuseScope GUI (a separate process); returns its Popen."""
        if not self.path:
            raise ReportError("this result has no report file to open")
        if not any(os.environ.get(v) for v in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")):
            raise FuseScopeError(
                f"no display to open the GUI on (DISPLAY and WAYLAND_DISPLAY are unset); read {self.path} with "
                "`fusescope-cli show` or export it with `fusescope-cli export REPORT --html FILE`"
            )
        gui = _cli.find_gui(self._cli or _cli.find_cli())
        return subprocess.Popen(
            [gui, self.path],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    # --- text and HTML ----------------------------------------------------------------------------
    def _rows(self) -> list[list[str]]:
        rows = []
        for r in self.backends:
            speedup = f"{r.speedup:.2f}x" if r.speedup is not None else "-"
            if r.speedup_ci95:
                speedup += f" [{r.speedup_ci95[0]:.2f}, {r.speedup_ci95[1]:.2f}]"
            accuracy = {True: "pass", False: "FAIL", None: "-"}[r.accuracy_pass]
            memory = f"{r.peak_memory_bytes / 2**20:.1f}" if r.peak_memory_bytes is not None else "-"
            status = r.status if r.ok else f"{r.status}: {r.error_code or ''}".rstrip(": ")
            rows.append(
                [r.name, status, _fmt(r.compile_s, ".2f"), _fmt(r.latency_ms, ".3f"), speedup, accuracy, memory]
            )
        return rows

    _HEADER = ["backend", "status", "compile s", "latency ms", "speedup vs eager [95% CI]", "accuracy", "peak MiB"]

    def __str__(self) -> str:
        rows = [self._HEADER, *self._rows()]
        widths = [max(len(row[i]) for row in rows) for i in range(len(self._HEADER))]
        lines = [f"{self.model} on {self.device}, torch {self.torch}" + (" (interrupted)" if self.interrupted else "")]
        lines += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
        if self.recommendation and self.recommendation.verdict:
            lines += ["", self.recommendation.verdict]
        for r in self.backends:
            if r.error and not r.ok:
                lines.append(f"{r.name}: {r.error}")
        if self.advice:
            lines += ["", "advice:"]
            lines += [f"- {_advice_scope(a)}: {a.message}" + (f" (try {a.try_})" if a.try_ else "")
                      for a in self.advice]
        warnings = list(self.warnings) + [w for r in self.backends for w in r.warnings]
        if warnings:
            lines += ["", "warnings:"] + [f"- {w.code}: {w.message}" for w in warnings]
        if self.path:
            lines += ["", f"report: {self.path}"]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<fusescope.Result {self.model!r}: {len(self.backends)} backends, {self.completion}, best {self.best}>"

    def _repr_html_(self) -> str:
        e = html.escape
        head = "".join(f"<th>{e(h)}</th>" for h in self._HEADER)
        body = ""
        for r, cells in zip(self.backends, self._rows()):
            style = "" if r.ok else ' style="color:#a33"'
            title = f' title="{e(r.error)}"' if r.error else ""
            body += f"<tr{style}{title}>" + "".join(f"<td>{e(c)}</td>" for c in cells) + "</tr>"
        parts = [
            '<div class="fusescope-result">',
            f"<p><b>{e(str(self.model))}</b> on {e(str(self.device))}, torch {e(str(self.torch))}"
            + (" <i>(interrupted)</i>" if self.interrupted else "")
            + "</p>",
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>",
        ]
        if self.recommendation and self.recommendation.verdict:
            parts.append(f"<p><b>Recommendation:</b> {e(self.recommendation.verdict)}</p>")
        if self.advice:
            items = "".join(
                f"<li><b>{e(_advice_scope(a))}</b>: {e(a.message)}"
                + (f" <code>{e(a.try_)}</code>" if a.try_ else "")
                + "</li>"
                for a in self.advice
            )
            parts.append(f"<p><b>Advice</b></p><ul>{items}</ul>")
        warnings = [(None, w) for w in self.warnings] + [(r.name, w) for r in self.backends for w in r.warnings]
        if warnings:
            items = "".join(
                f"<li>{e(name + ': ') if name else ''}<code>{e(w.code)}</code> {e(w.message)}</li>"
                for name, w in warnings
            )
            parts.append(f"<p><b>Warnings</b></p><ul>{items}</ul>")
        if self.path:
            parts.append(f"<p>Report: <code>{e(self.path)}</code></p>")
        parts.append("</div>")
        return "".join(parts)


def _advice_scope(a: Advice) -> str:
    return ", ".join(a.backends) if a.backends else a.backend


def load(path: str | os.PathLike, *, cli: str | os.PathLike | None = None) -> Result:
    """Read any report (.fscope) through ``fusescope-cli show --json``."""
    exe = _cli.find_cli(cli)
    path = os.path.abspath(os.fspath(path))
    proc = subprocess.run([exe, "show", path, "--json"], capture_output=True, text=True, errors="replace")
    if proc.returncode != 0:
        raise ReportError(_cli.last_lines(proc.stderr) or f"fusescope-cli show exited with {proc.returncode}")
    try:
        summary = json.loads(proc.stdout)
    except ValueError as err:
        raise ReportError(f"fusescope-cli show printed no JSON for {path}: {err}") from err
    return Result(summary, path=path, cli=exe)
