"""Jobs on a Ray cluster (docs/sweeps.md, "Ray").

Each job is a Ray task needing one unit of the custom resource `fusescope_slot`: a node declares
how many jobs may measure on it at once (`ray start --resources='{"fusescope_slot": 1}'`, one by
default for the local cluster per --jobs), and on the node the job takes one disjoint CPU set of
as many as the node has slots (placement.py). The task writes the report on the node and returns
its bytes, so DIR need not be shared. A task whose worker or node dies is retried by Ray
(max_retries); a compare that fails is a result, never an exception, so it is not retried."""
import os
import tempfile
import threading
import time

from . import runner, state

SLOT = "fusescope_slot"
MAX_RETRIES = 3


def _node_slots() -> int:
    import ray
    node_id = ray.get_runtime_context().get_node_id()
    for node in ray.nodes():
        if node.get("NodeID") == node_id:
            return max(int(node.get("Resources", {}).get(SLOT, 1)), 1)
    return 1


def run_job(job: dict, cli: str, timeout: float) -> dict:
    """The Ray task body; runs on some node."""
    cli = os.environ.get("FUSESCOPE_SWEEP_CLI") or cli
    with tempfile.TemporaryDirectory(prefix="fusescope-job-") as tmp:
        out = os.path.join(tmp, "report.fscope")
        log = os.path.join(tmp, "compare.log")
        result = runner.run_compare(cli, job, out, log, timeout, slots=_node_slots())
        for key, path in (("report_bytes", out), ("log_bytes", log)):
            try:
                with open(path, "rb") as f:
                    result[key] = f.read()
            except OSError:
                result[key] = None
    return result


def connect(address, concurrency: int):
    """Connects to the cluster at `address`, or starts a local one of `concurrency` slots."""
    import ray
    if address:
        here = os.path.dirname(os.path.abspath(__file__))
        ray.init(address=address, log_to_driver=False, runtime_env={"py_modules": [here]})
        total = ray.cluster_resources().get(SLOT, 0)
        if total < 1:
            ray.shutdown()
            raise RuntimeError(f"the Ray cluster at {address} declares no {SLOT} resource: start each node "
                               f"with `ray start ... --resources='{{\"{SLOT}\": 1}}'` (how many jobs may "
                               f"measure on it at once; docs/sweeps.md)")
    else:
        ray.init(address="local", num_cpus=concurrency, resources={SLOT: concurrency},
                 include_dashboard=False, log_to_driver=False, configure_logging=False)


def run(jobs: list, out_dir: str, cli: str, timeout: float, address, concurrency: int,
        stop: threading.Event, on_start, on_finish) -> None:
    import ray
    connect(address, concurrency)
    try:
        task = ray.remote(run_job).options(num_cpus=0, resources={SLOT: 1}, max_retries=MAX_RETRIES,
                                           retry_exceptions=False)
        pending = {task.remote(job.describe(), cli, timeout): job for job in jobs}
        for job in jobs:
            on_start(job, {"node": None, "pin": None, "submitted": True})
        cancelled_at = None
        while pending:
            if stop.is_set() and cancelled_at is None:
                cancelled_at = time.monotonic()
                for ref in pending:
                    ray.cancel(ref, force=False)
            done, _ = ray.wait(list(pending), num_returns=1, timeout=0.5)
            for ref in done:
                job = pending.pop(ref)
                try:
                    result = ray.get(ref)
                except (ray.exceptions.TaskCancelledError, KeyboardInterrupt):
                    result = {"status": "interrupted", "reason": "interrupted"}
                except ray.exceptions.RayError as exc:
                    # Retries spent (node lost every time) or the task could not run at all.
                    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                    result = {"status": "failed",
                              "reason": f"ray: {type(exc).__name__} after {MAX_RETRIES} retries: {first}"[:500]}
                if stop.is_set() and result.get("status") not in ("ok", "partial", "failed"):
                    result["status"] = "interrupted"
                report = result.pop("report_bytes", None)
                log = result.pop("log_bytes", None)
                if log is not None:
                    state.write_bytes_atomically(os.path.join(out_dir, state.log_name(job.id)), log)
                if report is not None:
                    state.write_bytes_atomically(os.path.join(out_dir, state.report_name(job.id)), report)
                on_finish(job, result)
            if cancelled_at is not None and time.monotonic() - cancelled_at > 60:
                # Tasks that ignore the cancel: left as interrupted, rerun on resume.
                for job in pending.values():
                    on_finish(job, {"status": "interrupted", "reason": "interrupted"})
                break
    finally:
        ray.shutdown()
