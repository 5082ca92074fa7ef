"""A private, empty Inductor cache per worker process, so compile time is measured cold.

Inductor reads TORCHINDUCTOR_CACHE_DIR (and Triton TRITON_CACHE_DIR) each time it needs the
directory, but we still set them before torch is imported so nothing created at import time
can land in a shared cache. A request with options.cache == "warm" restores the user's own
settings before anything is compiled.
"""
import os
import re
import shutil
import tempfile

_CACHE_VARIABLES = ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR")
_PREFIX = "fusescope-worker-"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _sweep_stale() -> None:
    """Remove scratch directories of workers that were killed (timeout, cancel, crash) and so
    never cleaned up; a cold cache holds compiled libraries, tens of megabytes each."""
    pattern = re.compile(re.escape(_PREFIX) + r"(\d+)-")
    root = tempfile.gettempdir()
    for name in os.listdir(root):
        match = pattern.match(name)
        if match and not _alive(int(match.group(1))):
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)


class WorkerScratch:
    """Temporary directory of this worker: the cold compile cache and Inductor's debug trace."""

    def __init__(self):
        _sweep_stale()
        self.root = tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-")
        self.trace_dir = os.path.join(self.root, "trace")
        self._saved = {name: os.environ.get(name) for name in _CACHE_VARIABLES}
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(self.root, "inductor-cache")
        os.environ["TRITON_CACHE_DIR"] = os.path.join(self.root, "triton-cache")
        self.cache = "cold"

    def use_warm_cache(self) -> None:
        for name, value in self._saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        self.cache = "warm"

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
