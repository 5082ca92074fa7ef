"""FuseScope from Python: which torch.compile backend should this model use, and why.

``compare(model, example_inputs, backends=[...])`` measures a model in memory with fusescope-cli's
engine (every backend in its own worker process) and returns a ``Result``; ``load(path)`` reads
any report. docs/python.md has the whole story.
"""

from ._compare import OPTIONS, compare
from ._result import Advice, BackendResult, Recommendation, Result, RunWarning, load
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
    "UsageError",
    "compare",
    "load",
]
