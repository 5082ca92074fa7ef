"""Every way a model or backend can be wrong maps to the protocol error code, names the file or
backend, and still ends the run with a failed result (docs/protocol.md, "Error codes")."""
import pytest

from conftest import FIXTURES, run_model


def failed_run(model, backend="eager", **fields):
    run = run_model(model, backend, **fields)
    assert run.returncode == 0, run
    error = run.one("error")
    result = run.one("result")
    assert result["status"] == "failed" and result["error"]["code"] == error["code"]
    assert error["traceback"], error
    assert "\n" not in error["message"], error["message"]
    assert run.messages[-1]["type"] == "bye"
    return error, run


@pytest.mark.parametrize("name, code, words", [
    ("syntax_error.py", "model_invalid", "syntax error at line 5"),
    ("no_functions.py", "model_invalid", "no functions build_model() and example_inputs()"),
    ("empty.py", "model_invalid", "is empty"),
    ("raises_in_forward.py", "model_failed", "deliberate failure in forward"),
])
def test_bad_model_files_get_their_code_and_name_the_file(name, code, words):
    path = FIXTURES / name
    error, _ = failed_run(path)
    assert error["code"] == code, error
    assert str(path) in error["message"] and error["file"] == str(path)
    assert words in error["message"], error["message"]


def test_missing_file_is_model_not_found(tmp_path):
    missing = tmp_path / "nope.py"
    error, _ = failed_run(missing)
    assert error["code"] == "model_not_found"
    assert str(missing) in error["message"]


def test_unknown_demo_is_model_not_found():
    error, _ = failed_run("demo:nothing")
    assert error["code"] == "model_not_found" and "demo:mlp" in error["message"]


def test_build_model_raising_is_model_failed(tmp_path):
    model = tmp_path / "bad_build.py"
    model.write_text("def build_model():\n    raise ValueError('no weights')\n"
                     "def example_inputs():\n    return ()\n")
    error, _ = failed_run(model)
    assert error["code"] == "model_failed" and "build_model() raised ValueError: no weights" in error["message"]


def test_missing_one_function_is_named(tmp_path):
    model = tmp_path / "half.py"
    model.write_text("import torch\ndef build_model():\n    return torch.nn.Linear(2, 2)\n")
    error, _ = failed_run(model)
    assert error["code"] == "model_invalid" and "no function example_inputs()" in error["message"]


def test_unknown_backend_is_backend_unavailable():
    error, run = failed_run("demo:mlp", backend="no_such_backend")
    assert error["code"] == "backend_unavailable" and error["backend"] == "no_such_backend"
    assert "no_such_backend" in error["message"] and "inductor" in error["message"]
    assert run.one("result")["backend"] == "no_such_backend"


def test_backend_needing_cuda_is_unavailable_with_the_reason():
    import torch
    if torch.cuda.is_available():
        pytest.skip("CUDA present: cudagraphs can run")
    error, _ = failed_run("demo:mlp", backend="cudagraphs")
    assert error["code"] == "backend_unavailable" and "CUDA" in error["message"]


def test_cuda_device_without_cuda_is_backend_unavailable():
    import torch
    if torch.cuda.is_available():
        pytest.skip("CUDA present")
    error, _ = failed_run("demo:mlp", device="cuda")
    assert error["code"] == "backend_unavailable" and "CUDA" in error["message"]


def test_backend_raising_while_compiling_is_compile_failed():
    error, run = failed_run(FIXTURES / "good_tiny.py", backend="relu_compile_error_TESTING_ONLY")
    assert error["code"] == "compile_failed", error
    assert error["backend"] == "relu_compile_error_TESTING_ONLY"
    assert run.stages("dynamo_fx"), "the stage captured before the failure is kept"


def test_compiled_model_raising_when_run_is_run_failed():
    error, _ = failed_run(FIXTURES / "good_tiny.py", backend="relu_runtime_error_TESTING_ONLY")
    assert error["code"] == "run_failed", error


def test_torchscript_without_an_input_spec_is_model_invalid(tmp_path):
    import torch
    path = tmp_path / "bare.pt"
    torch.jit.save(torch.jit.script(torch.nn.Linear(3, 3)), str(path))
    error, _ = failed_run(path)
    assert error["code"] == "model_invalid" and "input spec" in error["message"] and str(path) in error["message"]


def test_corrupt_torchscript_is_model_invalid(tmp_path):
    path = tmp_path / "corrupt.pt"
    path.write_bytes(b"PK\x03\x04 this is not an archive")
    error, _ = failed_run(path)
    assert error["code"] == "model_invalid" and str(path) in error["message"]


def test_unknown_inductor_option_is_bad_request():
    options = {"mode": None, "fullgraph": False, "dynamic": None, "inductor": {"no_such_option": 1}}
    run = run_model("demo:mlp", "inductor", options=options)
    assert run.returncode == 3, run
    error = run.one("error")
    assert error["code"] == "bad_request" and "no_such_option" in error["message"], error
    assert run.one("result")["status"] == "failed"


def test_nvfuser_on_cpu_is_unavailable_naming_every_missing_piece():
    """nvFuser runs through Lightning Thunder on NVIDIA GPUs only (backends.py): here it must be
    listed and refused with the exact reasons, never faked."""
    import importlib.util

    import torch
    if torch.cuda.is_available() and importlib.util.find_spec("thunder"):
        pytest.skip("CUDA and thunder present: nvfuser can run (scripts/gpu-check.sh)")
    error, _ = failed_run("demo:mlp", backend="nvfuser")
    assert error["code"] == "backend_unavailable", error
    assert "NVIDIA GPUs only" in error["message"] and "device is cpu" in error["message"]
    if not importlib.util.find_spec("thunder"):
        assert "import thunder failed" in error["message"]


@pytest.mark.parametrize("where, code, words", [
    ("import", "model_invalid", "called sys.exit(3) at import"),
    ("build_model", "model_failed", "build_model() called sys.exit(3)"),
    ("example_inputs", "model_failed", "example_inputs() called sys.exit(3)"),
    ("forward", "model_failed", "forward() called sys.exit(3)"),
])
def test_sys_exit_in_model_code_is_a_model_error_naming_file_and_function(where, code, words):
    path = FIXTURES / "sys_exit.py"
    error, _ = failed_run(path, env={"FUSESCOPE_FIXTURE_EXIT_AT": where})
    assert error["code"] == code, error
    assert str(path) in error["message"] and error["file"] == str(path)
    assert words in error["message"], error["message"]


def test_lone_surrogate_in_an_exception_message_is_replaced_not_fatal():
    path = FIXTURES / "surrogate_message.py"
    error, run = failed_run(path)
    assert error["code"] == "model_failed", error
    assert "bad byte \ufffd in the data file" in error["message"], error["message"]
    assert "Traceback" not in run.stderr or "fusescope_worker/protocol.py" not in run.stderr, run
