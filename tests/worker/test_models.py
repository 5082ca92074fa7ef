"""Model sources that load and run (docs/models.md)."""
import pytest

from conftest import FIXTURES, run_model

ONE_RUN = {"warmup": 0, "min_runs": 1, "min_time_s": 0.0, "max_runs": 1, "max_time_s": 60.0}


def ok_run(model, backend="eager", env=None, **fields):
    run = run_model(model, backend, env=env, **fields)
    assert run.returncode == 0, run
    assert run.one("result")["status"] == "ok", run
    return run


def test_good_tiny_file_runs_and_is_described():
    path = FIXTURES / "good_tiny.py"
    run = ok_run(path)
    model = run.one("model")
    assert model["source"] == str(path) and model["class"] == "Tiny"
    assert model["parameters"] == 8 * 16 + 16 + 16 * 4 + 4
    assert model["inputs"] == [{"shape": [2, 8], "dtype": "float32"}]


def test_keyword_inputs_are_passed_to_forward():
    run = ok_run(FIXTURES / "graph_break.py")
    assert run.one("model")["inputs"] == [{"shape": [2, 8], "dtype": "float32", "name": "x"}]


def test_torchscript_with_inputs_in_extra_files_runs():
    run = ok_run(FIXTURES / "tiny_scripted.pt", backend="aot_eager")
    model = run.one("model")
    assert model["inputs"] == [{"shape": [4, 16], "dtype": "float32"}]
    assert model["class"].startswith("TorchScript")
    assert run.stage("aot_forward")["status"] == "ok"


def test_torchscript_inputs_from_the_request_win():
    run = ok_run(FIXTURES / "tiny_scripted.pt", inputs=[{"shape": [7, 16], "dtype": "float32"}])
    assert run.one("model")["inputs"] == [{"shape": [7, 16], "dtype": "float32"}]


@pytest.mark.parametrize("name", ["demo:mlp", "demo:cnn", "demo:transformer"])
def test_demo_models_are_seeded(name):
    import torch

    from fusescope_worker.models import demos
    first, second = demos.load(name), demos.load(name)
    for a, b in zip(first.module.state_dict().values(), second.module.state_dict().values()):
        assert torch.equal(a, b)
    assert all(torch.equal(a, b) for a, b in zip(first.args, second.args))


def test_hf_model_builds_from_its_default_config_without_downloads():
    pytest.importorskip("transformers")
    # hf:resnet is the cheapest of the four to run on a CPU; the loading path is the same.
    run = ok_run("hf:resnet", measure=ONE_RUN, env={"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
    model = run.one("model")
    assert model["class"] == "transformers.ResNetModel" and model["parameters"] > 20_000_000
    assert model["inputs"] == [{"shape": [1, 3, 224, 224], "dtype": "float32", "name": "pixel_values"}]
