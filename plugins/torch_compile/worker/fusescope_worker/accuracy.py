"""Compiled outputs against eager outputs (docs/measurement.md).

The pass rule is the one of torch/_dynamo/utils.py::same, used by PyTorch's benchmark harness:
each output tensor passes if allclose(compiled, eager, rtol=tol, atol=tol); if not, and an fp64
reference exists, it still passes when RMSE(compiled vs fp64) <= k * RMSE(eager vs fp64) + tol/10,
with k = 2 (3 for half-precision outputs or tensors of fewer than 1000 elements): the compiled
result is then no further from the exact answer than eager's own rounding.

The caller may raise the tolerance (workload.precision and training mode, precision.py) and name
the precision the outputs were computed in; under bf16/fp16 autocast k is 3 for every tensor.
"""
import math

import torch
from torch.utils import _pytree as pytree

FP32_TOLERANCE = 1e-3   # fp32 inference, as the HF and TIMM benchmark suites use
HALF_TOLERANCE = 1e-2
HALF = (torch.float16, torch.bfloat16)


def _tolerance(tensors: list[torch.Tensor]) -> float:
    return HALF_TOLERANCE if any(t.dtype in HALF for t in tensors) else FP32_TOLERANCE


def _rmse(a: torch.Tensor, b: torch.Tensor) -> float:
    return math.sqrt(torch.mean((a.double() - b.double()) ** 2).item()) if a.numel() else 0.0


def _metrics(pairs: list[tuple[torch.Tensor, torch.Tensor]]) -> dict:
    if not pairs:
        return {"max_abs": None, "max_rel": None, "cosine": None, "rmse": None}
    eager = torch.cat([e.detach().double().cpu().reshape(-1) for e, _ in pairs])
    compiled = torch.cat([c.detach().double().cpu().reshape(-1) for _, c in pairs])
    diff = (compiled - eager).abs()
    norms = eager.norm() * compiled.norm()
    if norms > 0:
        cosine = (torch.dot(eager, compiled) / norms).item()
    else:
        cosine = 1.0 if torch.equal(eager, compiled) else 0.0
    return {"max_abs": diff.max().item() if diff.numel() else 0.0,
            # relative to the eager value, floored so exact zeros do not divide by zero
            "max_rel": (diff / eager.abs().clamp_min(1e-6)).max().item() if diff.numel() else 0.0,
            "cosine": cosine, "rmse": _rmse(compiled, eager)}


def _leaf_passes(eager, compiled, fp64, tol: float, half: bool = False) -> tuple[bool, bool]:
    """(passes, needed the fp64 rule)."""
    if torch.allclose(compiled, eager, rtol=tol, atol=tol, equal_nan=True):
        return True, False
    if fp64 is None:
        return False, False
    k = 3.0 if half or compiled.dtype in HALF or fp64.numel() < 1000 else 2.0
    return _rmse(compiled, fp64) <= k * _rmse(eager, fp64) + tol / 10.0, True


def compare(eager_out, compiled_out, fp64_out=None, *, tolerance: float | None = None,
            precision: str | None = None) -> dict:
    """`tolerance`: the least tolerance to use (the dtype rule may raise it); `precision`: the
    workload precision (fp32, bf16, fp16), echoed in the result."""
    eager_leaves = pytree.tree_leaves(eager_out)
    compiled_leaves = pytree.tree_leaves(compiled_out)
    fp64_leaves = pytree.tree_leaves(fp64_out) if fp64_out is not None else None
    if len(eager_leaves) != len(compiled_leaves) or (fp64_leaves and len(fp64_leaves) != len(eager_leaves)):
        return {**_metrics([]), "pass": False, "rule": "structure", "tolerance": None,
                "reason": f"eager returned {len(eager_leaves)} values, compiled {len(compiled_leaves)}",
                **({"precision": precision} if precision is not None else {})}
    float_pairs, passes, used_fp64, reason = [], True, False, None
    tensors = [e for e in eager_leaves if isinstance(e, torch.Tensor)]
    tol = max(_tolerance(tensors), tolerance or 0.0)
    half = precision in ("bf16", "fp16")
    for i, (e, c) in enumerate(zip(eager_leaves, compiled_leaves)):
        if not isinstance(e, torch.Tensor) or not isinstance(c, torch.Tensor):
            if isinstance(e, torch.Tensor) != isinstance(c, torch.Tensor) or (
                    not isinstance(e, torch.Tensor) and e != c):
                passes, reason = False, f"output {i} differs: eager {e!r}, compiled {c!r}"
            continue
        if e.dtype != c.dtype or e.shape != c.shape:
            passes = False
            reason = f"output {i}: eager {e.dtype} {list(e.shape)}, compiled {c.dtype} {list(c.shape)}"
            continue
        e, c = e.detach().cpu(), c.detach().cpu()
        if not (e.is_floating_point() or e.is_complex()):
            if not torch.equal(e, c):
                passes, reason = False, f"output {i} ({e.dtype}) is not identical"
            continue
        float_pairs.append((e, c))
        fp64 = fp64_leaves[i].detach().cpu() if fp64_leaves and isinstance(fp64_leaves[i], torch.Tensor) else None
        ok, needed = _leaf_passes(e, c, fp64, tol, half)
        used_fp64 |= needed
        if not ok:
            passes, reason = False, reason or f"output {i} is outside the tolerance"
    rule = "rmse_vs_fp64" if used_fp64 else ("allclose" if float_pairs else "exact")
    result = {**_metrics(float_pairs), "pass": passes, "rule": rule,
              "tolerance": tol if float_pairs else None, "fp64_reference": fp64_out is not None}
    if precision is not None:
        result["precision"] = precision
    if reason:
        result["reason"] = reason
    return result
