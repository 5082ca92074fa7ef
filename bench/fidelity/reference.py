#!/usr/bin/env python3
"""The reference side of the fidelity benchmark: plain PyTorch, no FuseScope, in a fresh process.

Loads a model file (build_model(), example_inputs()), sets torch's intra-op threads, and measures
under torch.no_grad():
  - eager latency with torch.utils.benchmark.Timer.blocked_autorange (median, IQR of blocks),
    twice: right after the model is built (`eager_first`) and again after the compiled model was
    timed (`eager`, the one compared). The first is kept to show how much a fresh process's state
    moves an eager median (allocator and caches still warming): FuseScope times eager after warm-up
    and compilation, interleaved with the backend, so the fair reference is the later one;
  - torch.compile(backend) first call in a fresh Inductor cache (the compile time a user pays);
  - the compiled model's latency with blocked_autorange.
With --pin CPUS the process is bound to those CPUs before torch loads (as FuseScope's --pin does);
with --malloc steady glibc's mmap and trim thresholds are fixed as FuseScope's default policy
fixes them (docs/measurement.md "The allocator"); --malloc system (the default here) leaves
glibc alone. Minor page faults per eager call are counted over a block of calls after the last
eager timing.
Prints one JSON object. Used by fidelity.py; runnable alone:

    reference.py MODEL.py [--backend inductor] [--threads 1] [--min-run-time 2] [--pin 1] [--malloc steady]
"""
import argparse
import ctypes
import importlib.util
import json
import os
import resource
import sys
import tempfile
import time


def parse_cpus(text: str) -> set[int]:
    cpus: set[int] = set()
    for part in text.split(","):
        first, _, last = part.partition("-")
        cpus.update(range(int(first), int(last or first) + 1))
    return cpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--backend", default="inductor")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--min-run-time", type=float, default=2.0)
    parser.add_argument("--pin", default="", help="CPU list such as 1 or 0-1 (os.sched_setaffinity)")
    parser.add_argument("--malloc", choices=("system", "steady"), default="system")
    options = parser.parse_args()
    if options.pin:
        os.sched_setaffinity(0, parse_cpus(options.pin))
    if options.malloc == "steady":  # M_MMAP_THRESHOLD 32 MiB, M_TRIM_THRESHOLD 512 MiB (malloc.h)
        mallopt = ctypes.CDLL(None).mallopt
        mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        if mallopt(-3, 32 << 20) != 1 or mallopt(-1, 512 << 20) != 1:
            sys.exit("mallopt refused")
    # A fresh, empty cache, set before torch is imported, as FuseScope's worker does.
    cache = tempfile.mkdtemp(prefix="fidelity-cache-")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache
    os.environ["TRITON_CACHE_DIR"] = os.path.join(cache, "triton")
    import torch
    import torch.utils.benchmark as benchmark

    torch.set_num_threads(options.threads)
    spec = importlib.util.spec_from_file_location("fidelity_model", options.model)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = module.build_model().eval()
    inputs = module.example_inputs()

    def autorange(fn) -> dict:
        timer = benchmark.Timer(stmt="fn()", globals={"fn": fn}, num_threads=options.threads)
        m = timer.blocked_autorange(min_run_time=options.min_run_time)
        return {"median_ms": m.median * 1e3, "iqr_ms": m.iqr * 1e3, "blocks": len(m.times),
                "calls_per_block": m.number_per_run}

    with torch.no_grad():
        def eager():
            return model(*inputs)

        for _ in range(3):
            eager()
        result = {"threads": torch.get_num_threads(), "torch": torch.__version__,
                  "affinity": sorted(os.sched_getaffinity(0)), "eager_first": autorange(eager)}
        compiled_model = torch.compile(model, backend=options.backend)
        start = time.perf_counter()
        compiled_model(*inputs)
        result["first_call_s"] = time.perf_counter() - start

        def compiled():
            return compiled_model(*inputs)

        for _ in range(3):
            compiled()
        result["compiled"] = autorange(compiled)
        result["eager"] = autorange(eager)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for _ in range(10):
            eager()
        result["eager_faults_per_call"] = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 10
        result["malloc"] = options.malloc
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
