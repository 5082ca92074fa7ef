"""Which torch.compile backends this environment has, and why one cannot run.

Names come from torch's own registry (`torch._dynamo.list_backends(exclude_tags=())`, which
also discovers third-party backends of the `torch_dynamo_backends` entry-point group).
A backend is reported unavailable only with the failure we actually observe: the import that
fails, the device that is absent, the compiler that does not run.
"""
import functools
import os
import subprocess
import tempfile

import torch
import torch._dynamo
from torch._dynamo.backends import registry

from .errors import BACKEND_UNAVAILABLE, WorkerError, describe

FAMILY = "torch_compile"


def _import_failure(*modules: str) -> str | None:
    """Import `modules` in order, as the backend itself would; the first failure, or None."""
    import importlib
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as exc:  # ImportError, but also broken packages raising anything
            return f"import {name} failed: {describe(exc)}"
    return None


@functools.cache
def _cpp_compiler_failure() -> str | None:
    """Inductor's CPU code is C++ built at compile time: find the compiler Inductor would use
    and build a one-line program with it."""
    try:
        from torch._inductor.cpp_builder import get_cpp_compiler
        compiler = get_cpp_compiler()
    except Exception as exc:
        return f"Inductor found no C++ compiler for CPU code ({describe(exc)}); install g++ or set CXX"
    with tempfile.TemporaryDirectory(prefix="fusescope-cxx-") as tmp:
        try:
            proc = subprocess.run([compiler, "-x", "c++", "-", "-o", os.path.join(tmp, "probe")],
                                  input="int main() { return 0; }\n", capture_output=True, text=True,
                                  timeout=60)
        except (OSError, subprocess.SubprocessError) as exc:
            return f"the C++ compiler {compiler} does not run: {describe(exc)}"
    if proc.returncode != 0:
        first = (proc.stderr.strip().splitlines() or ["no output"])[0]
        return f"the C++ compiler {compiler} cannot build a test program: {first}"
    return None


def _cuda_failure() -> str | None:
    if torch.cuda.is_available():
        return None
    return f"needs CUDA, and torch {torch.__version__} sees no CUDA device (torch.cuda.is_available() is False)"


# nvFuser has no torch.compile backend of its own since torch 2.1 (nvprims_nvfuser removed); the
# path today is Lightning Thunder's ThunderCompiler with its nvFuser executor, as a torch.compile
# backend (docs/worker.md, "nvfuser"). NVIDIA GPUs only.
NVFUSER = "nvfuser"


def _nvfuser_failure(device: str) -> str | None:
    problems = []
    if not device.startswith("cuda"):
        problems.append(f"runs on NVIDIA GPUs only and the device is {device} (use --device cuda)")
    cuda = _cuda_failure()
    if cuda:
        problems.append(cuda)
    missing = _import_failure("thunder", "thunder.dynamo", "thunder.executors.nvfuserex")
    if missing:
        problems.append(f"needs lightning-thunder with nvFuser (pip install lightning-thunder nvfuser-cu12x-torch2x): "
                        f"{missing}")
    else:
        from thunder.executors import nvfuserex
        if not getattr(nvfuserex, "nvfuserex", None):
            problems.append("thunder is installed but its nvFuser executor is not (nvfuserex.nvfuserex is None: "
                            "install the nvfuser wheel matching this torch)")
    return "; ".join(problems) or None


def _tvm_failure(device: str) -> str | None:
    from . import tvm_relax  # imports no TVM until asked
    return tvm_relax.unavailable_reason(device)


# Names in torch's registry that FuseScope runs another way: name -> (family, why it cannot run).
# `tvm`: FuseScope's Relax path (tvm_relax/, docs/tvm.md), not torch's relay-based backend.
OWN_PATHS = {"tvm": ("tvm", _tvm_failure)}


def _unavailable_reason(name: str, device: str) -> str | None:
    if name in OWN_PATHS:
        return OWN_PATHS[name][1](device)
    if name == NVFUSER:
        return _nvfuser_failure(device)
    if name == "inductor":
        if device.startswith("cuda"):
            return _import_failure("triton")
        return _cpp_compiler_failure()
    if name == "cudagraphs":
        return _cuda_failure()
    if name in ("openxla", "openxla_eval"):
        return _import_failure("torch_xla", "torch_xla.core.dynamo_bridge")
    return None


def names() -> list[str]:
    listed = torch._dynamo.list_backends(exclude_tags=())
    # Not in torch's registry: FuseScope builds it (capture/backend_wrapper.py).
    return sorted(set(listed) | {NVFUSER})


@functools.cache
def _entry_points() -> dict:
    """Backends registered through the torch_dynamo_backends entry-point group. Read before any
    is loaded: once loaded, torch's registry no longer tells them from built-in ones."""
    names()
    return {name: entry for name, entry in registry._BACKENDS.items() if entry is not None}


def _entry_point_failure(name: str) -> str | None:
    entry = _entry_points().get(name)
    if entry is None or name in registry._COMPILER_FNS:
        return None
    try:
        registry.lookup_backend(name)
    except Exception as exc:
        return f"entry point {entry.value} failed to load: {describe(exc)}"
    return None


def _tags(name: str) -> list[str]:
    if name == NVFUSER:
        return ["gpu", "thunder"]
    tags = list(getattr(registry._COMPILER_FNS.get(name), "_tags", ()))
    if name in _entry_points():
        tags.append("third_party")
    return tags


def list_backends(device: str = "cpu") -> list[dict]:
    listed = []
    for name in names():
        reason = _entry_point_failure(name) or _unavailable_reason(name, device)
        family = OWN_PATHS[name][0] if name in OWN_PATHS else FAMILY
        listed.append({"name": name, "family": family, "available": reason is None,
                       "reason": reason, "tags": _tags(name)})
    return listed


def check(name: str, device: str) -> None:
    """Raise backend_unavailable unless `name` can compile on `device`."""
    known = names()
    if name not in known:
        raise WorkerError(BACKEND_UNAVAILABLE,
                          f"backend '{name}' is not registered with torch._dynamo "
                          f"(torch {torch.__version__} knows: {', '.join(known)})", backend=name)
    reason = _entry_point_failure(name) or _unavailable_reason(name, device)
    if reason is not None:
        raise WorkerError(BACKEND_UNAVAILABLE, f"backend '{name}' is unavailable: {reason}", backend=name)
