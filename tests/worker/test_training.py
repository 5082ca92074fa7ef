"""workload.mode = "training" and workload.precision (docs/protocol.md "workload",
docs/workloads.md "Training mode" and "Precision"). Each worker run is started once per session
and shared by the tests that read it: an Inductor training compile takes tens of seconds on two
cores."""
import json
import os
import subprocess
import sys

import pytest
import torch

from conftest import FIXTURES, ROOT, WORKER_DIR, WorkerRun, run_model

BACKWARD = ["aot_backward", "post_grad_backward", "pre_fusion_backward", "post_fusion_backward"]
FORWARD = ["dynamo_fx", "aot_forward", "post_grad", "pre_fusion", "post_fusion"]
TRAINING = {"mode": "training"}


@pytest.fixture(scope="session")
def training_run():
    runs = {}

    def get(model: str, backend: str, precision: str = "fp32", mode: str = "training"):
        key = (model, backend, precision, mode)
        if key not in runs:
            run = run_model(model, backend, workload={"mode": mode, "precision": precision})
            assert run.returncode == 0, run
            assert run.one("result")["status"] == "ok", run
            runs[key] = run
        return runs[key]
    return get


def _check_stage_shape(stage: dict, schema: dict) -> None:
    for key in schema["required"]:
        assert key in stage, key
    assert stage["fusion"] in schema["properties"]["fusion"]["enum"]
    ids = {node["id"] for node in stage["nodes"]}
    assert len(ids) == len(stage["nodes"])
    for edge in stage["edges"]:
        assert edge["src"] in ids and edge["dst"] in ids, edge
    for group in stage["groups"]:
        assert set(group["nodes"]) <= ids, group


# -- Inductor: the backward graph through every stage -------------------------------------------
def test_inductor_training_captures_backward_stages(training_run, schema):
    run = training_run("demo:mlp", "inductor")
    names = [s["name"] for s in run.stages() if s["graph"] == 0]
    assert names == FORWARD + BACKWARD, names  # forward first, then the backward, each once
    for name in BACKWARD:
        stage = run.stage(name)
        _check_stage_shape(stage, schema)
        assert stage["status"] == "ok", stage["reason"]
        assert stage["pass"] == "backward"
        assert stage["nodes"], name
        assert stage["fusion"] == ("after" if name == "post_fusion_backward" else "before")
    for name in FORWARD:
        assert "pass" not in run.stage(name)
    # the backward graph takes the forward's saved tensors and the incoming gradient (tangents)
    placeholders = [n["name"] for n in run.stage("aot_backward")["nodes"] if n["kind"] == "placeholder"]
    assert any(name.startswith("tangents") for name in placeholders), placeholders
    after = run.stage("post_fusion_backward")
    assert after["kernels"] > 0 and not after["warnings"], after["warnings"]
    assert all(g["code"] == "output_code_backward.py" for g in after["groups"] if g["kind"] == "kernel")
    codes = {c["name"]: c for c in run.of_type("code")}
    assert set(codes) == {"output_code.py", "output_code_backward.py"}
    assert codes["output_code_backward.py"]["stage"] == "post_fusion_backward"
    for group in after["groups"]:
        if group["kind"] == "kernel":
            assert group["name"] in codes["output_code_backward.py"]["text"], group["name"]


def test_inductor_training_gradients_match_eager(training_run):
    result = training_run("demo:mlp", "inductor").one("result")
    training = result["training"]
    grads = training["gradient_accuracy"]
    assert grads["pass"] is True, grads
    assert grads["tolerance"] == 1e-2 and grads["precision"] == "fp32"
    assert grads["parameters"] == 8  # fc1, fc2, norm, head: weight and bias each
    assert grads["worst_parameter"] in {f"{m}.{p}" for m in ("fc1", "fc2", "norm", "head") for p in ("weight", "bias")}
    assert grads["max_abs"] < 1e-4 and grads["cosine"] > 0.9999, grads
    assert result["accuracy"]["pass"] is True and result["accuracy"]["tolerance"] == 1e-2
    loss = training["first_loss"]
    assert loss["eager"] > 0 and abs(loss["eager"] - loss["compiled"]) <= 1e-4 * loss["eager"], loss
    assert training["loss"] == "mean of squares of the float outputs"
    assert training["optimizer"] == "SGD(lr=1e-3, foreach)" and training["batch_size"] == 32
    assert result["workload"]["mode"] == "training" and result["workload"]["precision"] == "fp32"


def test_inductor_training_compile_times_forward_and_backward(training_run):
    result = training_run("demo:mlp", "inductor").one("result")
    training = result["training"]
    # torch 2.13 compiles the backward lazily, inside the first loss.backward()
    assert training["backward_compile"] == "lazy"
    assert training["compile_forward_s"] > 0.5 and training["compile_backward_s"] > 0.5, training
    assert 0 < training["backward_compile_timer_s"] <= training["first_backward_s"]
    assert result["compile_s"] == pytest.approx(training["compile_forward_s"] + training["compile_backward_s"])
    # compile_s: the first step (forward + backward), the one that captured (one compile)
    assert result["first_call_s"] == result["compile_s"] and result["capture_from"] == "timed_compile"
    assert result["compile_s"] == pytest.approx(training["first_forward_s"] + training["first_backward_s"])
    assert result["capture_s"] is None and result["warm_compile_s"] > 0
    phases = result["compile_breakdown"]
    assert sum(phases.values()) == pytest.approx(result["compile_s"], rel=1e-6)
    assert phases["kernel_compilation"] > 0 and phases["aot_autograd"] > 0, phases


def test_training_samples_are_steps_of_both_series(training_run):
    run = training_run("demo:mlp", "inductor")
    result = run.one("result")
    counts = {series: sum(len(m["ms"]) for m in run.of_type("samples") if m["series"] == series)
              for series in ("eager", "compiled")}
    assert counts == {"eager": result["runs"]["eager"], "compiled": result["runs"]["compiled"]}
    assert counts["eager"] >= 3
    assert result["peak_memory_bytes"] > 0 and result["eager_peak_memory_bytes"] > 0


# -- aot_eager -----------------------------------------------------------------------------
def test_aot_eager_training_captures_aot_backward_only(training_run):
    run = training_run("demo:mlp", "aot_eager")
    backward = run.stage("aot_backward")
    assert backward["status"] == "ok" and backward["nodes"] and backward["fusion"] == "none"
    assert any(n["op"].startswith("aten.mm") for n in backward["nodes"]), [n["op"] for n in backward["nodes"]]
    for name in BACKWARD[1:]:
        stage = run.stage(name)
        assert stage["status"] == "unsupported" and "aot_eager" in stage["reason"], stage
    result = run.one("result")
    assert result["training"]["gradient_accuracy"]["pass"] is True
    # aot_eager runs the same ATen ops as eager: the first step is bit-identical
    assert result["training"]["gradient_accuracy"]["max_abs"] == 0.0
    assert result["training"]["backward_compile"] == "lazy"


# -- precision -----------------------------------------------------------------------------
def test_bf16_training_reports_precision_and_its_tolerance(training_run):
    run = training_run("demo:mlp", "aot_eager", precision="bf16")
    result = run.one("result")
    for verdict in (result["accuracy"], result["training"]["gradient_accuracy"]):
        assert verdict["precision"] == "bf16" and verdict["tolerance"] == 2e-2, verdict
        assert verdict["pass"] is True, verdict
    assert result["workload"]["precision"] == "bf16"
    # autocast really ran: the matmuls of the traced graphs produce bfloat16
    forward_dtypes = {d for n in run.stage("aot_forward")["nodes"] for d in n["dtypes"]}
    assert "bfloat16" in forward_dtypes, forward_dtypes
    # parameters stay float32, so their gradients are float32
    backward_outputs = [n for n in run.stage("aot_backward")["nodes"] if n["kind"] == "output"]
    assert backward_outputs


def test_bf16_inference_tolerance(training_run):
    result = training_run("demo:mlp", "eager", precision="bf16", mode="inference").one("result")
    assert result["accuracy"]["precision"] == "bf16" and result["accuracy"]["tolerance"] == 1e-2
    assert result["training"] is None


def test_precision_tolerance_decides_the_verdict():
    from fusescope_worker import accuracy, precision
    eager = torch.linspace(-1, 1, 4000)
    compiled = eager + 5e-3  # outside fp32's 1e-3, inside bf16's 1e-2
    fp32 = accuracy.compare(eager, compiled, tolerance=precision.tolerance("fp32", "inference"), precision="fp32")
    bf16 = accuracy.compare(eager, compiled, tolerance=precision.tolerance("bf16", "inference"), precision="bf16")
    assert fp32["pass"] is False and fp32["tolerance"] == 1e-3
    assert bf16["pass"] is True and bf16["tolerance"] == 1e-2 and bf16["precision"] == "bf16"


# -- refusals ------------------------------------------------------------------------------
def _failed(run: WorkerRun) -> dict:
    assert run.returncode == 0, run
    error = run.one("error")
    assert run.one("result")["status"] == "failed"
    assert "\n" not in error["message"]
    return error


def test_model_without_parameters_is_refused_naming_it():
    path = FIXTURES / "no_parameters.py"
    error = _failed(run_model(path, "eager", workload=TRAINING))
    assert error["code"] == "model_invalid", error
    assert str(path) in error["message"] and "ParameterFree" in error["message"], error["message"]
    assert "trainable parameters" in error["message"] and error["file"] == str(path)


def test_tvm_has_no_training_path():
    error = _failed(run_model("demo:mlp", "tvm", workload=TRAINING))
    assert error["code"] == "backend_unavailable", error
    assert error["message"].startswith("tvm: training mode is not supported: "), error["message"]


FORWARD_ONLY_WORKER = """
import runpy, torch
from torch._dynamo.backends.registry import register_backend

@register_backend(name="forward_only_TESTING")
def forward_only(gm, example_inputs):
    def run(*args):
        with torch.no_grad():  # a backend that has no backward: outputs without autograd history
            return gm(*args)
    return run

runpy.run_module("fusescope_worker", run_name="__main__", alter_sys=True)
"""


def test_backend_without_backward_fails_with_a_clear_message():
    request = {"type": "run", "id": "t1", "model": "demo:mlp", "backend": "forward_only_TESTING",
               "measure": {"warmup": 0, "min_runs": 1, "min_time_s": 0, "max_runs": 1, "max_time_s": 1},
               "workload": TRAINING}
    proc = subprocess.run([sys.executable, "-c", FORWARD_ONLY_WORKER], input=json.dumps(request) + "\n",
                          capture_output=True, text=True, timeout=300, cwd=str(ROOT),
                          env={**os.environ, "PYTHONPATH": str(WORKER_DIR)})
    error = _failed(WorkerRun(proc))
    assert error["code"] == "run_failed", error
    assert error["backend"] == "forward_only_TESTING"
    assert "does not support training" in error["message"], error["message"]


@pytest.mark.parametrize("workload, words", [
    ({"mode": "train"}, "workload.mode"),
    ({"precision": "fp8"}, "workload.precision"),
])
def test_bad_workload_is_bad_request(workload, words):
    from fusescope_worker.errors import WorkerError
    from fusescope_worker.request import parse_run
    with pytest.raises(WorkerError) as caught:
        parse_run({"type": "run", "id": "r", "model": "demo:mlp", "backend": "eager", "workload": workload})
    assert caught.value.code == "bad_request" and words in caught.value.message


def test_workload_defaults_and_nulls():
    from fusescope_worker.request import parse_run
    plain = parse_run({"type": "run", "id": "r", "model": "demo:mlp", "backend": "eager"})
    assert plain.workload == {"mode": "inference", "precision": "fp32", "shapes": None, "assign": None}
    nulls = parse_run({"type": "run", "id": "r", "model": "demo:mlp", "backend": "eager",
                       "workload": {"mode": None, "precision": "bf16", "future": 1}})
    assert nulls.workload["mode"] == "inference" and nulls.workload["precision"] == "bf16"
    assert nulls.workload["future"] == 1  # unknown fields are kept
