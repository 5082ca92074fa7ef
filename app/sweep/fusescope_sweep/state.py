"""DIR/sweep.json: the sweep's jobs and where each stands, rewritten atomically whenever a job
changes, so a rerun resumes (docs/sweeps.md, "Resume")."""
import datetime
import json
import os
import tempfile

SCHEMA = 1
FINISHED = {"ok", "partial"}
RETRYABLE = {"failed", "partial"}


def state_path(out_dir: str) -> str:
    return os.path.join(out_dir, "sweep.json")


def report_name(job_id: str) -> str:
    return f"{job_id}.fscope"


def log_name(job_id: str) -> str:
    return os.path.join("logs", f"{job_id}.log")


def load(out_dir: str) -> dict:
    """Job id -> its last recorded entry; {} for a new folder or an unreadable file."""
    try:
        with open(state_path(out_dir), encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return {}
    if not isinstance(doc, dict) or doc.get("kind") != "fusescope-sweep" or not isinstance(doc.get("jobs"), list):
        return {}
    return {j["id"]: j for j in doc["jobs"] if isinstance(j, dict) and isinstance(j.get("id"), str)}


def should_run(entry, out_dir: str, retry_failed: bool) -> bool:
    if not entry:
        return True
    status = entry.get("status")
    has_report = os.path.isfile(os.path.join(out_dir, report_name(entry["id"])))
    if status in FINISHED and not has_report:
        return True
    if status == "ok":
        return False
    if status in RETRYABLE:
        return retry_failed
    return True  # pending, running, interrupted: never finished


def write(out_dir: str, spec, executor: str, entries: list) -> None:
    doc = {"schema": SCHEMA, "kind": "fusescope-sweep", "name": spec.name, "spec": spec.path,
           "executor": executor, "updated": datetime.datetime.now(datetime.UTC).isoformat(),
           "jobs": entries}
    fd, tmp = tempfile.mkstemp(prefix=".sweep.", suffix=".json", dir=out_dir)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, state_path(out_dir))
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_bytes_atomically(path: str, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".job.", dir=os.path.dirname(path))
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
