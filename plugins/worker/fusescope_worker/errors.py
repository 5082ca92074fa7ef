"""Failures the worker reports, each carrying a protocol error code (docs/protocol.md)."""
import os
import traceback

# The protocol's error codes, the Python side's one list of them: the same table as
# docs/protocol.md ("Error codes") and ErrorCode in core/model/ErrorCode.h, which
# tests/worker/test_error_codes.py and ErrorCodeTest check. Never write a code as a literal.
BAD_REQUEST = "bad_request"
MODEL_NOT_FOUND = "model_not_found"
MODEL_INVALID = "model_invalid"
MODEL_FAILED = "model_failed"
BACKEND_UNAVAILABLE = "backend_unavailable"
COMPILE_FAILED = "compile_failed"
RUN_FAILED = "run_failed"
INTERNAL = "internal"
# Named by the C++ side for what a worker cannot report itself; never sent by the worker.
WORKER_START_FAILED = "worker_start_failed"
WORKER_CRASHED = "worker_crashed"
WORKER_TIMEOUT = "worker_timeout"
PROTOCOL_ERROR = "protocol_error"
CANCELLED = "cancelled"
BAD_OPTION = "bad_option"

# What the worker may send in an `error` message, and every code, in the table's order.
SENT_BY_WORKER = (BAD_REQUEST, MODEL_NOT_FOUND, MODEL_INVALID, MODEL_FAILED, BACKEND_UNAVAILABLE,
                  COMPILE_FAILED, RUN_FAILED, INTERNAL)
ALL_CODES = SENT_BY_WORKER + (WORKER_START_FAILED, WORKER_CRASHED, WORKER_TIMEOUT, PROTOCOL_ERROR,
                              CANCELLED, BAD_OPTION)
# Errors of the model itself, not of a backend: every backend would fail the same way.
MODEL_ERRORS = frozenset({MODEL_NOT_FOUND, MODEL_INVALID, MODEL_FAILED})


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


class WorkerTerminated(BaseException):
    """The C++ side stopped the worker (SIGTERM on timeout or cancel). A BaseException of its
    own, not SystemExit, so that no handler of model errors mistakes it for the model's
    failure: whatever catches model errors lets it pass."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class ModelExit(Exception):
    """Model code called sys.exit(): raised in place of that SystemExit where the worker calls
    into the model, so the run reports a model error instead of the worker leaving."""

    def __init__(self, where: str, code):
        super().__init__(f"{where} called {exit_call(code)}")
        self.code = code


def exit_call(code) -> str:
    """How the model left: `sys.exit(3)`, `sys.exit('bye')`, `sys.exit()`."""
    return "sys.exit()" if code is None else f"sys.exit({code!r})"


def describe(exc: BaseException) -> str:
    """`ValueError: bad shape`, first line only, so messages stay one line."""
    try:
        text = str(exc).strip().splitlines()
    except Exception:  # a model's exception whose __str__ raises
        text = ["<unprintable message>"]
    if isinstance(exc, ModelExit):
        return text[0]
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def internal(exc: BaseException, *, backend: str | None = None) -> WorkerError:
    error = WorkerError(INTERNAL, f"internal worker error: {describe(exc)}", backend=backend)
    error.__cause__ = exc
    return error


def model_exit(model: str | None, exc: SystemExit) -> WorkerError:
    """A sys.exit() from model code that reached the worker's top level, as a model error."""
    path = None
    if isinstance(model, str) and not model.startswith(("demo:", "hf:")):
        path = os.path.abspath(os.path.expanduser(model))
    what = f"model {path or model}" if model else "the model"
    error = WorkerError(MODEL_FAILED, f"{what}: model code called {exit_call(exc.code)}", file=path)
    error.__cause__ = exc
    return error
