"""python -m fusescope_sweep SPEC --out DIR --cli PATH [--executor local|ray] [--ray-address A]
[--jobs N] [--retry-failed]

Started by `fusescope-cli sweep`. Prints one JSON object per line on stdout (events: plan,
started, finished, done) and keeps DIR/sweep.json current; messages for people go to stderr.
Exit codes follow compare's: 0 every job ok, 2 some failed, 3 all failed, 4 interrupted,
64 bad spec or arguments, 1 the executor could not start."""
import argparse
import json
import os
import signal
import sys
import threading
import time

from . import spec as spec_mod
from . import state

EXIT_OK, EXIT_ERROR, EXIT_PARTIAL, EXIT_ALL_FAILED, EXIT_CANCELLED, EXIT_USAGE = 0, 1, 2, 3, 4, 64
_emit_lock = threading.Lock()


def emit(event: str, **fields) -> None:
    with _emit_lock:
        sys.stdout.write(json.dumps({"event": event, **fields}) + "\n")
        sys.stdout.flush()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="fusescope_sweep")
    p.add_argument("spec")
    p.add_argument("--out", required=True)
    p.add_argument("--cli", required=True)
    p.add_argument("--executor", choices=("local", "ray"), default="local")
    p.add_argument("--ray-address", default=None)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--retry-failed", action="store_true")
    a = p.parse_args(argv)
    if a.jobs < 1 or a.jobs > 1024:
        print("error: --jobs takes 1 to 1024", file=sys.stderr)
        return EXIT_USAGE
    try:
        spec = spec_mod.load(a.spec)
    except spec_mod.SpecError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not spec.jobs:
        print(f"error: {a.spec}: the spec expands to no job", file=sys.stderr)
        return EXIT_USAGE
    out_dir = os.path.abspath(a.out)
    try:
        os.makedirs(os.path.join(out_dir, "logs"), exist_ok=True)
    except OSError as exc:
        print(f"error: --out {a.out}: cannot create the folder ({exc.strerror})", file=sys.stderr)
        return EXIT_USAGE
    if a.executor == "local":
        from .placement import cpu_sets, usable_cpus
        try:
            cpu_sets(usable_cpus(), a.jobs)
        except ValueError as exc:
            print(f"error: --jobs {a.jobs}: {exc}", file=sys.stderr)
            return EXIT_USAGE

    previous = state.load(out_dir)
    entries, to_run = [], []
    for job in spec.jobs:
        old = previous.get(job.id)
        if state.should_run(old, out_dir, a.retry_failed):
            entry = {**job.describe(), "status": "pending", "report": state.report_name(job.id),
                     "log": state.log_name(job.id), "reason": None, "exit_code": None, "seconds": None,
                     "node": None, "pin": None, "attempts": (old or {}).get("attempts", 0)}
            to_run.append(job)
        else:
            entry = old
        entries.append(entry)
    by_id = {e["id"]: e for e in entries}
    lock = threading.Lock()

    def save():
        with lock:
            state.write(out_dir, spec, a.executor, entries)

    save()
    emit("plan", jobs=len(entries), to_run=len(to_run), skipped=len(entries) - len(to_run),
         executor=a.executor, name=spec.name)

    stop = threading.Event()

    def on_signal(signum, _frame):
        if stop.is_set():
            return
        stop.set()
        print("\ninterrupted: stopping the running jobs (they save what finished)...", file=sys.stderr)

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    def on_start(job, info):
        with lock:
            e = by_id[job.id]
            e["status"] = "running"
            e["attempts"] = e.get("attempts", 0) + 1
            e["node"], e["pin"] = info.get("node"), info.get("pin")
        save()
        emit("started", id=job.id, node=info.get("node"), pin=info.get("pin"))

    finished = [0]

    def on_finish(job, result):
        with lock:
            e = by_id[job.id]
            for key in ("status", "reason", "exit_code", "seconds", "node", "pin"):
                if key in result:
                    e[key] = result[key]
            finished[0] += 1
        save()
        emit("finished", id=job.id, model=job.model, backends=job.backends, axes=job.axes,
             status=e["status"], reason=e["reason"], seconds=e.get("seconds"), node=e.get("node"),
             done=finished[0], total=len(to_run))

    started = time.monotonic()
    try:
        if a.executor == "ray":
            try:
                from . import ray_executor
            except ImportError as exc:
                print(f"error: --executor ray needs the ray package in this Python ({sys.executable}): {exc}",
                      file=sys.stderr)
                return EXIT_ERROR
            ray_executor.run(to_run, out_dir, a.cli, spec.timeout, a.ray_address, a.jobs, stop, on_start,
                             on_finish)
        else:
            from . import local_executor
            local_executor.run(to_run, out_dir, a.cli, spec.timeout, a.jobs, stop, on_start, on_finish)
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    finally:
        # A job left running or pending (an executor that gave up) is not finished.
        with lock:
            for e in entries:
                if e["status"] in ("running", "pending"):
                    e["status"] = "interrupted"
        save()

    statuses = [e["status"] for e in entries]
    if stop.is_set() or "interrupted" in statuses:
        code = EXIT_CANCELLED
    elif all(s == "ok" for s in statuses):
        code = EXIT_OK
    elif any(s in ("ok", "partial") for s in statuses):
        code = EXIT_PARTIAL
    else:
        code = EXIT_ALL_FAILED
    emit("done", exit=code, seconds=time.monotonic() - started,
         counts={s: statuses.count(s) for s in sorted(set(statuses))})
    return code


if __name__ == "__main__":
    sys.exit(main())
