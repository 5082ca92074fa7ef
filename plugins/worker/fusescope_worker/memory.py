"""Peak memory of one forward call (docs/measurement.md).

CPU: the PyTorch profiler with profile_memory=True records every allocator event as a
"[memory]" record with a signed byte count; the peak of their running sum in time order is the
most memory the call held at once beyond what existed when it started (weights and inputs are
not counted; outputs are). CUDA: the caching allocator's own peak counter after a reset.
"""
import torch

CPU_METHOD = "profiler-allocator-peak"
CUDA_METHOD = "cuda-max-memory-allocated"


def _cpu_peak(fn) -> int:
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    events = [e for e in prof.profiler.kineto_results.events()
              if e.name() == "[memory]" and str(e.device_type()).endswith("CPU")]
    running = peak = 0
    for event in sorted(events, key=lambda e: e.start_ns()):
        running += event.nbytes()
        peak = max(peak, running)
    return peak


def _cuda_peak(fn, device: torch.device) -> int:
    torch.cuda.synchronize(device)
    torch.cuda.reset_peak_memory_stats(device)
    fn()
    torch.cuda.synchronize(device)
    return torch.cuda.max_memory_allocated(device)


def peak_bytes(fn, device: torch.device) -> tuple[int, str]:
    """(peak bytes, name of the method) for one call of fn."""
    if device.type == "cuda":
        return _cuda_peak(fn, device), CUDA_METHOD
    return _cpu_peak(fn), CPU_METHOD
