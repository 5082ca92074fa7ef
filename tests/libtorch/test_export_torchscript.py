"""The worker's export_torchscript request (docs/libtorch.md), run as the C++ side runs it."""
import json
import os
import subprocess
import sys

import torch

WORKER = os.path.join(os.path.dirname(__file__), "..", "..", "plugins", "torch_compile", "worker")


def _ask(request: dict) -> list[dict]:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(WORKER))
    done = subprocess.run([sys.executable, "-m", "fusescope_worker"], input=json.dumps(request) + "\n",
                          capture_output=True, text=True, env=env, timeout=300)
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def _request(model: str, out_dir, **extra) -> dict:
    return {"type": "export_torchscript", "id": "t", "model": model, "device": "cpu", "out_dir": str(out_dir),
            "measure": {"warmup": 1, "min_runs": 2, "min_time_s": 0, "max_runs": 2}, **extra}


def test_export_writes_loadable_files_and_eager_samples(tmp_path):
    messages = _ask(_request("demo:mlp", tmp_path))
    types = [m["type"] for m in messages]
    assert types[0] == "hello" and types[-1] == "bye"
    assert "model" in types
    eager = [ms for m in messages if m["type"] == "samples" for ms in m["ms"]]
    assert len(eager) == 2
    reply = next(m for m in messages if m["type"] == "torchscript_exported")
    assert reply["method"] == "script" and reply["script_error"] is None
    module = torch.jit.load(reply["model_path"])
    data = torch.jit.load(reply["data_path"])
    with torch.no_grad():
        out = module(*data.inputs)
    assert torch.allclose(out, data.outputs[0], atol=1e-5)


def test_model_errors_keep_their_codes(tmp_path):
    messages = _ask(_request("demo:nope", tmp_path))
    error = next(m for m in messages if m["type"] == "error")
    assert error["code"] == "model_not_found"


def test_other_devices_are_refused(tmp_path):
    messages = _ask(_request("demo:mlp", tmp_path, device="cuda"))
    error = next(m for m in messages if m["type"] == "error")
    assert error["code"] == "bad_request"
