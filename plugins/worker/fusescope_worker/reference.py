"""Eager reference outputs, and an fp64 copy of the model's outputs when that is cheap.

The fp64 outputs let the accuracy rule tell compiler error from fp32 rounding (accuracy.py).
"Cheap" means the fp64 copy of the parameters fits in FP64_COPY_LIMIT bytes; the copy is made
before compiling and dropped right after its one call.
"""
import copy

import torch

from .output_leaves import map_tensors

FP64_COPY_LIMIT = 2 * 1024**3


def detached(outputs):
    """Outputs detached and cloned, so later calls (cudagraphs reuse buffers) cannot change them;
    tensors inside objects (a transformers cache's keys and values) too (output_leaves.py)."""
    return map_tensors(lambda t: t.detach().clone(), outputs)


def _to_fp64(value):
    return map_tensors(lambda t: t.double() if t.is_floating_point() else t, value)


def fp64_outputs(loaded) -> tuple[object | None, str | None]:
    """(fp64 outputs, None) or (None, why there are none)."""
    size = sum(p.numel() for p in loaded.module.parameters()) * 8
    if size > FP64_COPY_LIMIT:
        return None, f"an fp64 copy of the parameters would take {size / 1024**3:.1f} GiB"
    try:
        model = copy.deepcopy(loaded.module).double()
        args = _to_fp64(list(loaded.args))
        kwargs = _to_fp64(loaded.kwargs)
        with torch.no_grad():
            outputs = detached(model(*args, **kwargs))
    except Exception as exc:  # a model that cannot run in fp64 still gets the allclose rule
        return None, f"the model does not run in float64 ({type(exc).__name__})"
    return outputs, None
