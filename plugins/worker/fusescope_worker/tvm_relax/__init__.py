"""The `tvm` backend, driven through TVM Relax directly (docs/tvm.md).

torch's own `tvm` dynamo backend imports tvm.relay, which TVM removed in 0.20. This package
instead exports the model with torch.export, imports it with
tvm.relax.frontend.torch.from_exported_program, applies the CPU pipeline's fusion passes one by
one (capturing a stage after each), builds with tvm.compile and runs on the Relax VM.
"""
import functools

from ..errors import describe
from . import backend  # noqa: F401 - loaded with the package; imports no TVM (tvm is imported in its functions)

NAME = "tvm"


@functools.cache
def _import_failure() -> str | None:
    import importlib
    for name in ("tvm", "tvm.relax", "tvm.relax.frontend.torch"):
        try:
            importlib.import_module(name)
        except Exception as exc:  # ImportError, or a broken install raising anything
            return f"import {name} failed: {describe(exc)}"
    return None


def unavailable_reason(device: str) -> str | None:
    """None when the Relax path can run on `device`, else why not."""
    reason = _import_failure()
    if reason is not None:
        return reason
    if not device.startswith("cpu"):
        return (f"FuseScope's TVM (Relax) backend builds for target llvm only (device cpu); "
                f"device {device} is not supported")
    return None
