"""The exceptions and warnings of the fusescope package (docs/python.md, "Errors")."""

from __future__ import annotations


class FuseScopeError(Exception):
    """Base class: something fusescope could not do. The message says what and what to do."""


class CliNotFoundError(FuseScopeError, FileNotFoundError):
    """fusescope-cli is neither at FUSESCOPE_CLI nor on PATH (nor the GUI, for Result.open())."""


class UsageError(FuseScopeError, ValueError):
    """fusescope-cli refused the options before anything ran (its exit code 64)."""


class SerializationError(FuseScopeError, TypeError):
    """The model, its inputs or calibration inputs could not be pickled for the worker process."""


class ReportError(FuseScopeError):
    """A report could not be read, or a run's report could not be written."""


class BackendError(FuseScopeError):
    """A backend failed (every one of them, or any one with ``strict=True``).

    ``backend`` and ``code`` name the first failure (``code`` is the worker's error code, e.g.
    ``model_failed``, ``compile_failed``, ``worker_timeout``); ``failures`` lists every failed row as
    ``(backend, code, message)``; ``result`` is the Result with everything that was measured.
    """

    def __init__(self, failures, result):
        self.failures = list(failures)
        self.result = result
        self.backend, self.code, self.message = self.failures[0]
        lines = [f"{b}: {m}" if m and c and m.startswith(c + ":") else f"{b}: {c or 'failed'}: {m or '(no message)'}"
                 for b, c, m in self.failures]
        super().__init__("\n".join(lines) + (f"\nreport: {result.path}" if result is not None and result.path else ""))


class FuseScopeWarning(UserWarning):
    """A backend failed or was unavailable while others ran, or the run was interrupted."""
