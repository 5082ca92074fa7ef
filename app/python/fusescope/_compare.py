"""compare(): the model and inputs in memory, measured by fusescope-cli's engine.

The model and its inputs are pickled with cloudpickle (classes and functions of ``__main__`` or a
notebook cell by value, everything importable by reference) next to a small model file that
unpickles them; ``fusescope-cli compare`` runs that file with ``--python`` set to this interpreter,
so every backend still runs in its own worker process, in this environment (docs/python.md).
"""

from __future__ import annotations

import collections.abc
import contextlib
import datetime
import json
import os
import pathlib
import pickle
import re
import shutil
import signal
import site
import subprocess
import sys
import sysconfig
import tempfile
import threading
import warnings

from . import _cli
from ._progress import Progress
from ._result import Result
from .errors import BackendError, FuseScopeError, FuseScopeWarning, ReportError, SerializationError, UsageError

# compare()'s keyword options: fusescope-cli compare's own, by Python name (docs/cli.md). The
# kind says how a value becomes arguments: "value" passes str(value); "flag" adds the option when
# true; "tristate" takes True/False/"auto"; "cpus" takes "0-1" or a list of CPU numbers; "shapes" a
# list of input specs joined by ";"; "assign" a {submodule: backend} dict; "config" a
# {key: value} dict, one --inductor-config KEY=VALUE each.
OPTIONS: dict[str, tuple[str, str]] = {
    "device": ("--device", "value"),
    "timeout": ("--timeout", "value"),
    "compile_mode": ("--compile-mode", "value"),
    "mode": ("--mode", "value"),
    "precision": ("--precision", "value"),
    "goal": ("--goal", "value"),
    "compile_budget": ("--compile-budget", "value"),
    "fullgraph": ("--fullgraph", "flag"),
    "dynamic": ("--dynamic", "tristate"),
    "inductor_config": ("--inductor-config", "config"),
    "warmup": ("--warmup", "value"),
    "min_runs": ("--min-runs", "value"),
    "min_time": ("--min-time", "value"),
    "max_runs": ("--max-runs", "value"),
    "max_time": ("--max-time", "value"),
    "confidence": ("--confidence", "value"),
    "settle": ("--settle", "value"),
    "threads": ("--threads", "value"),
    "pin": ("--pin", "cpus"),
    "malloc": ("--malloc", "value"),
    "warm_cache": ("--warm-cache", "flag"),
    "no_stages": ("--no-stages", "flag"),
    "trace": ("--trace", "flag"),
    "measure_roofs": ("--measure-roofs", "flag"),  # with trace: the roofs again (docs/roofline.md)
    "no_roofs": ("--no-roofs", "flag"),
    "bisect": ("--bisect", "flag"),
    "bisect_budget": ("--bisect-budget", "value"),
    "inputs": ("--inputs", "value"),
    "shapes": ("--shapes", "shapes"),
    "assign": ("--assign", "assign"),
    "search_assign": ("--search-assign", "flag"),
}


def option_args(options: dict, known: dict | None = None, caller: str = "compare") -> list[str]:
    """The CLI arguments of keyword options, `known` (default OPTIONS) naming those `caller` takes."""
    known = OPTIONS if known is None else known
    args: list[str] = []
    for name, value in options.items():
        if name not in known:
            raise TypeError(f"{caller}() got an unknown option {name!r}; the options are: {', '.join(sorted(known))}")
        flag, kind = known[name]
        if value is None:
            continue
        if kind == "flag":
            if not isinstance(value, bool):
                raise TypeError(f"{caller}(): {name} takes True or False, not {value!r}")
            if value:
                args.append(flag)
        elif kind == "tristate":
            text = {True: "true", False: "false"}.get(value, value) if isinstance(value, bool) else str(value)
            args += [flag, text]
        elif kind == "cpus":
            args += [flag, ",".join(map(str, value)) if isinstance(value, (list, tuple, set, range)) else str(value)]
        elif kind == "shapes":
            args += [flag, ";".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)]
        elif kind == "assign":
            if isinstance(value, dict):
                value = ",".join(f"{module}={backend}" for module, backend in value.items())
            args += [flag, str(value)]
        elif kind == "config":
            if not isinstance(value, dict):
                raise TypeError(f"{caller}(): {name} takes a dict of Inductor options, not {type(value).__name__}")
            for key, item in value.items():
                args += [flag, f"{key}={json.dumps(item)}"]  # the CLI reads VALUE as JSON
        else:
            args += [flag, str(value)]
    return args


_LOADER = '''\
# Written by fusescope.compare() for one comparison and removed after it: it hands the worker the
# model and inputs the caller had in memory (pickled with cloudpickle beside this file). Each call
# unpickles a fresh copy, as a build_model() would build one.
import pathlib
import pickle

_HERE = pathlib.Path(__file__).resolve().parent


def _load(name):
    with open(_HERE / name, "rb") as f:
        return pickle.load(f)


def build_model():
    return _load("model.pkl")


def example_inputs():
    return _load("inputs.pkl")
'''

_CALIBRATION = '''

def calibration_inputs():
    return _load("calibration.pkl")
'''


def _describe(obj) -> str:
    kind = type(obj)
    return f"{kind.__module__}.{kind.__qualname__}"


def _serialise(directory: pathlib.Path, what: str, obj) -> None:
    try:
        import cloudpickle
    except ImportError as err:  # a declared dependency; only a broken install lacks it
        raise FuseScopeError("fusescope.compare needs cloudpickle: pip install cloudpickle") from err
    try:
        with open(directory / f"{what}.pkl", "wb") as f:
            cloudpickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as err:
        raise SerializationError(
            f"the {what} ({_describe(obj)}) could not be serialised for the worker process: "
            f"{type(err).__name__}: {err}. Every backend runs in a process of its own, so the {what} is pickled "
            "with cloudpickle (classes and functions defined in __main__ or a notebook are sent by value). "
            "Objects holding open files, locks, sockets, threads, generators or CUDA streams cannot be: keep them "
            "out of the model, or write a model file with build_model() and example_inputs() and pass its path: "
            "fusescope.compare('model.py', backends=[...])"
        ) from err


def _is_tensor(value) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def _forward_arguments(value, what: str):
    """The forms the worker takes (docs/models.md): a tuple or list of positional arguments, a dict
    of keyword arguments, or one tensor. Any other mapping (a tokenizer's BatchEncoding) becomes a
    dict; anything else is refused here rather than failing every backend in its worker."""
    if value is None:
        raise TypeError(f"compare(): pass the model's {what} (a tuple of forward arguments)")
    if isinstance(value, (tuple, list, dict)) or _is_tensor(value):
        return value
    if isinstance(value, collections.abc.Mapping):
        return dict(value)
    raise TypeError(
        f"compare(): {what} is a {type(value).__name__}: pass a tuple or list of positional arguments, "
        "a dict of keyword arguments, or one tensor"
    )


def _calibration_sets(value) -> list:
    """An iterable of input sets, each in a form example_inputs takes."""
    if _is_tensor(value) or isinstance(value, (dict, collections.abc.Mapping)):
        raise TypeError(
            "compare(): calibration_inputs is an iterable of input sets (e.g. [(x1,), (x2,)]), "
            f"not one {type(value).__name__}"
        )
    try:
        return [_forward_arguments(one, "each calibration input set") for one in value]
    except TypeError as err:
        raise TypeError(f"{err} (calibration_inputs is an iterable of input sets, e.g. [(x1,), (x2,)])") from None


def _check_same_python(python: str) -> None:
    """Classes of __main__ travel as code, which only another interpreter of the same Python
    version loads, and unpickling needs cloudpickle there."""
    try:
        probe = subprocess.run(
            [python, "-c", "import sys, cloudpickle; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True, text=True, timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise UsageError(f"python={python!r} could not be run: {err}") from err
    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if probe.returncode != 0:
        last = _cli.last_lines(probe.stderr, 1)
        raise UsageError(f"python={python!r} cannot unpickle the model: {last} (it needs cloudpickle: "
                         f"{python} -m pip install cloudpickle)")
    if probe.stdout.strip() != here:
        raise UsageError(f"python={python!r} is Python {probe.stdout.strip()}, this one is {here}: the model's "
                         "pickled code only loads in the same Python version")


def _model_name(model) -> str:
    name = re.sub(r"\W", "_", type(model).__name__) or "model"
    return name if name[0].isalpha() else f"model_{name}"


def _default_out(name: str) -> pathlib.Path:
    cache = pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache") / "fusescope" / "reports"
    cache.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    return cache / f"{name}-{stamp}.fscope"


def _worker_pythonpath() -> str:
    """This interpreter's own import directories (the script's folder, the working directory where
    sys.path has it, PYTHONPATH's), so classes pickled by reference import in the worker as they do
    here. The interpreter's standard library and site-packages are left out: the worker's
    interpreter has its own."""
    own = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        if sysconfig.get_paths().get(key):
            own.add(os.path.realpath(sysconfig.get_paths()[key]))
    try:
        own.update(os.path.realpath(p) for p in site.getsitepackages())
    except AttributeError:  # some embedded interpreters lack it
        pass
    own.add(os.path.realpath(site.getusersitepackages()))
    own.update(os.path.join(p, "lib-dynload") for p in list(own))
    entries = []
    for entry in sys.path:
        path = os.path.realpath(entry or os.getcwd())
        if not os.path.isdir(path) or path in own or path in entries:
            continue
        entries.append(path)
    existing = os.environ.get("PYTHONPATH", "")
    return os.pathsep.join(entries + ([existing] if existing else []))


def compare(
    model,
    example_inputs=None,
    backends=None,
    *,
    out=None,
    calibration_inputs=None,
    progress: bool = True,
    strict: bool = False,
    python=None,
    cli=None,
    **options,
) -> Result:
    """Compile and measure ``model`` on ``example_inputs`` with each backend; returns the Result.

    ``model`` is an ``nn.Module`` in memory (its weights as they are now), or a model the CLI takes
    by name: a model file's path, a TorchScript file or ``demo:...`` / ``hf:...`` (then no inputs).
    ``example_inputs``: the forward arguments, a tuple/list of positional ones, a dict of keyword
    ones, or one tensor. ``backends``: entries as ``--backends`` takes them (``"inductor@max-autotune"``,
    ``"inductor{precision=int8_dynamic}"``); default eager, aot_eager, inductor. ``out``: the report
    to write (default a new file under ~/.cache/fusescope/reports). Other options are the CLI's,
    by Python name (``mode="training"``, ``precision="bf16"``, ``trace=True``, ``threads=1``,
    ``goal="compile"``, ``inductor_config={"epilogue_fusion": False}``, ...; ``OPTIONS`` lists them).

    Raises BackendError when no backend ran (or any failed, with ``strict=True``); otherwise a
    failed or unavailable backend is a FuseScopeWarning and its row says why. Ctrl+C (a notebook's
    interrupt) stops the backend in progress and returns what finished, ``interrupted`` set.
    """
    exe = _cli.find_cli(cli)
    extra_args = option_args(options)
    if isinstance(backends, str):
        backends = [b for b in backends.split(",") if b]
    with model_target(model, example_inputs, calibration_inputs, python, "compare") as (target, name):
        report = pathlib.Path(os.path.abspath(os.fspath(out))) if out is not None else _default_out(name)
        command = [exe, "compare", target, "--json", "--progress-json", "--out", str(report)]
        command += python_args(python)
        if backends:
            command += ["--backends", ",".join(backends)]
        command += extra_args
        return _run(command, report, len(backends) if backends else 3, progress, strict, exe)


def python_args(python) -> list[str]:
    """--python for the CLI: the interpreter given, else this one (a bare name is looked up on PATH)."""
    chosen = os.fspath(python) if python else sys.executable
    return ["--python", os.path.abspath(chosen) if os.sep in chosen else chosen]


@contextlib.contextmanager
def model_target(model, example_inputs, calibration_inputs, python, caller: str):
    """(the model as the CLI takes it, a name for its report): a path or name as given, or a model
    in memory pickled beside a small model file in a scratch folder removed afterwards."""
    scratch = None
    try:
        if isinstance(model, (str, os.PathLike)):
            if example_inputs is not None or calibration_inputs is not None:
                raise TypeError(f"{caller}(): a model given by path or name brings its own inputs; pass no inputs")
            target = os.fspath(model)
            if not target.startswith(("demo:", "hf:")):
                target = os.path.abspath(os.path.expanduser(target))
            name = re.sub(r"\W", "_", pathlib.Path(target.split(":")[-1]).stem) or "model"
        else:
            example_inputs = _forward_arguments(example_inputs, "example_inputs")
            if calibration_inputs is not None:
                calibration_inputs = _calibration_sets(calibration_inputs)
            if python:
                _check_same_python(os.fspath(python))
            name = _model_name(model)
            scratch = pathlib.Path(tempfile.mkdtemp(prefix="fusescope-model-"))
            _serialise(scratch, "model", model)
            _serialise(scratch, "inputs", example_inputs)
            loader = _LOADER
            if calibration_inputs is not None:
                _serialise(scratch, "calibration", calibration_inputs)
                loader += _CALIBRATION
            target = str(scratch / f"{name}.py")
            pathlib.Path(target).write_text(loader)
        yield target, name
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def _with_code(code, message) -> str:
    """'code: message', once: the summary's error may already start with its code."""
    message = message or ""
    code = code or "failed"
    return message if message.startswith(code + ":") else f"{code}: {message}".rstrip(": ")


def _stop(proc: subprocess.Popen) -> None:
    """Stops the CLI and its worker: SIGTERM first (the CLI cancels, which stops the worker's process
    group, and saves), SIGKILL only if that has not ended it within 10 s. A SIGKILLed CLI would
    leave its worker running."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def call_cli(command: list[str], count: int, show_progress: bool, unit: str = "backend"):
    """Runs the CLI with its progress drawn, Ctrl+C handed to it once (a second stops it now).
    Returns (exit code, stdout, stderr without the progress lines, interrupted)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = _worker_pythonpath()
    bar = Progress(count, show_progress, unit)  # before the CLI starts: tqdm's import may take a while
    stderr_lines: list[str] = []
    stdout_chunks: list[bytes] = []
    proc = None
    interrupted = False
    code = None
    try:
        # A session of its own: a terminal's Ctrl+C reaches only this interpreter, which hands the
        # CLI exactly one SIGINT (stop the backend in progress, save, exit 4).
        proc = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
        )

        def read_stderr():
            for raw in proc.stderr:
                line = raw.decode("utf-8", "replace").rstrip("\n")
                if line.startswith('{"'):
                    try:
                        event = json.loads(line)
                    except ValueError:
                        event = None
                    if isinstance(event, dict) and "event" in event:
                        bar.event(event)
                        continue
                stderr_lines.append(line)

        readers = [
            threading.Thread(target=read_stderr, daemon=True),
            threading.Thread(target=lambda: stdout_chunks.append(proc.stdout.read()), daemon=True),
        ]
        for reader in readers:
            reader.start()
        while code is None:
            try:
                code = proc.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                continue
            except KeyboardInterrupt:
                if interrupted:  # a second Ctrl+C: stop now, the worker too
                    _stop(proc)
                    raise
                interrupted = True
                proc.send_signal(signal.SIGINT)
        for reader in readers:
            reader.join(timeout=5)
    finally:
        if proc is not None:
            _stop(proc)  # only while it still runs: an exception of ours, not the CLI's end
            for stream in (proc.stdout, proc.stderr):
                stream.close()
        bar.close()

    return code, b"".join(stdout_chunks).decode("utf-8", "replace"), "\n".join(stderr_lines), interrupted


def _run(
    command: list[str], report: pathlib.Path, count: int, show_progress: bool, strict: bool, cli: str
) -> Result:
    code, stdout, stderr_text, interrupted = call_cli(command, count, show_progress)
    if code == 64:
        raise UsageError(_cli.last_lines(stderr_text) or "fusescope-cli refused the options")
    try:
        summary = json.loads(stdout) if stdout.strip() else None
    except ValueError:
        summary = None
    if summary is None and interrupted:
        raise KeyboardInterrupt  # the CLI ended before it could handle the interrupt (still starting)
    if code not in (0, 1, 2, 3, 4) or summary is None:
        raise FuseScopeError(
            f"fusescope-cli compare exited with {code} without a summary:\n{_cli.last_lines(stderr_text)}"
        )
    result = Result(summary, path=str(report) if report.exists() else None, interrupted=(code == 4), cli=cli)
    if code == 1:
        error = ReportError(_cli.last_lines(stderr_text) or f"the report could not be written to {report}")
        error.result = result
        raise error
    failures = [(r.name, r.error_code, r.error) for r in result.backends if not r.ok and r.error_code != "cancelled"]
    if failures and (result.completion == "failed" and not result.interrupted or strict):
        raise BackendError(failures, result)
    for name, error_code, message in failures:
        warnings.warn(f"{name}: {_with_code(error_code, message)}", FuseScopeWarning, stacklevel=3)
    if result.interrupted:
        done = sum(1 for r in result.backends if r.error_code != "cancelled")
        warnings.warn(
            f"interrupted: {done} backend row(s) finished" + (f", saved to {result.path}" if result.path else ""),
            FuseScopeWarning,
            stacklevel=3,
        )
    return result
