"""Failures the worker reports, each carrying a protocol error code (docs/protocol.md)."""
import traceback

BAD_REQUEST = "bad_request"
MODEL_NOT_FOUND = "model_not_found"
MODEL_INVALID = "model_invalid"
MODEL_FAILED = "model_failed"
BACKEND_UNAVAILABLE = "backend_unavailable"
COMPILE_FAILED = "compile_failed"
RUN_FAILED = "run_failed"
INTERNAL = "internal"


class WorkerError(Exception):
    """An error with a one-line message a user understands, the file or backend it concerns,
    and the protocol code the C++ side maps to its own error enum."""

    def __init__(self, code: str, message: str, *, file: str | None = None, backend: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.file = file
        self.backend = backend

    def fields(self) -> dict:
        """The `error` message body; the traceback is the one of the exception that caused this
        error (raise ... from exc), since that is where the user's problem is."""
        cause = self.__cause__ or self
        tb = "".join(traceback.format_exception(type(cause), cause, cause.__traceback__))
        return {"code": self.code, "message": self.message, "file": self.file,
                "backend": self.backend, "traceback": tb}


def describe(exc: BaseException) -> str:
    """`ValueError: bad shape`, first line only, so messages stay one line."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def internal(exc: BaseException, *, backend: str | None = None) -> WorkerError:
    error = WorkerError(INTERNAL, f"internal worker error: {describe(exc)}", backend=backend)
    error.__cause__ = exc
    return error
