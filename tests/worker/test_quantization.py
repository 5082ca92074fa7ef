"""workload.precision int8_weight_only / int8_dynamic / int8_static: quantized variants through
torchao (docs/quantization.md, quantize.py). Each mode's worker run (an Inductor compile of a small
MLP) is started once and shared by the tests that read it."""
import pathlib

import pytest
import torch

from conftest import FIXTURES, run_model

MODEL = FIXTURES / "quant_mlp.py"
MODES = ("int8_weight_only", "int8_dynamic", "int8_static")


def _workload(precision: str, mode: str = "inference") -> dict:
    return {"mode": mode, "precision": precision}


@pytest.fixture(scope="session")
def quantized_run():
    runs = {}

    def get(precision: str):
        if precision not in runs:
            run = run_model(MODEL, "inductor", workload=_workload(precision))
            assert run.returncode == 0, run
            runs[precision] = run
        return runs[precision]
    return get


@pytest.mark.parametrize("mode", MODES)
def test_mode_runs_and_is_judged_against_fp32_eager(quantized_run, mode):
    result = quantized_run(mode).one("result")
    assert result["status"] == "ok", result.get("error")
    q = result["quantization"]
    assert q["mode"] == mode and q["library"] == "torchao" and q["version"]
    assert q["quantized_modules"] == ["up", "down"]
    # the 1x1 Conv1d stays fp32, and says why
    assert [s["module"] for s in q["skipped_modules"]] == ["proj"]
    assert "Conv1d" in q["skipped_modules"][0]["reason"]
    # two 256x512 Linear weights in int8 (plus scales) against fp32: well under a half
    assert 0 < q["weight_bytes"] < q["fp32_weight_bytes"] / 2, q
    accuracy = result["accuracy"]
    assert accuracy["status"] == "pass" and accuracy["rule"] == "quantized", accuracy
    assert accuracy["precision"] == mode and accuracy["tolerance"] == 0.1
    assert accuracy["cosine"] > 0.99
    assert accuracy["fp64_reference"] is False  # no fp64 reference: the rule compares with fp32 eager
    assert result["workload"]["precision"] == mode
    assert result["runs"]["eager"] and result["runs"]["compiled"]


def _kernel_source(code: str, name: str) -> str:
    """Kernel `name`'s definition in Inductor's output code, to the end of its source string."""
    return code.split(f"{name} = async_compile.", 1)[1].split("'''" + ")", 1)[0]


def _kernel_ops(run) -> list[tuple[str, list]]:
    stage = run.stage("post_fusion")
    return [(n["op"], n["dtypes"]) for n in stage["nodes"] if n["kind"] in ("extern_kernel", "scheduler_node")]


def test_int8_kernels_show_in_the_post_fusion_graph(quantized_run):
    dynamic = [op for op, _ in _kernel_ops(quantized_run("int8_dynamic"))]
    assert sum("_int_mm" in op for op in dynamic) == 2, dynamic  # int8 x int8 matmuls
    static = [op for op, _ in _kernel_ops(quantized_run("int8_static"))]
    assert sum("qlinear_pointwise" in op for op in static) == 2, static  # oneDNN int8 linear
    # weight-only reads the int8 weight in a fused kernel that converts it: its source takes an
    # int8 pointer (what analysis/QuantizationLines.cpp looks for in the output code)
    run = quantized_run("int8_weight_only")
    code = "".join(m["text"] for m in run.of_type("code") if m["name"] == "output_code.py")
    kernels = [g["name"] for g in run.stage("post_fusion")["groups"] if g["kind"] == "kernel"]
    reading_int8 = [k for k in kernels if "const int8_t*" in _kernel_source(code, k)]
    assert len(reading_int8) == 2, (kernels, code[:2000])


def test_int8_static_calibrates_on_calibration_inputs_and_freezes(quantized_run):
    result = quantized_run("int8_static").one("result")
    q = result["quantization"]
    assert q["calibration"] == "4 input sets of calibration_inputs()"
    assert any("freezing=true" in note for note in q["notes"])
    assert result["options"]["inductor"]["freezing"] is True  # the row says what it ran with


def test_int8_static_reduces_the_range_exactly_on_cpus_without_vnni(quantized_run):
    from fusescope_worker import quantize
    notes = quantized_run("int8_static").one("result")["quantization"]["notes"]
    said = any(note.startswith("reduce_range=true") for note in notes)
    assert said == (not quantize.has_vnni()), notes


@pytest.mark.parametrize("flags, expected", [
    ("fpu sse avx2 fma", False),
    ("fpu avx2 avx_vnni", True),
    ("fpu avx512f avx512_vnni", True),
    ("fpu amx_tile amx_int8", True),
])
def test_vnni_is_read_from_the_cpu_flags_when_torch_does_not_say(monkeypatch, tmp_path, flags, expected):
    import builtins

    from fusescope_worker import quantize
    monkeypatch.setattr(torch.cpu, "_is_vnni_supported", lambda: False)
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(f"processor\t: 0\nflags\t\t: {flags}\n")
    real_open = builtins.open
    monkeypatch.setattr(builtins, "open",
                        lambda path, *a, **k: real_open(cpuinfo if path == "/proc/cpuinfo" else path, *a, **k))
    assert quantize.has_vnni() is expected


def test_missing_torchao_is_unavailable_with_the_reason(tmp_path: pathlib.Path):
    fake = tmp_path / "torchao"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('no torchao in this environment')\n")
    from conftest import WORKER_DIR
    run = run_model(MODEL, "inductor", workload=_workload("int8_dynamic"),
                    env={"PYTHONPATH": f"{tmp_path}:{WORKER_DIR}"})
    error = run.one("error")
    assert error["code"] == "backend_unavailable", error
    assert "precision int8_dynamic is unavailable: torchao is not importable" in error["message"]
    assert "pip install torchao==0.18.0" in error["message"]
    assert run.one("result")["status"] == "failed"


@pytest.mark.parametrize("backend, fields, code, words", [
    ("inductor", {"workload": _workload("int8_dynamic", "training")}, "bad_request",
     "quantization-aware training"),
    ("tvm", {"workload": _workload("int8_weight_only")}, "backend_unavailable",
     "the int8 precisions run through torch.compile backends"),
    ("inductor", {"workload": {**_workload("int8_static"),
                               "shapes": [[{"shape": [64, 256], "dtype": "float32"}], [{"shape": [32, 256]}]]}},
     "bad_request", "does not combine with workload.shapes"),
])
def test_requests_the_worker_does_not_quantize_are_refused(backend, fields, code, words):
    run = run_model(MODEL, backend, **fields)
    error = run.one("error")
    assert error["code"] == code, error
    assert words in error["message"], error["message"]
    assert error["backend"] == backend


def test_a_model_without_quantizable_layers_is_unavailable():
    run = run_model(FIXTURES / "no_parameters.py", "eager", workload=_workload("int8_weight_only"))
    error = run.one("error")
    assert error["code"] == "backend_unavailable", error
    assert "quantized no layer" in error["message"]


def test_weight_bytes_count_tensor_subclasses_by_their_inner_tensors():
    from torchao.quantization import Int8WeightOnlyConfig, quantize_

    from fusescope_worker import quantize
    model = torch.nn.Sequential(torch.nn.Linear(64, 32, bias=False))
    assert quantize.weight_bytes(model) == 64 * 32 * 4
    quantize_(model, Int8WeightOnlyConfig())
    # int8 data plus one fp32 scale per output channel (torchao's Int8Tensor)
    assert 64 * 32 <= quantize.weight_bytes(model) <= 64 * 32 + 32 * 4 * 2


def test_quantization_rule():
    from fusescope_worker import accuracy
    torch.manual_seed(0)
    eager = torch.randn(4096)
    close = eager + 0.02 * torch.randn(4096)  # relative error ~0.02
    far = eager + 0.5 * torch.randn(4096)     # relative error ~0.5
    ok = accuracy.compare(eager, close, tolerance=0.1, precision="int8_dynamic", quantized=True)
    assert ok["status"] == "pass" and ok["rule"] == "quantized", ok
    bad = accuracy.compare(eager, far, tolerance=0.1, precision="int8_dynamic", quantized=True)
    assert bad["status"] == "fail_accuracy", bad
    assert "relative L2 error" in bad["reason"] and "against fp32 eager" in bad["reason"]
    # integer outputs stay exact under the rule
    ints = accuracy.compare(torch.arange(4), torch.arange(4) + 1, tolerance=0.1, quantized=True)
    assert ints["status"] == "fail_accuracy"


def test_bad_calibration_inputs_name_the_model_file(tmp_path: pathlib.Path):
    model = tmp_path / "bad_calibration.py"
    model.write_text(MODEL.read_text().replace(
        "return [(torch.randn(64, 256),) for _ in range(4)]", "return [42]"))
    run = run_model(model, "inductor", workload=_workload("int8_static"))
    error = run.one("error")
    # the int8_static row only: a model_* code would stop the comparison's other rows
    assert error["code"] == "backend_unavailable", error
    assert f"model file {model}: calibration_inputs(): set 0 is int" in error["message"], error["message"]
    assert error["file"] == str(model)


def test_calibration_sets_of_another_shape_fail_the_row_with_the_reason(tmp_path: pathlib.Path):
    model = tmp_path / "other_shape.py"
    model.write_text(MODEL.read_text().replace("torch.randn(64, 256),) for _ in range(4)",
                                               "torch.randn(8, 256),) for _ in range(4)"))
    run = run_model(model, "inductor", workload=_workload("int8_static"))
    error = run.one("error")
    assert error["code"] == "backend_unavailable", error
    assert "calibration sets must have the example inputs' shapes" in error["message"], error["message"]
