"""Threads and CPU placement of a run (request `placement`, docs/measurement.md "Threads and
placement"). Applied first in a run, before the model loads."""
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


def apply(placement: dict) -> dict:
    """Pin, then set torch's intra-op threads (and OMP/MKL for child processes such as
    Inductor's compile workers). Returns what is in effect, for the result's `placement`."""
    import torch
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
            "pin": pin}
