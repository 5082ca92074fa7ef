"""Is the machine quiet enough to time on? (docs/measurement.md, "Machine check")

Pure computations on numbers read from /proc and /sys, as pyperf's `system` checks do; the
readers are in machine_probe.py, so these run on scripted numbers in tests. CPU times are clock
ticks (USER_HZ, 100 a second on Linux); a core busy for the whole window counts as 1.0.
"""
from dataclasses import dataclass, field

# Thresholds (docs/measurement.md lists them with their reasons).
BUSY_CORES = 0.2           # other processes' CPU use while samples were taken, in cores
STEAL_FRACTION = 0.05      # CPU time the hypervisor gave to other guests, of the window
MEMORY_STALL_FRACTION = 0.10  # /proc/pressure/memory "some": time tasks waited for memory
MEMORY_AVAILABLE_FRACTION = 0.05  # without PSI: MemAvailable below this share of MemTotal


@dataclass
class CpuTimes:
    """One cpu line of /proc/stat, in ticks."""
    busy: int = 0   # user + nice + system + irq + softirq (guest time is inside user)
    idle: int = 0   # idle + iowait
    steal: int = 0

    @property
    def total(self) -> int:
        return self.busy + self.idle + self.steal


@dataclass
class Snapshot:
    """What machine_probe read at one instant. None where the file was not readable."""
    cpus: dict = field(default_factory=dict)  # cpu index -> CpuTimes
    procs_running: int | None = None          # /proc/stat procs_running: runnable tasks, ours included
    own_running: int = 0                      # our threads in state R (the reader among them)
    own_ticks: int | None = None              # utime + stime of this process and its children
    memory_stall_us: int | None = None        # /proc/pressure/memory "some" total, microseconds
    mem_available: int | None = None          # bytes
    mem_total: int | None = None
    throttle_events: int | None = None        # thermal_throttle counts, summed over our CPUs
    time_s: float = 0.0                       # time.monotonic() at the read


def parse_proc_stat(text: str) -> tuple[dict, int | None]:
    """/proc/stat: per-cpu times (cpuN lines; the aggregate `cpu` line is not used) and procs_running."""
    cpus, running = {}, None
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0].startswith("cpu") and parts[0][3:].isdigit():
            v = [int(x) for x in parts[1:11]] + [0] * (10 - len(parts[1:11]))
            user, nice, system, idle, iowait, irq, softirq, steal = v[:8]
            cpus[int(parts[0][3:])] = CpuTimes(busy=user + nice + system + irq + softirq, idle=idle + iowait,
                                               steal=steal)
        elif parts[0] == "procs_running" and len(parts) > 1:
            running = int(parts[1])
    return cpus, running


def parse_pid_stat(text: str) -> tuple[str, int, int]:
    """/proc/PID/stat: (state, utime + stime, cutime + cstime). The command name is in
    parentheses and may hold spaces or parentheses itself, so fields count from the last ')'."""
    rest = text[text.rindex(")") + 2:].split()
    # rest[0] is field 3 (state); utime, stime, cutime, cstime are fields 14..17.
    return rest[0], int(rest[11]) + int(rest[12]), int(rest[13]) + int(rest[14])


def parse_psi_some_total(text: str) -> int | None:
    """/proc/pressure/memory: the `total=` (microseconds) of its "some" line."""
    for line in text.splitlines():
        if line.startswith("some "):
            for item in line.split()[1:]:
                if item.startswith("total="):
                    return int(item[len("total="):])
    return None


def parse_meminfo(text: str) -> tuple[int | None, int | None]:
    """/proc/meminfo: (MemAvailable, MemTotal) in bytes."""
    values = {}
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        if name in ("MemAvailable", "MemTotal") and rest.split():
            values[name] = int(rest.split()[0]) * 1024
    return values.get("MemAvailable"), values.get("MemTotal")


def other_runnable(procs_running: int | None, own_running: int) -> int | None:
    """Runnable tasks that are not ours (procs_running counts ours, the reading thread included)."""
    if procs_running is None:
        return None
    return max(procs_running - own_running, 0)


def window_ticks(before: Snapshot, after: Snapshot, cpus: list) -> float:
    """Elapsed ticks of one CPU over the window, averaged over `cpus`."""
    deltas = [after.cpus[c].total - before.cpus[c].total for c in cpus if c in before.cpus and c in after.cpus]
    return sum(deltas) / len(deltas) if deltas else 0.0


def other_cores(before: Snapshot, after: Snapshot, cpus: list) -> tuple[float, float] | None:
    """(cores of `cpus` kept busy by other processes over the window, resolution of that number).
    Busy ticks of our CPUs minus our own ticks (this process and its children), over elapsed ticks.
    Each counter moves in whole ticks, so the result is uncertain by about (len(cpus) + 1) ticks."""
    if before.own_ticks is None or after.own_ticks is None:
        return None
    known = [c for c in cpus if c in before.cpus and c in after.cpus]
    elapsed = window_ticks(before, after, known)
    if not known or elapsed <= 0:
        return None
    busy = sum(after.cpus[c].busy - before.cpus[c].busy for c in known)
    ours = after.own_ticks - before.own_ticks
    return max(busy - ours, 0) / elapsed, (len(known) + 1) / elapsed


def steal_fraction(before: Snapshot, after: Snapshot, cpus: list) -> float | None:
    known = [c for c in cpus if c in before.cpus and c in after.cpus]
    total = sum(after.cpus[c].total - before.cpus[c].total for c in known)
    if total <= 0:
        return None
    return sum(after.cpus[c].steal - before.cpus[c].steal for c in known) / total


def memory_stall_fraction(before: Snapshot, after: Snapshot) -> float | None:
    if before.memory_stall_us is None or after.memory_stall_us is None or after.time_s <= before.time_s:
        return None
    return (after.memory_stall_us - before.memory_stall_us) / 1e6 / (after.time_s - before.time_s)


def _warning(code: str, message: str) -> dict:
    return {"code": code, "message": message}


def assess(before: Snapshot, after: Snapshot, cpus: list, governors: dict | None = None,
           what: str = "eager/compiled samples") -> list[dict]:
    """The warnings for one sampling window on `cpus` (the CPUs this process may run on).
    `governors`: cpu -> scaling_governor, for the CPUs where it is readable."""
    warnings = []
    busy = other_cores(before, after, cpus)
    if busy is not None:
        cores, resolution = busy
        # Judged less the tick resolution, so a short window never warns on rounding alone.
        if cores - resolution > BUSY_CORES:
            runnable = other_runnable(before.procs_running, before.own_running)
            before_text = (f" ({runnable} other task{' was' if runnable == 1 else 's were'} runnable as sampling "
                           f"began)") if runnable else ""
            warnings.append(_warning(
                "machine_busy", f"other processes used {cores:.2f} of {len(cpus)} cores while {what} were taken"
                f"{before_text}; timings are distorted (docs/measurement.md)"))
    steal = steal_fraction(before, after, cpus)
    if steal is not None and steal > STEAL_FRACTION:
        warnings.append(_warning(
            "cpu_steal", f"the hypervisor took {steal:.0%} of this machine's CPU time (steal) while {what} were "
            f"taken; timings include waits for other virtual machines (docs/measurement.md)"))
    slow = sorted({g for g in (governors or {}).values() if g and g != "performance"})
    if slow:
        warnings.append(_warning(
            "cpu_governor", f"CPU frequency governor is {', '.join(slow)}, not performance: clock speed follows "
            f"load and timings drift (docs/measurement.md)"))
    if before.throttle_events is not None and after.throttle_events is not None \
            and after.throttle_events > before.throttle_events:
        warnings.append(_warning(
            "cpu_throttled", f"the CPU throttled {after.throttle_events - before.throttle_events} time(s) for heat "
            f"while {what} were taken (docs/measurement.md)"))
    stall = memory_stall_fraction(before, after)
    if stall is not None:
        if stall > MEMORY_STALL_FRACTION:
            warnings.append(_warning(
                "memory_pressure", f"tasks waited for memory {stall:.0%} of the time while {what} were taken "
                f"(/proc/pressure/memory); timings include reclaim and swapping (docs/measurement.md)"))
    elif after.mem_available is not None and after.mem_total:
        if after.mem_available < MEMORY_AVAILABLE_FRACTION * after.mem_total:
            warnings.append(_warning(
                "memory_pressure", f"only {after.mem_available / 2**20:.0f} MiB of {after.mem_total / 2**20:.0f} MiB "
                f"memory was available after {what} were taken; timings may include reclaim (docs/measurement.md)"))
    return warnings
