"""A user model file: a .py defining build_model() and example_inputs() (docs/models.md).

example_inputs() returns a tuple or list of positional arguments, or a dict of keyword
arguments for forward(). The file is imported as a real module with its real path, so
Dynamo's graph-break reports and the stages' source lines point into it.
"""
import importlib.util
import itertools
import os
import sys

import torch

from ..errors import MODEL_FAILED, MODEL_INVALID, WorkerError, WorkerTerminated, describe, exit_call
from . import LoadedModel

REQUIRED = ("build_model", "example_inputs")
_module_numbers = itertools.count()


def _import(path: str):
    with open(path, encoding="utf-8", errors="replace") as f:
        if not f.read().strip():
            raise WorkerError(MODEL_INVALID, f"model file {path} is empty: define build_model() and "
                              "example_inputs()", file=path)
    name = f"fusescope_user_model_{next(_module_numbers)}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        where = f"line {exc.lineno}" if os.path.abspath(exc.filename or "") == path else exc.filename
        raise WorkerError(MODEL_INVALID, f"model file {path}: syntax error at {where}: {exc.msg}",
                          file=path) from exc
    except (WorkerTerminated, KeyboardInterrupt):
        raise  # the C++ side stopping the worker (timeout, cancel) is not the model's failure
    except SystemExit as exc:
        raise WorkerError(MODEL_INVALID, f"model file {path}: called {exit_call(exc.code)} at import",
                          file=path) from exc
    except BaseException as exc:
        raise WorkerError(MODEL_INVALID, f"model file {path} failed to import: {describe(exc)}",
                          file=path) from exc
    return module


def as_call(inputs) -> tuple[tuple, dict] | None:
    """(args, kwargs) of one input set as example_inputs() (and calibration_inputs()) may give it:
    a tuple or list of arguments, a dict of keyword arguments, or one tensor; None otherwise."""
    if isinstance(inputs, dict):
        return (), dict(inputs)
    if isinstance(inputs, (tuple, list)):
        return tuple(inputs), {}
    if isinstance(inputs, torch.Tensor):
        return (inputs,), {}
    return None


def load(path: str) -> LoadedModel:
    module = _import(path)
    missing = [name for name in REQUIRED if not callable(getattr(module, name, None))]
    if missing:
        listed = " and ".join(f"{name}()" for name in missing)
        noun = "function" if len(missing) == 1 else "functions"
        raise WorkerError(MODEL_INVALID, f"model file {path}: no {noun} {listed}", file=path)
    try:
        model = module.build_model()
    except SystemExit as exc:
        raise WorkerError(MODEL_FAILED, f"model file {path}: build_model() called {exit_call(exc.code)}",
                          file=path) from exc
    except Exception as exc:
        raise WorkerError(MODEL_FAILED, f"model file {path}: build_model() raised {describe(exc)}",
                          file=path) from exc
    if not isinstance(model, torch.nn.Module):
        raise WorkerError(MODEL_INVALID, f"model file {path}: build_model() returned "
                          f"{type(model).__name__}, expected a torch.nn.Module", file=path)
    try:
        inputs = module.example_inputs()
    except SystemExit as exc:
        raise WorkerError(MODEL_FAILED, f"model file {path}: example_inputs() called {exit_call(exc.code)}",
                          file=path) from exc
    except Exception as exc:
        raise WorkerError(MODEL_FAILED, f"model file {path}: example_inputs() raised {describe(exc)}",
                          file=path) from exc
    call = as_call(inputs)
    if call is None:
        raise WorkerError(MODEL_INVALID, f"model file {path}: example_inputs() returned "
                          f"{type(inputs).__name__}, expected a tuple/list of arguments or a dict of "
                          "keyword arguments", file=path)
    args, kwargs = call
    cls = type(model)
    class_name = cls.__qualname__ if cls.__module__ == module.__name__ else f"{cls.__module__}.{cls.__qualname__}"
    calibration = getattr(module, "calibration_inputs", None)  # optional: int8_static calibrates on it
    return LoadedModel(module=model, args=args, kwargs=kwargs, source=path, file=path, class_name=class_name,
                       calibration=calibration if callable(calibration) else None)
