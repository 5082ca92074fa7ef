"""ctypes binding of libfusescope_cupti, FuseScope's own CUPTI tracer (docs/cupti-tracer.md).

The library is found at $FUSESCOPE_CUPTI_LIB, else next to the fusescope_worker package
(share/fusescope/worker/libfusescope_cupti.so once installed). Its chunks stream to the app as
protocol `trace` messages while the run goes on (docs/protocol.md, "Traces").

torch is imported only inside functions: the package must not load it at import time.
"""
import ctypes
import json
import os
import pathlib
import sys

LIBRARY_NAME = "libfusescope_cupti.so"

KIND_KERNEL = 1 << 0
KIND_MEMCPY = 1 << 1
KIND_MEMSET = 1 << 2
KIND_MEMORY = 1 << 3
KIND_RUNTIME = 1 << 4
KIND_DRIVER = 1 << 5
KIND_OVERHEAD = 1 << 6
KIND_ALL = (1 << 7) - 1

OK, ERROR, ERROR_IN_USE, ERROR_NO_DRIVER = 0, 1, 2, 3

IN_USE_REASON = "CUPTI already in use (the PyTorch profiler is tracing CUDA)"
NOT_BUILT_REASON = f"{LIBRARY_NAME} not built (CUDA toolkit with CUPTI not found at build time)"


class CuptiError(RuntimeError):
    """The tracer could not start or stop; `code` is one of the ERROR_* values."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


class _Config(ctypes.Structure):
    _fields_ = [("kinds", ctypes.c_uint32), ("buffer_bytes", ctypes.c_uint64),
                ("max_total_bytes", ctypes.c_uint64)]


_SINK = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_char), ctypes.c_size_t, ctypes.c_void_p)
_library = None


def library_path():
    """Where the library is expected: $FUSESCOPE_CUPTI_LIB or next to the worker package."""
    explicit = os.environ.get("FUSESCOPE_CUPTI_LIB")
    if explicit:
        return pathlib.Path(explicit)
    return pathlib.Path(__file__).resolve().parents[2] / LIBRARY_NAME


def _load():
    """The loaded library; raises CuptiError(ERROR) with the reason when it cannot be loaded."""
    global _library
    if _library is not None:
        return _library
    path = library_path()
    if not path.is_file():
        raise CuptiError(ERROR, NOT_BUILT_REASON + f"; looked for {path}, set FUSESCOPE_CUPTI_LIB to override")
    try:
        # CDLL, not PyDLL: calls release the GIL, so CUPTI's thread can run the sink (which
        # needs the GIL) while this thread waits in fscupti_flush or fscupti_stop.
        lib = ctypes.CDLL(str(path))
    except OSError as exc:
        raise CuptiError(ERROR, f"{LIBRARY_NAME} could not be loaded: {exc}") from exc
    lib.fscupti_set_sink.argtypes = [_SINK, ctypes.c_void_p]
    lib.fscupti_set_sink.restype = None
    lib.fscupti_start.argtypes = [ctypes.POINTER(_Config)]
    lib.fscupti_start.restype = ctypes.c_int
    lib.fscupti_begin_iteration.argtypes = [ctypes.c_int]
    lib.fscupti_begin_iteration.restype = ctypes.c_int
    for name in ("fscupti_flush", "fscupti_stop"):
        getattr(lib, name).argtypes = []
        getattr(lib, name).restype = ctypes.c_int
    lib.fscupti_dropped.argtypes = []
    lib.fscupti_dropped.restype = ctypes.c_uint64
    lib.fscupti_last_error.argtypes = []
    lib.fscupti_last_error.restype = ctypes.c_char_p
    _library = lib
    return lib


def _last_error(lib) -> str:
    return (lib.fscupti_last_error() or b"").decode("utf-8", "replace")


def _pytorch_profiler_active() -> bool:
    try:
        import torch
        return bool(torch.autograd.profiler._is_profiler_enabled)
    except (ImportError, AttributeError):
        return False


def cupti_availability():
    """(available, reason): whether CuptiTrace can run in this process, and if not, why."""
    try:
        _load()
    except CuptiError as exc:
        return False, str(exc)
    try:
        import torch
    except ImportError:
        return False, "no CUDA device (torch is not installed)"
    if not torch.cuda.is_available():
        return False, "no CUDA device"
    if _pytorch_profiler_active():
        return False, IN_USE_REASON
    return True, ""


class CuptiTrace:
    """Traces CUDA activity for the duration of a `with` block.

    Each chunk the tracer completes is sent as `channel_send("trace", **chunk)` (the Channel adds
    "type" and "id"), from CUPTI's thread while the block runs and from this thread at the end.
    Call `begin_iteration(i)` after synchronising the device at the start of each traced
    iteration. After the block, `dropped` holds the records CUPTI lost.
    """

    def __init__(self, channel_send, kinds: int = KIND_ALL, buffer_bytes: int = 0, max_total_bytes: int = 0):
        self._send = channel_send
        self._config = _Config(kinds, buffer_bytes, max_total_bytes)
        self._sink = _SINK(self._on_chunk)  # kept alive while the library holds it
        self._sink_error = None
        self._lib = None
        self.dropped = 0
        self.chunks = 0

    def _on_chunk(self, data, length, _user):
        # An exception must not escape into C (ctypes would only print it); keep the first.
        try:
            chunk = json.loads(ctypes.string_at(data, length).decode("utf-8"))
            self.chunks += 1
            self._send("trace", **chunk)
        except Exception as exc:  # any exception: kept, and re-raised at exit
            if self._sink_error is None:
                self._sink_error = exc

    def __enter__(self):
        self._lib = _load()
        self._lib.fscupti_set_sink(self._sink, None)
        code = self._lib.fscupti_start(ctypes.byref(self._config))
        if code != OK:
            message = _last_error(self._lib)
            self._lib.fscupti_set_sink(_SINK(), None)
            if code == ERROR_IN_USE:
                message = f"{IN_USE_REASON}: {message}"
            raise CuptiError(code, message)
        return self

    def begin_iteration(self, iteration: int) -> None:
        if self._lib.fscupti_begin_iteration(iteration) != OK:
            raise CuptiError(ERROR, _last_error(self._lib))

    def flush(self) -> None:
        """Sends every record CUPTI holds now, without waiting for its buffers to fill."""
        if self._lib.fscupti_flush() != OK:
            raise CuptiError(ERROR, _last_error(self._lib))

    def __exit__(self, exc_type, exc, tb):
        code = self._lib.fscupti_stop()
        self.dropped = int(self._lib.fscupti_dropped())
        self._lib.fscupti_set_sink(_SINK(), None)
        if self.dropped:
            # The chunks carry the count for the app; the log says what to change.
            print(f"CUPTI dropped {self.dropped} records: raise max_total_bytes or trace fewer iterations",
                  file=sys.stderr)
        if exc_type is not None:
            return False
        if self._sink_error is not None:
            raise self._sink_error
        if code != OK:
            raise CuptiError(code, _last_error(self._lib))
        return False
