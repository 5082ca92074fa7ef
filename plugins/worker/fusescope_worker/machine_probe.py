"""Reads the numbers machine_check.py judges, from /proc and /sys (docs/measurement.md,
"Machine check"). A file that is missing or unreadable gives None: the check never fails a run."""
import os
import time

from . import machine_check
from .machine_check import Snapshot


def _read(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def _descendants(pid: int) -> list[int]:
    """Live child processes, recursively (/proc/PID/task/TID/children)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        try:
            tids = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for tid in tids:
            for child in (_read(f"/proc/{current}/task/{tid}/children") or "").split():
                if child.isdigit() and int(child) not in found:
                    found.append(int(child))
                    todo.append(int(child))
    return found


def _own() -> tuple[int | None, int]:
    """(ticks of this process, its reaped children and its live descendants; our running threads)."""
    text = _read("/proc/self/stat")
    if text is None:
        return None, 0
    try:
        _, ticks, reaped = machine_check.parse_pid_stat(text)
    except (ValueError, IndexError):
        return None, 0
    ticks += reaped
    for pid in _descendants(os.getpid()):
        child = _read(f"/proc/{pid}/stat")
        if child:
            try:
                ticks += machine_check.parse_pid_stat(child)[1]
            except (ValueError, IndexError):
                pass
    running = 0
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        tids = []
    for tid in tids:
        stat = _read(f"/proc/self/task/{tid}/stat")
        try:
            running += bool(stat) and machine_check.parse_pid_stat(stat)[0] == "R"
        except (ValueError, IndexError):
            pass
    return ticks, max(running, 1)  # the thread reading this is running


def _throttle_events(cpus: list) -> int | None:
    total, seen = 0, False
    for cpu in cpus:
        for name in ("core_throttle_count", "package_throttle_count"):
            text = _read(f"/sys/devices/system/cpu/cpu{cpu}/thermal_throttle/{name}")
            if text and text.strip().isdigit():
                total, seen = total + int(text.strip()), True
    return total if seen else None


def governors(cpus: list) -> dict:
    """cpu -> scaling_governor, where readable (VMs and containers often have no cpufreq)."""
    found = {}
    for cpu in cpus:
        text = _read(f"/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor")
        if text and text.strip():
            found[cpu] = text.strip()
    return found


def snapshot(cpus: list) -> Snapshot:
    snap = Snapshot(time_s=time.monotonic())
    stat = _read("/proc/stat")
    if stat:
        try:
            snap.cpus, snap.procs_running = machine_check.parse_proc_stat(stat)
        except ValueError:
            pass
    snap.own_ticks, snap.own_running = _own()
    psi = _read("/proc/pressure/memory")
    if psi:
        try:
            snap.memory_stall_us = machine_check.parse_psi_some_total(psi)
        except ValueError:
            pass
    meminfo = _read("/proc/meminfo")
    if meminfo:
        try:
            snap.mem_available, snap.mem_total = machine_check.parse_meminfo(meminfo)
        except ValueError:
            pass
    snap.throttle_events = _throttle_events(cpus)
    return snap


class MachineWatch:
    """Snapshots around the timed samples (measure.interleaved calls start and stop)."""

    def __init__(self):
        try:
            self.cpus = sorted(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            self.cpus = list(range(os.cpu_count() or 1))
        self.before = self.after = None

    def start(self) -> None:
        self.before = snapshot(self.cpus)

    def stop(self) -> None:
        self.after = snapshot(self.cpus)

    def warnings(self, what: str = "eager/compiled samples") -> list[dict]:
        if self.before is None or self.after is None:
            return []
        return machine_check.assess(self.before, self.after, self.cpus, governors(self.cpus), what)
