"""Jobs on this machine: up to --jobs at once, each on its own CPU set (placement.py)."""
import os
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed

from . import runner, state


def run(jobs: list, out_dir: str, cli: str, timeout: float, concurrency: int, stop: threading.Event,
        on_start, on_finish) -> None:
    def one(job):
        if stop.is_set():
            return job, {"status": "interrupted", "reason": "interrupted before it started"}
        out = os.path.join(out_dir, state.report_name(job.id))
        log = os.path.join(out_dir, state.log_name(job.id))
        result = runner.run_compare(cli, job.describe(), out, log, timeout, slots=concurrency,
                                    should_stop=stop.is_set, on_start=lambda r: on_start(job, r))
        return job, result

    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        futures = [pool.submit(one, job) for job in jobs]
        for future in as_completed(futures):
            job, result = future.result()
            on_finish(job, result)
