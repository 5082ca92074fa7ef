"""tune(): fusescope-cli tune from a script or a notebook (docs/tuning.md, docs/python.md).

The model travels as for compare() (a model in memory is pickled beside a small model file; a path
or a ``demo:`` name as given); ``fusescope-cli tune`` races the search space within the budget and
prints ``{"tuning": ...}``, which TuneResult reads.
"""

from __future__ import annotations

import html
import json
import os
import pathlib
import warnings

from . import _cli
from ._compare import OPTIONS, _default_out, call_cli, model_target, option_args, python_args
from ._result import Result, load
from .errors import FuseScopeError, FuseScopeWarning, ReportError, UsageError

# tune()'s keyword options: those of compare()'s that fusescope-cli tune takes too (docs/cli.md).
TUNE_OPTIONS: dict[str, tuple[str, str]] = {
    name: OPTIONS[name]
    for name in ("device", "timeout", "mode", "inputs", "trace", "warmup", "min_runs", "min_time", "max_runs",
                 "max_time", "confidence", "settle", "threads", "pin", "malloc")
}


class TuneResult:
    """What tune() found: ``best`` (the entry, as ``backends=`` takes it, or None), ``snippet`` (the
    torch.compile call to paste), ``speedup`` and ``speedup_ci95`` over eager, ``runners_up`` (not
    separated from the best), ``pareto``, ``candidates`` and ``advice_outcomes`` (dicts, as in the
    JSON of docs/tuning.md), ``verdict``, ``stopped_by``, ``path`` (the report) and ``report`` (it,
    loaded as a Result). ``tuning`` is the whole ``tuning`` object."""

    def __init__(self, tuning: dict, path: str | None, interrupted: bool, cli: str | None = None):
        self.tuning = tuning
        self.path = path
        self.interrupted = interrupted
        self._cli = cli
        self._report: Result | None = None
        best = tuning.get("best") or {}
        self.best: str | None = best.get("entry")
        self.snippet: str | None = best.get("snippet")
        self.speedup: float | None = best.get("speedup")
        ci = best.get("speedup_ci95")
        self.speedup_ci95: tuple[float, float] | None = tuple(ci) if ci else None
        self.runners_up: list[str] = list(tuning.get("runners_up") or [])
        self.pareto: list[str] = list(tuning.get("pareto") or [])
        self.candidates: list[dict] = list(tuning.get("candidates") or [])
        self.advice_outcomes: list[dict] = list(tuning.get("advice_outcomes") or [])
        self.verdict: str = tuning.get("verdict") or ""
        self.stopped_by: str | None = tuning.get("stopped_by")
        self.budget_s: float | None = tuning.get("budget_s")
        self.elapsed_s: float | None = tuning.get("elapsed_s")
        self.goal: str | None = tuning.get("goal")

    @property
    def report(self) -> Result:
        """The report every candidate's row is in (graphs, samples, traces), as compare() returns it."""
        if self._report is None:
            if not self.path:
                raise ReportError("this tuning wrote no report")
            self._report = load(self.path, cli=self._cli)
        return self._report

    def __repr__(self) -> str:
        measured = sum(c.get("status") != "pending" for c in self.candidates)
        return (f"<TuneResult best={self.best!r} ({measured} of {len(self.candidates)} candidates measured, "
                f"stopped by {self.stopped_by})>")

    def __str__(self) -> str:
        return self.verdict + (f"\n{self.snippet}" if self.snippet else "")

    _HEADER = ("entry", "origin", "status", "speedup", "95 % CI", "compile s", "rounds", "dropped")

    def _repr_html_(self) -> str:
        """In a notebook: the verdict, the snippet and every candidate (all text escaped)."""
        e = html.escape

        def num(value, digits=2):
            return f"{value:.{digits}f}" if isinstance(value, (int, float)) else ""

        body = ""
        for c in self.candidates:
            ci = c.get("speedup_ci95") or ()
            cells = (c.get("entry"), c.get("origin"), c.get("status"), num(c.get("speedup")),
                     f"{num(ci[0])}-{num(ci[1])}" if len(ci) == 2 else "", num(c.get("compile_s"), 1),
                     c.get("rounds", ""), c.get("dropped") or "")
            style = ' style="font-weight:bold"' if c.get("entry") == self.best else ""
            body += f"<tr{style}>" + "".join(f"<td>{e(str(x if x is not None else ''))}</td>" for x in cells) + "</tr>"
        head = "".join(f"<th>{e(h)}</th>" for h in self._HEADER)
        parts = ['<div class="fusescope-tuning">', f"<p>{e(self.verdict)}"
                 + (" <i>(interrupted)</i>" if self.interrupted else "") + "</p>"]
        if self.snippet:
            parts.append(f"<pre>{e(self.snippet)}</pre>")
        parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        if self.path:
            parts.append(f"<p>report: <code>{e(self.path)}</code></p>")
        return "".join(parts) + "</div>"


def tune(
    model,
    example_inputs=None,
    *,
    budget,
    goal: str | None = None,
    space=None,
    out=None,
    calibration_inputs=None,
    progress: bool = True,
    python=None,
    cli=None,
    **options,
) -> TuneResult:
    """Race backends, modes and options on ``model`` within ``budget`` and return the best setting.

    ``model`` and ``example_inputs`` as for compare(). ``budget``: seconds (a number) or a duration
    the CLI takes (``"5m"``, ``"1h"``); the tuning ends within it. ``goal``: latency (default),
    throughput, memory or compile. ``space``: a TOML space file's path (docs/tuning.md, "Space files").
    ``out``: the report (default a new file under ~/.cache/fusescope/reports). Other options are
    the CLI's, by Python name (``threads=1``, ``mode="training"``, ...; ``TUNE_OPTIONS`` lists them).

    Returns a TuneResult whose ``best`` is None when no candidate ran and passed accuracy (with a
    FuseScopeWarning). Ctrl+C stops the tuning and returns what was measured, ``interrupted`` set.
    Raises UsageError for a budget, goal or space file the CLI refuses, ReportError when the report
    cannot be written.
    """
    exe = _cli.find_cli(cli)
    if isinstance(budget, bool) or not isinstance(budget, (int, float, str)):
        raise TypeError(f"tune(): budget takes seconds or a duration such as '5m', not {budget!r}")
    extra = option_args(options, TUNE_OPTIONS, "tune")
    with model_target(model, example_inputs, calibration_inputs, python, "tune") as (target, name):
        report = pathlib.Path(os.path.abspath(os.fspath(out))) if out is not None else _default_out(name)
        command = [exe, "tune", target, "--budget", str(budget), "--json", "--progress-json", "--out", str(report)]
        command += python_args(python)
        if goal is not None:
            command += ["--goal", str(goal)]
        if space is not None:
            command += ["--space", os.path.abspath(os.fspath(space))]
        command += extra
        code, stdout, stderr_text, interrupted = call_cli(command, 1, progress, "run")
    if code == 64:
        raise UsageError(_cli.last_lines(stderr_text) or "fusescope-cli tune refused the options")
    try:
        tuning = (json.loads(stdout) if stdout.strip() else {}).get("tuning")
    except (ValueError, AttributeError):
        tuning = None
    if tuning is None and interrupted:
        raise KeyboardInterrupt  # the CLI ended before it could handle the interrupt (still starting)
    if code not in (0, 1, 3, 4) or not isinstance(tuning, dict):
        raise FuseScopeError(f"fusescope-cli tune exited with {code} without a tuning:\n{_cli.last_lines(stderr_text)}")
    result = TuneResult(tuning, str(report) if report.exists() else None, code == 4, exe)
    if code == 1:
        error = ReportError(_cli.last_lines(stderr_text) or f"the report could not be written to {report}")
        error.result = result
        raise error
    if result.best is None:
        warnings.warn(f"no best setting: {result.verdict}", FuseScopeWarning, stacklevel=2)
    if result.interrupted:
        warnings.warn("interrupted: the tuning kept what it measured" + (f", saved to {result.path}" if result.path
                                                                          else ""), FuseScopeWarning, stacklevel=2)
    return result
