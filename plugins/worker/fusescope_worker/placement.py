"""Threads, CPU placement and the C allocator's policy of a run (request `placement`,
docs/measurement.md "Threads and placement" and "The allocator"). Applied first in a run,
before the model loads."""
import ctypes
import os

from .errors import BAD_REQUEST, WorkerError

MAX_THREADS = 1024
THREAD_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")


def default_threads(usable_cpus: int, pinned: bool) -> int:
    """Pinned: one thread per pinned CPU (the user set those CPUs aside for the run). Otherwise
    one CPU fewer than the process may use, at least 1: the parent process and the rest of the
    machine keep a core, so an OpenMP thread is never left spin-waiting for a partner that was
    descheduled (measured: 2 threads on 2 cores went from 31 to 328 ms with one other busy
    process; 1 thread stayed at 66 ms)."""
    return max(usable_cpus if pinned else usable_cpus - 1, 1)


def _pin(cpus: list) -> None:
    # Every thread of the process (torch may have started its pools already), then this one.
    try:
        tids = [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        tids = []
    try:
        for tid in tids:
            try:
                os.sched_setaffinity(tid, cpus)
            except ProcessLookupError:  # a thread that ended meanwhile
                pass
        os.sched_setaffinity(0, cpus)
    except OSError as exc:
        raise WorkerError(BAD_REQUEST, f"placement.pin {cpus}: cannot run on those CPUs ({exc.strerror}); "
                          f"this process may use CPUs {sorted(os.sched_getaffinity(0))}") from exc


MALLOC_POLICIES = ("steady", "system")
# glibc's mallopt parameters (malloc.h) and the values of the steady policy: CPU tensors up to
# 32 MiB (glibc's largest mmap threshold on 64-bit) come from the heap, and the heap is given
# back to the system only when 512 MiB at its top are free. Setting either disables glibc's
# dynamic thresholds, which otherwise move with every large free.
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
STEADY_MMAP_THRESHOLD = 32 * 1024 * 1024
STEADY_TRIM_THRESHOLD = 512 * 1024 * 1024


def apply_malloc(policy: str) -> str:
    """`steady`: fixed glibc thresholds, so that a call's intermediates reuse heap memory instead
    of fresh pages that fault in on every call, whatever the process did before (an fp64
    reference, a profiled call...). Measured on the issue's residual MLP in fresh processes:
    100-3000 minor page faults per eager call with glibc's dynamic thresholds, depending on what
    ran before, 0 with these. `system`: glibc as it starts. Returns what is in effect."""
    if policy == "system":
        return "system"
    try:
        libc = ctypes.CDLL(None)  # the C library this process runs on
        libc.gnu_get_libc_version  # noqa: B018 - the lookup is the check: glibc only, musl's mallopt does nothing
        mallopt = libc.mallopt
    except (OSError, AttributeError) as exc:
        return f"system (steady needs glibc's mallopt: {exc})"
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    if mallopt(M_MMAP_THRESHOLD, STEADY_MMAP_THRESHOLD) != 1 or mallopt(M_TRIM_THRESHOLD, STEADY_TRIM_THRESHOLD) != 1:
        return "system (glibc refused mallopt)"
    return "steady"


def apply(placement: dict) -> dict:
    """The allocator policy, pin, then set torch's intra-op threads (and OMP/MKL for child
    processes such as Inductor's compile workers). Returns what is in effect, for the result's
    `placement`."""
    import torch
    malloc = apply_malloc(placement.get("malloc") or "steady")  # checked by request._placement
    pin = placement.get("pin")
    if pin:
        _pin(pin)
    affinity = sorted(os.sched_getaffinity(0))
    requested = placement.get("threads")
    threads = requested or default_threads(len(affinity), bool(pin))
    for name in THREAD_ENV:
        os.environ[name] = str(threads)
    torch.set_num_threads(threads)
    return {"threads": torch.get_num_threads(), "threads_requested": requested, "affinity": affinity,
            "pin": pin, "malloc": malloc}
