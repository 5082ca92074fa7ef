"""FuseScope from Python: which torch.compile backend should this model use, and why.

``compare(model, example_inputs, backends=[...])`` measures a model in memory with fusescope-cli's
engine (every backend in its own worker process) and returns a ``Result``; ``tune(model,
example_inputs, budget=300)`` races backends, modes and options within a budget and returns the
best setting with its torch.compile call (a ``TuneResult``); ``load(path)`` reads any report.
docs/python.md has the whole story.
"""

from ._compare import OPTIONS, compare
from ._result import Advice, BackendResult, Recommendation, Result, RunWarning, load
from ._tune import TUNE_OPTIONS, TuneResult, tune
from .errors import (
    BackendError,
    CliNotFoundError,
    FuseScopeError,
    FuseScopeWarning,
    ReportError,
    SerializationError,
    UsageError,
)

__version__ = "0.1.0"

__all__ = [
    "OPTIONS",
    "Advice",
    "BackendError",
    "BackendResult",
    "CliNotFoundError",
    "FuseScopeError",
    "FuseScopeWarning",
    "Recommendation",
    "ReportError",
    "Result",
    "RunWarning",
    "SerializationError",
    "TUNE_OPTIONS",
    "TuneResult",
    "UsageError",
    "compare",
    "load",
    "tune",
]
