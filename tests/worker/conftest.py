"""Helpers for the capture worker's tests: run `python -m fusescope_worker` as the C++ side does
(a child process, requests on stdin, JSON lines on stdout) and read what it says."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
WORKER_DIR = ROOT / "plugins" / "worker"
FIXTURES = ROOT / "tests" / "fixtures" / "models"
SCHEMA = ROOT / "docs" / "graph-schema.json"

if str(WORKER_DIR) not in sys.path:
    sys.path.insert(0, str(WORKER_DIR))

# Short measurement so the suite stays quick; the method is the same as with the defaults.
FAST_MEASURE = {"warmup": 1, "min_runs": 3, "min_time_s": 0.0, "max_runs": 20, "max_time_s": 2.0}


class WorkerRun:
    """One worker process: its exit status, every stdout line parsed, and its stderr."""

    def __init__(self, proc: subprocess.CompletedProcess):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.lines = proc.stdout.splitlines()
        self.messages = [json.loads(line) for line in self.lines]  # every line must be JSON

    def of_type(self, kind: str) -> list[dict]:
        return [m for m in self.messages if m["type"] == kind]

    def one(self, kind: str) -> dict:
        found = self.of_type(kind)
        assert len(found) == 1, f"expected one {kind} message, got {len(found)}\n{self}"
        return found[0]

    def stages(self, name: str | None = None) -> list[dict]:
        return [m["stage"] for m in self.of_type("stage") if name is None or m["stage"]["name"] == name]

    def stage(self, name: str, graph: int = 0) -> dict:
        found = [s for s in self.stages(name) if s["graph"] == graph]
        assert len(found) == 1, f"expected one {name} stage for graph {graph}, got {len(found)}\n{self}"
        return found[0]

    def __repr__(self):
        return f"exit {self.returncode}\nstdout tail:\n{self.stdout[-3000:]}\nstderr tail:\n{self.stderr[-3000:]}"


def run_worker(*requests, raw: str | None = None, env: dict | None = None, timeout: float = 600) -> WorkerRun:
    """Start the worker, write the requests (dicts, or `raw` text) to stdin, wait for exit."""
    env = {**os.environ, "PYTHONPATH": str(WORKER_DIR), **(env or {})}
    text = raw if raw is not None else "".join(json.dumps(r) + "\n" for r in requests)
    proc = subprocess.run([sys.executable, "-m", "fusescope_worker"], input=text, capture_output=True,
                          text=True, env=env, timeout=timeout, cwd=str(ROOT))
    return WorkerRun(proc)


def run_request(model: str, backend: str, **fields) -> dict:
    request = {"type": "run", "id": "t1", "model": str(model), "backend": backend, "device": "cpu",
               "options": {"mode": None, "fullgraph": False, "dynamic": None, "inductor": {}},
               "measure": FAST_MEASURE, "capture": {"stages": True, "code": True}, "inputs": None}
    request.update(fields)
    return request


def run_model(model, backend: str, env: dict | None = None, **fields) -> WorkerRun:
    return run_worker(run_request(model, backend, **fields), env=env)


@pytest.fixture(scope="session")
def schema() -> dict:
    return json.loads(SCHEMA.read_text())
