"""The worker's side of the JSON-lines protocol: one JSON object per line on a private channel
(docs/protocol.md)."""
import fcntl
import json
import math
import os
import re
import resource
import secrets
import sys
import threading

PROTOCOL = "fusescope-worker"
VERSION = 1

# The C++ side's per-process token; every protocol line starts with it (docs/protocol.md).
TOKEN_VARIABLE = "FUSESCOPE_CHANNEL_TOKEN"
_TOKEN_FORM = re.compile(r"[0-9a-fA-F]{16,128}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def take_channel_token() -> str | None:
    """The channel token, removed from the environment before any model code or torch runs, so
    neither they nor the processes they start can read it (os.environ, /proc/self/environ)."""
    token = os.environ.get(TOKEN_VARIABLE)
    if token is None:
        return None
    _scrub_initial_environment(TOKEN_VARIABLE)
    os.environ.pop(TOKEN_VARIABLE, None)
    return token if _TOKEN_FORM.fullmatch(token) else None


def _scrub_initial_environment(name: str) -> None:
    """Overwrite the variable's value where the kernel shows it in /proc/self/environ: unsetenv
    only drops the pointer, the bytes stay in the process's initial stack. Best effort."""
    try:
        import ctypes
        libc = ctypes.CDLL(None)
        environ = ctypes.POINTER(ctypes.c_void_p).in_dll(libc, "environ")
        prefix = name.encode() + b"="
        i = 0
        while environ[i]:
            entry = ctypes.string_at(environ[i])
            if entry.startswith(prefix):
                ctypes.memset(environ[i] + len(prefix), ord("0"), len(entry) - len(prefix))
            i += 1
    except Exception:  # no ctypes or no libc symbol: the token still leaves os.environ
        pass


def _private_descriptor(fd: int) -> int:
    """A close-on-exec duplicate of `fd` at a random number in the upper half of the descriptor
    limit, where model code probing small descriptors (3, 4, ...) does not find it and child
    processes never inherit it."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    high = min(soft if soft != resource.RLIM_INFINITY else 1 << 16, 1 << 16)
    low = max(high // 2, 256)
    if high - low > 1:
        try:
            return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, low + secrets.randbelow(high - low))
        except OSError:  # every descriptor above the start is taken: any free one will do
            pass
    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)


def _finite(value):
    """JSON has no NaN or infinity; a metric that is not a number is reported as null."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _text(value) -> str:
    """`str(value)` for json.dumps, never raising: a model's object may refuse to print."""
    try:
        return str(value)
    except Exception:
        return f"<unprintable {type(value).__name__}>"


def encode_line(line: str) -> bytes:
    """UTF-8 of one protocol line. A lone surrogate (an exception message decoded with
    surrogateescape, a model's own string) cannot be encoded: it becomes U+FFFD."""
    try:
        return line.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", line).encode("utf-8")


class Channel:
    """Owns the protocol stream.

    At construction the real stdout is moved to a private descriptor for protocol lines, and
    descriptor 1 and `sys.stdout` are pointed at stderr. Whatever a library or a child process
    (the C++ compiler Inductor runs, a model's print) writes to stdout then lands in the log the
    C++ side keeps, never in the middle of a protocol line. With a token, every line is
    `<token> <json>`: the C++ side ignores lines without it, so model code that finds the
    descriptor still cannot forge a message.
    """

    def __init__(self, token: str | None = None):
        sys.stdout.flush()
        private = _private_descriptor(1)
        os.dup2(2, 1)
        sys.stdout = sys.stderr
        self._out = os.fdopen(private, "wb")
        self._prefix = f"{token} " if token else ""
        self._lock = threading.Lock()
        self.request_id = None

    @property
    def descriptor(self) -> int:
        return self._out.fileno()

    def send(self, type_: str, **fields) -> None:
        message = {"type": type_}
        if self.request_id is not None:
            message["id"] = self.request_id
        message.update(fields)
        line = json.dumps(_finite(message), separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False, default=_text)
        data = encode_line(self._prefix + line + "\n")
        with self._lock:
            self._out.write(data)
            self._out.flush()

    def progress(self, phase: str, fraction: float, message: str) -> None:
        self.send("progress", phase=phase, fraction=round(min(max(fraction, 0.0), 1.0), 4), message=message)

    def error(self, fields: dict) -> None:
        self.send("error", **fields)

    def bye(self) -> None:
        self.send("bye")
