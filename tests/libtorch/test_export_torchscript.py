"""The worker's export_torchscript request (docs/libtorch.md), run as the C++ side runs it."""

import torch

from conftest import ask, export_request


def _ask(request: dict, then: tuple = ()) -> list[dict]:
    return ask(request, timeout=300, then=then)


def _request(model: str, out_dir, **extra) -> dict:
    return export_request("export_torchscript", "t", model, out_dir, **extra)


def test_export_writes_loadable_files_then_serves_eager_calls(tmp_path):
    # After the reply the worker answers the runner's eager calls (eager_server.py): a warm-up
    # request (untimed only), two timed ones, then shutdown.
    calls = ({"type": "eager_call", "untimed": 2, "timed": False},
             {"type": "eager_call", "untimed": 1}, {"type": "eager_call", "untimed": 0},
             {"type": "shutdown"}, {"type": "eager_call"})  # nothing is read after shutdown
    messages = _ask(_request("demo:mlp", tmp_path, placement={"threads": 1, "pin": None}), then=calls)
    types = [m["type"] for m in messages]
    assert types[0] == "hello" and types[-1] == "bye"
    assert "model" in types and "samples" not in types  # the runner streams the eager series
    answers = [m for m in messages if m["type"] == "eager_ms"]
    assert types.index("torchscript_exported") < types.index("eager_ms")
    assert [a["ms"] is None for a in answers] == [True, False, False], answers
    assert all(a["ms"] > 0 and a["faults"] >= 0 for a in answers[1:])
    reply = next(m for m in messages if m["type"] == "torchscript_exported")
    assert reply["method"] == "script" and reply["script_error"] is None
    assert reply["eager_runs_differ"] is None  # two eager calls agreed
    assert reply["placement"]["threads"] == 1 and reply["placement"]["threads_requested"] == 1
    module = torch.jit.load(reply["model_path"])
    # the eager model as a user would ship it without a compiler: its state_dict, torch.save'd,
    # i.e. the weights' bytes plus the container's (a few KiB)
    weights = sum(t.numel() * t.element_size() for t in module.state_dict().values())
    assert weights < reply["eager_model_bytes"] < weights + 16384, (weights, reply["eager_model_bytes"])
    data = torch.jit.load(reply["data_path"])
    with torch.no_grad():
        out = module(*data.inputs)
    assert torch.allclose(out, data.outputs[0], atol=1e-5)


def test_model_errors_keep_their_codes(tmp_path):
    messages = _ask(_request("demo:nope", tmp_path))
    error = next(m for m in messages if m["type"] == "error")
    assert error["code"] == "model_not_found"


def test_a_bad_placement_is_refused_as_for_run(tmp_path):
    messages = _ask(_request("demo:mlp", tmp_path, placement={"threads": 0}))
    error = next(m for m in messages if m["type"] == "error")
    assert error["code"] == "bad_request" and "placement.threads" in error["message"]


def test_a_bad_eager_call_is_refused_after_the_export(tmp_path):
    messages = _ask(_request("demo:mlp", tmp_path), then=({"type": "eager_call", "untimed": -1},))
    assert "torchscript_exported" in [m["type"] for m in messages]
    error = next(m for m in messages if m["type"] == "error")
    assert error["code"] == "bad_request" and "'untimed'" in error["message"], error
    messages = _ask(_request("demo:mlp", tmp_path), then=({"type": "run"},))
    error = next(m for m in messages if m["type"] == "error")
    assert error["code"] == "bad_request" and "eager_call or shutdown" in error["message"], error


def test_other_devices_are_refused(tmp_path):
    messages = _ask(_request("demo:mlp", tmp_path, device="cuda"))
    error = next(m for m in messages if m["type"] == "error")
    assert error["code"] == "bad_request"
