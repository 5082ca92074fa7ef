"""Accuracy as PyTorch's harness judges it (docs/measurement.md): outputs flattened to named
leaves (containers, dataclasses, named tuples, transformers caches), and the harness's statuses."""
import collections
import dataclasses

import pytest
import torch

from conftest import FIXTURES, WORKER_DIR, run_model
from fusescope_worker import accuracy, reference
from fusescope_worker.output_leaves import flatten

ONE_RUN = {"warmup": 0, "min_runs": 1, "min_time_s": 0.0, "max_runs": 1, "max_time_s": 60.0}
NO_CAPTURE = {"stages": False, "code": False}
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}

Pair = collections.namedtuple("Pair", "first second")


@dataclasses.dataclass
class Output:
    logits: torch.Tensor
    hidden: list
    label: str = "x"


def t(*values):
    return torch.tensor(values, dtype=torch.float32)


def test_nested_containers_flatten_to_named_tensors():
    out = {"a": [t(1), (t(2), {"b": t(3)})], "n": 3, "none": None}
    assert [path for path, _ in flatten(out)] == [
        "output['a'][0]", "output['a'][1][0]", "output['a'][1][1]['b']", "output['n']", "output['none']"]
    changed = {"a": [t(1), (t(2), {"b": t(4)})], "n": 3, "none": None}
    verdict = accuracy.compare(out, changed)
    assert verdict["status"] == "fail_accuracy" and not verdict["pass"]
    assert verdict["reason"].startswith("output['a'][1][1]['b'] is outside the tolerance"), verdict


def test_dataclass_and_named_tuple_outputs_are_opened_by_field():
    out = Pair(Output(t(1, 2), [t(3)]), t(4))
    assert [path for path, _ in flatten(out)] == [
        "output.first.logits", "output.first.hidden[0]", "output.first.label", "output.second"]
    same = reference.detached(out)
    assert same.first is not out.first and same.first.logits is not out.first.logits  # cloned, not shared
    assert accuracy.compare(out, same)["status"] == "pass"
    worse = Pair(Output(t(1, 2), [t(3.5)]), t(4))
    assert "output.first.hidden[0]" in accuracy.compare(out, worse)["reason"]


def test_a_non_tensor_leaf_that_differs_is_named_in_the_reason():
    eager = (t(1, 2), {"mode": "greedy", "steps": 3})
    verdict = accuracy.compare(eager, (t(1, 2), {"mode": "beam", "steps": 3}))
    assert verdict["pass"] is False and verdict["status"] == "fail_accuracy"
    assert verdict["reason"] == "output[1]['mode'] differs: eager 'greedy', compiled 'beam'"
    structure = accuracy.compare(eager, (t(1, 2), {"mode": "greedy"}))
    assert structure["rule"] == "structure" and "output[1]['steps']" in structure["reason"]


@pytest.fixture(scope="module")
def llama():
    transformers = pytest.importorskip("transformers")
    from fusescope_worker.models import hf
    loaded = hf.load("hf:llama")
    with torch.no_grad():
        out = loaded()
    return transformers, loaded, out


def test_a_transformers_cache_is_flattened_to_its_key_and_value_tensors(llama):
    transformers, loaded, out = llama
    cache = out[1]
    assert isinstance(cache, transformers.Cache)
    leaves = flatten(out)
    cached = [(path, v) for path, v in leaves if path.startswith("output[1]") and isinstance(v, torch.Tensor)]
    layers = loaded.module.config.num_hidden_layers
    assert len(cached) == 2 * layers, [path for path, _ in leaves]  # a key and a value tensor per layer
    # a fresh call returns a new cache object: equal by content, so the verdict passes
    with torch.no_grad():
        again = reference.detached(loaded())
    assert accuracy.eager_runs_differ(reference.detached(out), again) is None
    verdict = accuracy.compare(reference.detached(out), again)
    assert verdict["status"] == "pass" and verdict["pass"] is True, verdict
    # a wrong value inside the cache is found and named by its path
    path, tensor = cached[-1]
    wrong = reference.detached(out)
    wrong_tensor = dict(flatten(wrong))[path]
    wrong_tensor.add_(1.0)
    verdict = accuracy.compare(out, wrong)
    assert verdict["status"] == "fail_accuracy" and verdict["reason"].startswith(f"{path} is outside"), verdict


def test_nan_and_inf_are_flagged_with_where_they_are():
    nan = torch.full((4,), float("nan"))
    verdict = accuracy.compare((t(1), nan), (t(1), nan.clone()))
    assert verdict["status"] == "nonfinite" and verdict["pass"] is False
    assert verdict["reason"] == "non-finite values: output[1] has 4 NaN in eager and 4 NaN in compiled (of 4 values)"
    compiled_only = accuracy.compare(t(1, 2), t(1, float("inf")))
    assert compiled_only["status"] == "nonfinite" and "1 inf in compiled" in compiled_only["reason"]
    assert "in eager" not in compiled_only["reason"] and compiled_only["max_abs"] == 0.0  # over finite values


def test_every_failing_status_carries_a_reason():
    verdicts = [accuracy.compare(t(1), t(2)), accuracy.compare((t(1),), (t(1), t(2))),
                accuracy.compare(torch.tensor([1]), torch.tensor([2])), accuracy.compare(t(1), t(float("nan"))),
                accuracy.eager_differs(accuracy.eager_runs_differ(t(1), t(2))),
                accuracy.failed_to_run("inductor raised", ValueError("x"))]
    for verdict in verdicts:
        assert verdict["pass"] is False and verdict["status"] != "pass" and verdict["reason"], verdict


def test_out_of_memory_is_named_oom():
    try:
        try:
            raise RuntimeError("DefaultCPUAllocator: can't allocate memory: you tried to allocate 1 bytes")
        except RuntimeError as exc:
            raise ValueError("wrapped") from exc
    except ValueError as wrapped:
        assert accuracy.failed_to_run("x", wrapped)["status"] == "OOM"
    assert accuracy.failed_to_run("x", torch.OutOfMemoryError("CUDA out of memory"))["status"] == "OOM"
    assert accuracy.failed_to_run("x", RuntimeError("boom"))["status"] == "fail_to_run"


# -- through the worker -----------------------------------------------------------------------

def _accuracy(model, backend="eager", env=None) -> dict:
    run = run_model(model, backend, env=env, measure=ONE_RUN, capture=NO_CAPTURE)
    result = run.one("result")
    assert result["accuracy"] is not None, run
    return result["accuracy"], result, run


@pytest.mark.parametrize("model", ["hf:llama", "hf:t5"])
def test_eager_on_transformers_models_returning_caches_passes(model):
    pytest.importorskip("transformers")
    verdict, result, run = _accuracy(model, env=OFFLINE)
    assert result["status"] == "ok", run
    assert verdict["status"] == "pass" and verdict["pass"] is True, verdict
    assert verdict["max_abs"] == 0.0 and "reason" not in verdict


def test_a_forward_drawing_random_numbers_is_eager_two_runs_differ():
    verdict, result, run = _accuracy(FIXTURES / "random_forward.py", "aot_eager")
    assert result["status"] == "ok", run
    assert verdict["status"] == "eager_two_runs_differ" and verdict["pass"] is False, verdict
    assert "eager run twice" in verdict["reason"] and verdict["max_abs"] is None


def test_all_nan_outputs_are_nonfinite():
    verdict, result, run = _accuracy(FIXTURES / "nan_output.py")
    assert verdict["status"] == "nonfinite" and verdict["pass"] is False, verdict
    assert "NaN in eager" in verdict["reason"] and "NaN in compiled" in verdict["reason"]


def test_a_backend_that_fails_to_run_or_runs_out_of_memory_is_named_so(tmp_path):
    (tmp_path / "failing_backends.py").write_text(
        "def _raise(error):\n"
        "    def compiled(*args):\n"
        "        raise error\n"
        "    return compiled\n"
        "def crash(gm, example_inputs):\n"
        "    return _raise(ValueError('deliberate failure in the compiled code'))\n"
        "def oom(gm, example_inputs):\n"
        "    return _raise(RuntimeError(\"DefaultCPUAllocator: can't allocate memory: 9 bytes\"))\n")
    info = tmp_path / "failing_backends-0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: failing-backends\nVersion: 0.0\n")
    (info / "entry_points.txt").write_text("[torch_dynamo_backends]\nfake_crash = failing_backends:crash\n"
                                           "fake_oom = failing_backends:oom\n")
    env = {"PYTHONPATH": f"{WORKER_DIR}:{tmp_path}"}
    for backend, status in (("fake_crash", "fail_to_run"), ("fake_oom", "OOM")):
        verdict, result, run = _accuracy(FIXTURES / "good_tiny.py", backend, env=env)
        assert result["status"] == "failed" and result["error"]["code"] == "run_failed", run
        assert verdict["status"] == status and verdict["pass"] is False, verdict
        assert verdict["reason"] == result["error"]["message"]
