"""One job: one `fusescope-cli compare` in a process group of its own, bounded by the job's
timeout, stopped with SIGINT (the compare saves what finished) when the sweep is interrupted."""
import ctypes
import os
import signal
import socket
import subprocess
import time

from .placement import CpuSlot

# compare's exit codes (docs/cli.md)
EXIT_STATUS = {0: "ok", 2: "partial", 3: "failed", 4: "interrupted"}
_PR_SET_PDEATHSIG = 1


def _die_with_parent():
    # The compare (and, through its process group, its workers) must not outlive the process that
    # runs the job: a Ray worker killed with its node, or a driver killed with SIGKILL.
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def _reason_from_log(text: str, code) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        if line.startswith("error:"):
            return line[len("error:"):].strip()
    tail = lines[-1] if lines else "no output"
    return f"compare exited with {code}: {tail}"[:500]


def run_compare(cli: str, job: dict, out: str, log: str, timeout: float, slots: int = 1,
                should_stop=lambda: False, on_start=None) -> dict:
    """Runs the job and returns {status, exit_code, reason, seconds, node, pin}. `out` and `log`
    are paths on this machine. `should_stop` is polled; when it turns true the compare gets SIGINT
    and the job ends `interrupted`."""
    result = {"node": socket.gethostname(), "pin": None, "exit_code": None, "reason": None}
    if not os.path.exists(cli):
        result.update(status="failed", seconds=0.0,
                      reason=f"fusescope-cli not found at {cli} on {result['node']}: install FuseScope at "
                             f"the same path on every node, or set FUSESCOPE_SWEEP_CLI there")
        return result
    started = time.monotonic()
    try:
        with CpuSlot(slots, should_stop) as slot:
            args = [cli, "compare", job["model"], *job["args"], "--out", out]
            if slot.pin:
                args += ["--pin", slot.pin]
            result["pin"] = slot.pin
            if on_start:
                on_start(result)
            with open(log, "wb") as log_file:
                proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT,
                                        start_new_session=True, preexec_fn=_die_with_parent)
                status = None
                try:
                    while proc.poll() is None:
                        if should_stop():
                            status = "interrupted"
                            _stop(proc)
                            break
                        if time.monotonic() - started > timeout:
                            status = "timeout"
                            _stop(proc)
                            break
                        time.sleep(0.1)
                except BaseException:
                    # Ray cancels a task with KeyboardInterrupt; the compare goes with it.
                    _stop(proc)
                    raise
    except InterruptedError:
        result.update(status="interrupted", seconds=time.monotonic() - started, reason="interrupted before it started")
        return result
    code = proc.returncode
    result["exit_code"] = code
    result["seconds"] = time.monotonic() - started
    try:
        with open(log, "rb") as f:
            text = f.read()[-20000:].decode("utf-8", "replace")
    except OSError:
        text = ""
    if status == "timeout":
        result.update(status="failed", reason=f"timeout: the job ran past the sweep's {timeout:g} s timeout")
    elif status == "interrupted" or code == 4:
        result.update(status="interrupted", reason="interrupted")
    elif code in EXIT_STATUS:
        result["status"] = EXIT_STATUS[code]
        if code == 3:
            result["reason"] = "no backend ran (reasons per backend in the report)"
    else:
        result.update(status="failed", reason=_reason_from_log(text, code if code >= 0 else
                                                               f"signal {signal.Signals(-code).name}"))
    return result


def _stop(proc: subprocess.Popen, grace_s: float = 20.0):
    """SIGINT first (compare stops its backend and saves), then SIGKILL on the whole group."""
    try:
        os.kill(proc.pid, signal.SIGINT)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
