"""Example inputs from a written spec: `[{"shape": [4, 16], "dtype": "float32"}, ...]`.

Floating tensors are standard normal, integer tensors uniform in [low, high) (default [0, 2)),
bool tensors uniform; all from a fixed seed so every backend sees the same inputs.
"""
import torch

SEED = 0


def _dtype(name) -> torch.dtype:
    dtype = getattr(torch, str(name), None) if isinstance(name, str) else None
    if not isinstance(dtype, torch.dtype):
        raise ValueError(f"unknown dtype {name!r} (e.g. float32, float16, int64, bool)")
    return dtype


def _tensor(entry, generator: torch.Generator) -> torch.Tensor:
    if not isinstance(entry, dict):
        raise ValueError(f"each input must be an object with shape and dtype, got {entry!r}")
    shape = entry.get("shape")
    if not isinstance(shape, list) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0
                                              for d in shape):
        raise ValueError(f"input shape must be a list of non-negative integers, got {shape!r}")
    dtype = _dtype(entry.get("dtype", "float32"))
    if dtype.is_floating_point or dtype.is_complex:
        return torch.randn(shape, generator=generator).to(dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=generator).bool()
    low, high = entry.get("low", 0), entry.get("high", 2)
    return torch.randint(low, high, shape, generator=generator, dtype=dtype)


def tensors_from_spec(spec) -> tuple:
    """Positional inputs for the spec; ValueError with a readable message when it is malformed."""
    if not isinstance(spec, list) or not spec:
        raise ValueError("the input spec must be a non-empty list of {\"shape\": [...], \"dtype\": \"...\"}")
    generator = torch.Generator().manual_seed(SEED)
    return tuple(_tensor(entry, generator) for entry in spec)
