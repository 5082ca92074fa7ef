"""Helpers for the LibTorch export requests' tests (export_torchscript, export_aoti): the worker
run as the C++ side runs it, one request on stdin, every stdout line parsed."""
import json
import os
import subprocess
import sys

WORKER = os.path.join(os.path.dirname(__file__), "..", "..", "plugins", "worker")


def ask(request: dict, timeout: float = 500, then: tuple = ()) -> list[dict]:
    """`then`: lines written after the request (the runner's eager_call / shutdown requests)."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(WORKER))
    lines = "".join(json.dumps(r) + "\n" for r in (request, *then))
    done = subprocess.run([sys.executable, "-m", "fusescope_worker"], input=lines,
                          capture_output=True, text=True, env=env, timeout=timeout)
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def export_request(kind: str, request_id: str, model: str, out_dir, **extra) -> dict:
    return {"type": kind, "id": request_id, "model": model, "device": "cpu", "out_dir": str(out_dir),
            **extra}
