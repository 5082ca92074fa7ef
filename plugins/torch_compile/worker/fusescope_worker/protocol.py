"""The worker's side of the JSON-lines protocol: one JSON object per stdout line (docs/protocol.md)."""
import json
import math
import os
import sys
import threading

PROTOCOL = "fusescope-worker"
VERSION = 1


def _finite(value):
    """JSON has no NaN or infinity; a metric that is not a number is reported as null."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


class Channel:
    """Owns the protocol stream.

    At construction the real stdout is duplicated to a private descriptor for protocol lines,
    and descriptor 1 and `sys.stdout` are pointed at stderr. Whatever a library or a child
    process (the C++ compiler Inductor runs, a model's print) writes to stdout then lands in
    the log the C++ side keeps, never in the middle of a protocol line.
    """

    def __init__(self):
        sys.stdout.flush()
        private = os.dup(1)
        os.dup2(2, 1)
        sys.stdout = sys.stderr
        self._out = os.fdopen(private, "w", encoding="utf-8", newline="\n")
        self._lock = threading.Lock()
        self.request_id = None

    def send(self, type_: str, **fields) -> None:
        message = {"type": type_}
        if self.request_id is not None:
            message["id"] = self.request_id
        message.update(fields)
        line = json.dumps(_finite(message), separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False, default=str)
        with self._lock:
            self._out.write(line + "\n")
            self._out.flush()

    def progress(self, phase: str, fraction: float, message: str) -> None:
        self.send("progress", phase=phase, fraction=round(min(max(fraction, 0.0), 1.0), 4), message=message)

    def error(self, fields: dict) -> None:
        self.send("error", **fields)

    def bye(self) -> None:
        self.send("bye")
