"""Which CPUs a job measures on (docs/sweeps.md, "Placement").

Jobs that run at the same time on one machine split its CPUs into disjoint sets, one per slot,
and each job's compare is pinned (--pin) to its set. A job holds an exclusive lock on every CPU
of its set (flock on one file per CPU in the lock folder) for as long as it runs, so two jobs,
even of two sweeps, never measure on the same core at once; the kernel drops the locks when the
process ends, however it ends."""
import fcntl
import os
import tempfile
import time


def lock_dir() -> str:
    return os.environ.get("FUSESCOPE_CPU_LOCK_DIR") or os.path.join(tempfile.gettempdir(), "fusescope-cpu-locks")


def usable_cpus() -> list:
    return sorted(os.sched_getaffinity(0))


def cpu_sets(cpus: list, slots: int) -> list:
    """`slots` disjoint sets of neighbouring CPUs, as even as they go."""
    if slots < 1:
        raise ValueError("at least one slot")
    if slots > len(cpus):
        raise ValueError(f"{slots} concurrent jobs need {slots} CPUs, this machine lets us use "
                         f"{len(cpus)} ({cpu_list_text(cpus)})")
    size, extra = divmod(len(cpus), slots)
    out, start = [], 0
    for i in range(slots):
        n = size + (1 if i < extra else 0)
        out.append(cpus[start:start + n])
        start += n
    return out


def cpu_list_text(cpus: list) -> str:
    """[0, 1, 2, 5] -> '0-2,5', as --pin takes it."""
    parts, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        parts.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(parts)


class CpuSlot:
    """Exclusive use of one CPU set while the `with` block runs. `pin` is the --pin value, None
    when the job has the whole machine (one slot)."""

    def __init__(self, slots: int, should_stop=lambda: False, poll_s: float = 0.2):
        self.sets = cpu_sets(usable_cpus(), slots)
        self.whole_machine = slots == 1
        self.should_stop = should_stop
        self.poll_s = poll_s
        self.cpus = None
        self._files = []

    @property
    def pin(self):
        return None if self.whole_machine or self.cpus is None else cpu_list_text(self.cpus)

    def _try(self, cpus) -> bool:
        os.makedirs(lock_dir(), exist_ok=True)
        files = []
        for cpu in cpus:
            f = open(os.path.join(lock_dir(), f"cpu-{cpu}.lock"), "a+")
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                f.close()
                for g in files:
                    g.close()
                return False
            files.append(f)
        self._files = files
        return True

    def __enter__(self):
        while True:
            for cpus in self.sets:
                if self._try(cpus):
                    self.cpus = cpus
                    return self
            if self.should_stop():
                raise InterruptedError("stopped while waiting for free CPUs")
            time.sleep(self.poll_s)

    def __exit__(self, *exc):
        for f in self._files:
            f.close()
        self._files = []
        return False
