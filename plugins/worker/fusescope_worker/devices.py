"""What this Python and torch can run on, for the hello line and for timing."""
import os
import platform

import torch

from . import __version__
from .errors import BACKEND_UNAVAILABLE, WorkerError
from .protocol import PROTOCOL, VERSION


def hello_fields() -> dict:
    devices = ["cpu"]
    cuda = None
    if torch.cuda.is_available():
        names = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
        devices += [f"cuda:{i}" for i in range(len(names))]
        cuda = {"version": torch.version.cuda, "devices": names}
    return {"protocol": PROTOCOL, "version": VERSION, "worker": __version__,
            "python": platform.python_version(), "torch": torch.__version__,
            "torch_git": getattr(torch.version, "git_version", None) or "",
            "torch_build": torch_build(),
            "devices": devices, "cuda": cuda, "pid": os.getpid()}


def torch_build() -> str:
    """What torch was built for: "cuda 12.8", "rocm 6.2" or "cpu" (a report's provenance)."""
    if getattr(torch.version, "hip", None):
        return f"rocm {torch.version.hip}"
    if torch.version.cuda:
        return f"cuda {torch.version.cuda}"
    return "cpu"


def resolve(device: str, backend: str) -> torch.device:
    """The torch.device for a request, or backend_unavailable when the device is absent."""
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise WorkerError(BACKEND_UNAVAILABLE, f"device '{device}' is not a torch device",
                          backend=backend) from exc
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise WorkerError(BACKEND_UNAVAILABLE,
                          f"device '{device}' requested but CUDA is not available to torch {torch.__version__}",
                          backend=backend)
    if dev.type not in ("cpu", "cuda"):
        raise WorkerError(BACKEND_UNAVAILABLE, f"device '{device}' is not supported by the worker (cpu, cuda)",
                          backend=backend)
    return dev


def synchronizer(device: torch.device):
    """A function that waits for queued device work, so a timed call ends when the work does."""
    if device.type == "cuda":
        return lambda: torch.cuda.synchronize(device)
    return lambda: None
