"""Compiled outputs against eager outputs, with the statuses of PyTorch's benchmark harness
(docs/measurement.md).

Outputs are flattened to named leaves (output_leaves.py): containers, ModelOutput objects and
transformers caches are opened down to their tensors. The pass rule is the one of
torch/_dynamo/utils.py::same, used by the harness: each output tensor passes if
allclose(compiled, eager, rtol=tol, atol=tol); if not, and an fp64 reference exists, it still
passes when RMSE(compiled vs fp64) <= k * RMSE(eager vs fp64) + tol/10, with k = 2 (3 for
half-precision outputs or tensors of fewer than 1000 elements): the compiled result is then no
further from the exact answer than eager's own rounding.

`status` names the verdict as benchmarks/dynamo/common.py does: pass, fail_accuracy,
eager_two_runs_differ, fail_to_run, OOM; and nonfinite, for a NaN or an infinity in either
output, which the harness would let through as equal NaNs. Every status but pass comes with a
`reason`.

The caller may raise the tolerance (workload.precision and training mode, precision.py) and name
the precision the outputs were computed in; under bf16/fp16 autocast k is 3 for every tensor.

A quantized model (workload.precision int8_*, quantize.py) is judged against fp32 eager by the
quantization rule (`rule: "quantized"`), as torchao's tests and the harness's cosine option judge
quantized models: each floating output leaf passes when its cosine similarity with eager is at
least quantize.COSINE_MIN and its relative L2 error ||q - e|| / ||e|| at most
quantize.REL_ERROR_MAX (the `tolerance`; SQNR >= 20 dB). Integer and non-tensor outputs must
still be identical.
"""
import math

import torch

from .output_leaves import flatten

FP32_TOLERANCE = 1e-3   # fp32 inference, as the HF and TIMM benchmark suites use
HALF_TOLERANCE = 1e-2
HALF = (torch.float16, torch.bfloat16)
# The CPU allocator's failure is a plain RuntimeError; CUDA's is torch.OutOfMemoryError.
CPU_OOM_TEXT = ("DefaultCPUAllocator: can't allocate memory", "DefaultCPUAllocator: not enough memory")
REPR_LIMIT = 80
NONFINITE_NAMED = 3  # leaves named in a nonfinite reason; the rest are counted


def _tolerance(tensors: list[torch.Tensor]) -> float:
    return HALF_TOLERANCE if any(t.dtype in HALF for t in tensors) else FP32_TOLERANCE


def _real(t: torch.Tensor) -> torch.Tensor:
    return torch.view_as_real(t) if t.is_complex() else t


def _rmse(a: torch.Tensor, b: torch.Tensor) -> float:
    return math.sqrt(torch.mean((_real(a).double() - _real(b).double()) ** 2).item()) if a.numel() else 0.0


def _no_metrics() -> dict:
    return {"max_abs": None, "max_rel": None, "cosine": None, "rmse": None}


def _metrics(pairs: list[tuple[torch.Tensor, torch.Tensor]]) -> dict:
    """Over the elements finite in both outputs (non-finite ones are reported by status)."""
    if not pairs:
        return _no_metrics()
    eager = torch.cat([_real(e).detach().double().cpu().reshape(-1) for e, _ in pairs])
    compiled = torch.cat([_real(c).detach().double().cpu().reshape(-1) for _, c in pairs])
    finite = torch.isfinite(eager) & torch.isfinite(compiled)
    if not bool(finite.all()):
        eager, compiled = eager[finite], compiled[finite]
    if not eager.numel():
        return _no_metrics()
    diff = (compiled - eager).abs()
    norms = eager.norm() * compiled.norm()
    if norms > 0:
        cosine = (torch.dot(eager, compiled) / norms).item()
    else:
        cosine = 1.0 if torch.equal(eager, compiled) else 0.0
    return {"max_abs": diff.max().item(),
            # relative to the eager value, floored so exact zeros do not divide by zero
            "max_rel": (diff / eager.abs().clamp_min(1e-6)).max().item(),
            "cosine": cosine, "rmse": _rmse(compiled, eager)}


def _leaf_passes(eager, compiled, fp64, tol: float, half: bool = False) -> tuple[bool, bool, str]:
    """(passes, needed the fp64 rule, why not when it fails)."""
    if torch.allclose(compiled, eager, rtol=tol, atol=tol, equal_nan=True):
        return True, False, ""
    max_abs = (_real(compiled).double() - _real(eager).double()).abs().max().item()
    if fp64 is None:
        return False, False, f"max abs {max_abs:.3g} with tolerance {tol:g} and no fp64 reference"
    k = 3.0 if half or compiled.dtype in HALF or fp64.numel() < 1000 else 2.0
    compiled_error, eager_error = _rmse(compiled, fp64), _rmse(eager, fp64)
    if compiled_error <= k * eager_error + tol / 10.0:
        return True, True, ""
    return False, True, (f"max abs {max_abs:.3g} with tolerance {tol:g}, and its RMSE against fp64 "
                         f"{compiled_error:.3g} > {k:g} x eager's {eager_error:.3g} + {tol / 10.0:g}")


def _as_tensor(value):
    """Python floats and numpy arrays are compared as tensors, as the harness compares them."""
    if isinstance(value, float):
        return torch.tensor(value, dtype=torch.float64)
    if type(value).__module__ == "numpy" and hasattr(value, "dtype"):
        try:
            return torch.as_tensor(value)
        except Exception:  # an object array: compared by equality
            return value
    return value


def _short(value) -> str:
    try:
        text = repr(value)
    except Exception:  # a repr that raises
        text = f"<{type(value).__name__}>"
    return text if len(text) <= REPR_LIMIT else text[:REPR_LIMIT - 3] + "..."


def _kind(value) -> str:
    if isinstance(value, torch.Tensor):
        return f"{str(value.dtype).removeprefix('torch.')} {list(value.shape)}"
    return type(value).__name__


def _equal(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:  # == that raises or gives something without a truth value
        return a is b


def _structure_mismatch(first, second, names=("eager", "compiled")) -> str | None:
    for (path_a, a), (path_b, b) in zip(first, second):
        if path_a != path_b:
            return (f"the outputs differ in structure: {names[0]} has {path_a} ({_kind(a)}) where "
                    f"{names[1]} has {path_b} ({_kind(b)})")
    if len(first) != len(second):
        longer, name = (first, names[0]) if len(first) > len(second) else (second, names[1])
        extra = longer[min(len(first), len(second))][0]
        return (f"{names[0]} returned {len(first)} values, {names[1]} {len(second)} "
                f"(first unmatched: {extra} of {name})")
    return None


def _nonfinite(path: str, eager: torch.Tensor, compiled: torch.Tensor) -> str | None:
    """Where the NaNs and infinities are in this leaf, or None when both sides are finite."""
    found = []
    for side, t in (("eager", eager), ("compiled", compiled)):
        nan, inf = int(torch.isnan(t).sum()), int(torch.isinf(t).sum())
        what = " and ".join(f"{n} {name}" for n, name in ((nan, "NaN"), (inf, "inf")) if n)
        if what:
            found.append(f"{what} in {side}")
    return f"{path} has {' and '.join(found)} (of {eager.numel()} values)" if found else None


def _verdict(status: str, reason: str | None, metrics: dict | None = None, *, rule: str | None = None,
             tolerance: float | None = None, fp64_reference: bool | None = None, precision: str | None = None) -> dict:
    result = {**(metrics or _no_metrics()), "pass": status == "pass", "status": status, "rule": rule,
              "tolerance": tolerance}
    if fp64_reference is not None:
        result["fp64_reference"] = fp64_reference
    if precision is not None:
        result["precision"] = precision
    if reason:
        result["reason"] = reason
    return result


def _quantized_leaf_passes(eager, compiled, rel_max: float, cosine_min: float) -> tuple[bool, str]:
    e, c = _real(eager).double().reshape(-1), _real(compiled).double().reshape(-1)
    norm = e.norm().item()
    rel = (c - e).norm().item() / norm if norm > 0 else (0.0 if torch.equal(e, c) else math.inf)
    norms = norm * c.norm().item()
    cosine = torch.dot(e, c).item() / norms if norms > 0 else (1.0 if torch.equal(e, c) else 0.0)
    if rel <= rel_max and cosine >= cosine_min:
        return True, ""
    return False, (f"relative L2 error {rel:.3g} (at most {rel_max:g}) and cosine similarity {cosine:.4f} "
                   f"(at least {cosine_min:g}) against fp32 eager")


def compare(eager_out, compiled_out, fp64_out=None, *, tolerance: float | None = None,
            precision: str | None = None, root: str = "output", quantized: bool = False) -> dict:
    """`tolerance`: the least tolerance to use (the dtype rule may raise it); `precision`: the
    workload precision (fp32, bf16, fp16, int8_*), echoed in the result; `root`: how paths in the
    reason start (`output[0]`); `quantized`: judge by the quantization rule, `tolerance` being the
    largest relative L2 error (the module docstring)."""
    eager, compiled = flatten(eager_out, root), flatten(compiled_out, root)
    mismatch = _structure_mismatch(eager, compiled)
    if mismatch:
        return _verdict("fail_accuracy", mismatch, rule="structure", precision=precision)
    fp64 = dict(flatten(fp64_out, root)) if fp64_out is not None else {}
    values = [(path, _as_tensor(e), _as_tensor(c)) for (path, e), (_, c) in zip(eager, compiled)]
    tol = max(_tolerance([e for _, e, _ in values if isinstance(e, torch.Tensor)]), tolerance or 0.0)
    if quantized:
        from .quantize import COSINE_MIN, REL_ERROR_MAX
        tol = tolerance or REL_ERROR_MAX
    half = precision in ("bf16", "fp16")
    float_pairs, failure, nonfinite, used_fp64, checked = [], None, [], False, 0
    for path, e, c in values:
        if not isinstance(e, torch.Tensor) or not isinstance(c, torch.Tensor):
            if isinstance(e, torch.Tensor) != isinstance(c, torch.Tensor):
                failure = failure or f"{path}: eager {_kind(e)}, compiled {_kind(c)}"
            elif not _equal(e, c):
                failure = failure or f"{path} differs: eager {_short(e)}, compiled {_short(c)}"
            continue
        if e.dtype != c.dtype or e.shape != c.shape:
            failure = failure or f"{path}: eager {_kind(e)}, compiled {_kind(c)}"
            continue
        e, c = e.detach().cpu(), c.detach().cpu()
        if not (e.is_floating_point() or e.is_complex()):
            if not torch.equal(e, c):
                differing = int((e != c).sum())
                failure = failure or f"{path} ({_kind(e)}) is not identical: {differing} of {e.numel()} elements differ"
            continue
        float_pairs.append((e, c))
        where = _nonfinite(path, e, c)
        if where:
            nonfinite.append(where)
            continue
        if quantized:
            ok, why = _quantized_leaf_passes(e, c, tol, COSINE_MIN)
            checked += 1
            if not ok:
                failure = failure or f"{path} is outside the quantization rule: {why}"
            continue
        f64 = _as_tensor(fp64.get(path))
        f64 = f64.detach().cpu() if isinstance(f64, torch.Tensor) and f64.shape == e.shape else None
        ok, needed, why = _leaf_passes(e, c, f64, tol, half)
        used_fp64, checked = used_fp64 or needed, checked + 1
        if not ok:
            failure = failure or f"{path} is outside the tolerance: {why}"
    # no rule when every floating output was non-finite: none of them was compared
    rule = "rmse_vs_fp64" if used_fp64 else "allclose" if checked else None if float_pairs else "exact"
    if quantized and checked:
        rule = "quantized"
    reason = failure
    if nonfinite:
        named = "; ".join(nonfinite[:NONFINITE_NAMED])
        more = len(nonfinite) - NONFINITE_NAMED
        reason = (f"non-finite values: {named}" + (f"; and {more} more outputs" if more > 0 else "")
                  + (f"; also {failure}" if failure else ""))
    status = "nonfinite" if nonfinite else ("fail_accuracy" if failure else "pass")
    return _verdict(status, reason, _metrics(float_pairs), rule=rule, tolerance=tol if float_pairs else None,
                    fp64_reference=fp64_out is not None, precision=precision)


def eager_runs_differ(first, second, root: str = "output") -> str | None:
    """Where two eager calls on the same inputs disagree, or None. As the harness checks it:
    bit for bit (tolerance 0), NaN equal to NaN."""
    a, b = flatten(first, root), flatten(second, root)
    mismatch = _structure_mismatch(a, b, ("the first eager call", "the second"))
    if mismatch:
        return mismatch
    for (path, x), (_, y) in zip(a, b):
        x, y = _as_tensor(x), _as_tensor(y)
        if not isinstance(x, torch.Tensor) or not isinstance(y, torch.Tensor):
            if isinstance(x, torch.Tensor) != isinstance(y, torch.Tensor) or not _equal(x, y):
                return f"{path} was {_short(x)}, then {_short(y)}"
            continue
        if x.dtype != y.dtype or x.shape != y.shape:
            return f"{path} was {_kind(x)}, then {_kind(y)}"
        x, y = x.detach().cpu(), y.detach().cpu()
        if torch.equal(x, y):
            continue
        if (x.is_floating_point() or x.is_complex()) and torch.allclose(x, y, rtol=0, atol=0, equal_nan=True):
            continue
        metrics = _metrics([(x, y)]) if x.is_floating_point() or x.is_complex() else {}
        size = f" (max abs {metrics['max_abs']:.3g})" if metrics.get("max_abs") is not None else ""
        return f"{path} differs{size}"
    return None


def eager_differs(where: str, precision: str | None = None) -> dict:
    """The verdict when eager run twice disagrees: nothing is compared (harness: eager_two_runs_differ)."""
    return _verdict("eager_two_runs_differ",
                    f"eager run twice on the same inputs gives different outputs: {where}. The forward is not "
                    "deterministic (random numbers, uninitialised memory or state a call changes), so no backend "
                    "can be judged against it", precision=precision)


def is_oom(exc: BaseException | None) -> bool:
    """Whether an out-of-memory error is `exc` or among its causes."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, (MemoryError, torch.OutOfMemoryError)):
            return True
        if isinstance(exc, RuntimeError) and any(text in str(exc) for text in CPU_OOM_TEXT):
            return True
        exc = getattr(exc, "inner_exception", None) or exc.__cause__ or exc.__context__
    return False


def failed_to_run(message: str, exc: BaseException | None = None, precision: str | None = None) -> dict:
    """The verdict when the compiled model did not compile or run (harness: fail_to_run, OOM)."""
    return _verdict("OOM" if is_oom(exc) else "fail_to_run", message, precision=precision)
