"""The machine's roofs (docs/roofline.md, "The roofs"): sustained memory bandwidth and peak compute,
measured where the model runs, with the run's threads and pinning.

- Bandwidth: STREAM's copy (b = a) and triad (a = b + s*c) on float32 tensors of 4x the
  last-level cache (at least 128 MiB, at most 256 MiB each), each timed several times; the roof
  is the best of the two kernels' best repetitions, in GB/s (10^9 bytes) counting every array a
  kernel reads or writes once (as STREAM does: no write-allocate traffic).
- Compute: a square matrix multiplication per dtype (float32; bfloat16 where the device supports
  it), grown until one call takes >= 20 ms, then timed several times; 2 n^3 FLOPs per call.

Each measurement stops at its share of the time budget (BUDGET_S in all); what did not fit says
so in `unmeasured`. The result is cached per machine + torch + threads + device in
$FUSESCOPE_CACHE (default ~/.cache/fusescope)/roofs/, with the date it was measured;
capture.roofs = "measure" measures again and replaces it, "skip" measures nothing.
"""
import datetime
import hashlib
import json
import os
import platform
import time

import torch

BUDGET_S = 5.0
METHOD_VERSION = 1
MIB = 1 << 20
MODES = ("cached", "measure", "skip")
STREAM_REPEATS = 20  # at most: each kernel stops at its share of the budget
GEMM_REPEATS = 8
GEMM_MIN_CALL_S = 0.02
GEMM_MAX_N = 8192


def cache_dir() -> str:
    base = os.environ.get("FUSESCOPE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "fusescope")
    return os.path.join(base, "roofs")


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return ""


def _cpu_model() -> str:
    for line in _read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def last_level_cache_bytes() -> int | None:
    """The largest cache of CPU 0 as /sys lists it ("32768K"), or None."""
    best = None
    root = "/sys/devices/system/cpu/cpu0/cache"
    try:
        entries = os.listdir(root)
    except OSError:
        return None
    for entry in entries:
        text = _read(os.path.join(root, entry, "size"))
        units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
        if text and text[:-1].isdigit() and text[-1] in units:
            size = int(text[:-1]) * units[text[-1]]
            best = size if best is None else max(best, size)
    return best


def device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return f"{torch.cuda.get_device_name(device)} ({device})"
    return f"{_cpu_model()}, {os.cpu_count()} CPUs"


def cache_key(device: torch.device, threads: int) -> str:
    """Machine (host, CPU or GPU model), torch, threads, CPUs this process may run on, method."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    text = json.dumps([platform.node(), device_name(device), torch.__version__, threads, cpus, METHOD_VERSION])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class _Clock:
    def __init__(self, budget_s: float):
        self.deadline = time.perf_counter() + budget_s

    def left(self) -> float:
        return self.deadline - time.perf_counter()


def _timed(fn, sync) -> float:
    sync()
    start = time.perf_counter()
    fn()
    sync()
    return time.perf_counter() - start


def bandwidth(device: torch.device, sync, clock: _Clock, share_end: float) -> dict:
    """STREAM copy and triad (see the module's docstring); GB/s of each repetition."""
    llc = last_level_cache_bytes() if device.type == "cpu" else None
    size = min(max(4 * (llc or 0), 128 * MIB), 256 * MIB)
    n = size // 4
    a = torch.ones(n, dtype=torch.float32, device=device)  # filled: every page touched before timing
    b = torch.full((n,), 2.0, dtype=torch.float32, device=device)
    c = torch.full((n,), 0.5, dtype=torch.float32, device=device)
    copy, triad = [], []
    for _ in range(STREAM_REPEATS):
        if clock.left() <= share_end:
            break
        copy.append(2 * size / _timed(lambda: b.copy_(a), sync) / 1e9)
        triad.append(3 * size / _timed(lambda: torch.add(b, c, alpha=3.0, out=a), sync) / 1e9)
    return {"array_bytes": size, "last_level_cache_bytes": llc, "copy_gbs": copy, "triad_gbs": triad}


def gemm(device: torch.device, dtype: torch.dtype, sync, clock: _Clock, share_end: float) -> dict:
    """GFLOP/s of repeated n x n matmuls, n grown until one call takes GEMM_MIN_CALL_S."""
    n, seconds = 256, 0.0
    while True:
        x = torch.randn(n, n, device=device).to(dtype)
        y = torch.randn(n, n, device=device).to(dtype)
        torch.mm(x, y)  # first call: library set-up, not timed
        seconds = _timed(lambda x=x, y=y: torch.mm(x, y), sync)
        if seconds >= GEMM_MIN_CALL_S or n >= GEMM_MAX_N or clock.left() - 8 * seconds <= share_end:
            break
        n *= 2
    samples = [2 * n**3 / seconds / 1e9]
    for _ in range(GEMM_REPEATS - 1):
        if clock.left() - seconds <= share_end:
            break
        samples.append(2 * n**3 / _timed(lambda x=x, y=y: torch.mm(x, y), sync) / 1e9)
    return {"n": n, "gflops": samples}


def bf16_unsupported(device: torch.device) -> str | None:
    if device.type == "cuda":
        return None if torch.cuda.is_bf16_supported() else "this GPU does not support bfloat16"
    try:
        supported = torch.ops.mkldnn._is_mkldnn_bf16_supported()
    except (AttributeError, RuntimeError):
        supported = False
    return None if supported else "this CPU has no bfloat16 support in oneDNN (avx512_bf16 / AMX)"


def measure(device: torch.device, budget_s: float = BUDGET_S) -> dict:
    """The roofs of `device` with this process's threads, within budget_s (see the docstring)."""
    sync = (lambda: torch.cuda.synchronize(device)) if device.type == "cuda" else (lambda: None)
    clock = _Clock(budget_s)
    threads = torch.get_num_threads()
    unmeasured = {}
    stream = bandwidth(device, sync, clock, budget_s * 0.55)
    best = max(stream["copy_gbs"] + stream["triad_gbs"], default=None)
    gflops, gemms = {}, {}
    with torch.no_grad():
        for dtype, share in ((torch.float32, 0.25), (torch.bfloat16, 0.0)):
            name = str(dtype).removeprefix("torch.")
            why = bf16_unsupported(device) if dtype == torch.bfloat16 else None
            if why is None and clock.left() <= share * budget_s:
                why = f"the {budget_s:g} s budget was spent before it"
            if why is not None:
                unmeasured[name] = why
                continue
            gemms[name] = gemm(device, dtype, sync, clock, share * budget_s)
            gflops[name] = max(gemms[name]["gflops"])
    if best is None:
        unmeasured["bandwidth"] = f"the {budget_s:g} s budget was spent before it"
    return {"bandwidth_gbs": best, "gflops": gflops, "threads": threads, "device": device_name(device),
            "method": f"STREAM copy and triad on {stream['array_bytes'] // MIB} MiB float32 arrays, best of "
                      f"{len(stream['copy_gbs'])}; square matmul per dtype, best of its repetitions "
                      f"(worker roofs.py v{METHOD_VERSION})",
            "measured_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "stream": stream, "gemm": gemms, "unmeasured": unmeasured}


def for_run(mode: str, device: torch.device) -> dict:
    """The roofs a traced run reports: from the cache (mode "cached"), measured and cached
    ("measure", or "cached" on a miss), or {"error": why} when skipped or not measurable."""
    if mode == "skip":
        return {"error": "skipped: the request said capture.roofs = skip (--no-roofs)"}
    threads = torch.get_num_threads()
    path = os.path.join(cache_dir(), cache_key(device, threads) + ".json")
    if mode == "cached":
        try:
            with open(path) as f:
                cached = json.load(f)
            if isinstance(cached, dict) and cached.get("bandwidth_gbs"):
                return {**cached, "cache": "hit"}
        except (OSError, ValueError):
            pass
    start = time.perf_counter()
    try:
        roofs = measure(device)
    except Exception as exc:  # a roof that cannot be measured is said, never guessed
        return {"error": f"measuring the roofs raised {type(exc).__name__}: {exc}"}
    roofs["seconds"] = time.perf_counter() - start
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            json.dump(roofs, f)
        os.replace(tmp, path)
    except OSError:
        pass  # not cached: measured again next time
    return {**roofs, "cache": "refreshed" if mode == "measure" else "miss"}
