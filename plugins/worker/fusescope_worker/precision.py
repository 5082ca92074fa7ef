"""`workload.precision` (docs/protocol.md, docs/workloads.md "Precision").

fp32 runs the model as it is. bf16 and fp16 run eager and compiled alike under
torch.autocast(device_type, dtype): the autocast context is entered once for the whole run
(reference, compile, timing, memory, trace, accuracy), so Dynamo traces under the same autocast
state the eager series runs under and its guards never see a different one. The fp64 reference is
unaffected: autocast never casts float64 tensors.

Tolerances (the `tol` of accuracy.py's rule, see docs/workloads.md for the rationale):

| precision | inference | training (first-step outputs and gradients) |
|---|---|---|
| fp32 | 1e-3 | 1e-2 |
| bf16 | 1e-2 | 2e-2 |
| fp16 | 1e-2 | 2e-2 |

The int8 precisions (int8_weight_only, int8_dynamic, int8_static) run no autocast: the model is
quantized by torchao into a copy the backend compiles (quantize.py), inference only, and judged
against fp32 eager by the quantization rule, whose tolerance is the largest relative L2 error.
"""
import contextlib

import torch

from . import quantize
from .errors import BACKEND_UNAVAILABLE, WorkerError

DTYPES = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16, **{mode: None for mode in quantize.MODES}}

TOLERANCE = {("fp32", "inference"): 1e-3, ("fp32", "training"): 1e-2,
             ("bf16", "inference"): 1e-2, ("bf16", "training"): 2e-2,
             ("fp16", "inference"): 1e-2, ("fp16", "training"): 2e-2,
             # training refuses the int8 precisions (quantize.refusal); the entry keeps the lookup total
             **{(mode, workload): quantize.REL_ERROR_MAX for mode in quantize.MODES
                for workload in ("inference", "training")}}


def of(request) -> str:
    return request.workload["precision"]  # request.py fills in the default


def mode_of(request) -> str:
    return request.workload["mode"]


def tolerance(precision: str, mode: str) -> float:
    return TOLERANCE[precision, mode]


def accuracy_options(request) -> dict:
    """Keyword arguments for accuracy.compare under this request's workload."""
    precision = of(request)
    return {"tolerance": tolerance(precision, mode_of(request)), "precision": precision,
            "quantized": quantize.is_quantized(precision)}


def autocast(request, device: torch.device, backend: str):
    """The context the whole run executes in; backend_unavailable when autocast refuses the dtype
    (a compiler that does not run under torch.autocast refuses first: Compiler.precision_refusal)."""
    precision = of(request)
    dtype = DTYPES[precision]
    if dtype is None:
        return contextlib.nullcontext()
    if not torch.amp.is_autocast_available(device.type):
        raise WorkerError(BACKEND_UNAVAILABLE, f"precision {precision} is unavailable: torch {torch.__version__} "
                          f"has no autocast for device type {device.type}", backend=backend)
    # torch.autocast only warns (and disables itself) for a dtype the device does not support:
    # enter it once and look at what it actually enabled.
    with torch.autocast(device.type, dtype=dtype):
        enabled = torch.is_autocast_enabled(device.type) and torch.get_autocast_dtype(device.type) == dtype
    if not enabled:
        raise WorkerError(BACKEND_UNAVAILABLE, f"precision {precision} is unavailable: torch {torch.__version__} "
                          f"does not support autocast to {dtype} on {device.type}", backend=backend)
    return torch.autocast(device.type, dtype=dtype)


def backward_context(device: torch.device):
    """Backward and optimizer step run outside autocast, as torch.amp's documentation asks: the
    backward ops use the dtypes autocast chose in the forward."""
    if torch.is_autocast_enabled(device.type):
        return torch.autocast(device.type, enabled=False)
    return contextlib.nullcontext()
