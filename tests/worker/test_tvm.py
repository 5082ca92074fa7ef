"""The `tvm` backend through TVM Relax (docs/tvm.md): export, Relax stages before/after FuseOps and
FuseTIR, build for llvm, run on the Relax VM, measured like every other backend. One worker run
per model, shared by the tests of the session."""
import importlib.util

import pytest

from conftest import run_model, run_worker
from test_stages import check_schema


def _tvm_import_error() -> str | None:
    if importlib.util.find_spec("tvm") is None:
        return "apache-tvm is not installed in this Python (pip install apache-tvm==0.27.0.post1)"
    try:
        import tvm.relax.frontend.torch  # noqa: F401
    except Exception as exc:  # a broken or too old TVM: the worker reports the same
        return f"import tvm.relax.frontend.torch failed: {type(exc).__name__}: {exc}"
    return None


REASON = _tvm_import_error()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"TVM not importable: {REASON}")

MODELS = ["demo:mlp", "demo:transformer"]
STAGES = ["relax_imported", "relax_legalized", "relax_folded", "relax_fused", "relax_fuse_tir"]
BEFORE = "relax_folded"   # what FuseOps receives
AFTER = ["relax_fused", "relax_fuse_tir"]
COMPUTE = ("call_op", "call_tir", "call_function", "call_packed")


@pytest.fixture(scope="session")
def tvm_run():
    runs = {}

    def get(model: str):
        if model not in runs:
            run = run_model(model, "tvm")
            assert run.returncode == 0, run
            runs[model] = run
        return runs[model]
    return get


@pytest.mark.parametrize("model", MODELS)
def test_tvm_compiles_runs_and_passes_accuracy(tvm_run, model):
    run = tvm_run(model)
    result = run.one("result")
    assert result["status"] == "ok", run
    assert result["backend"] == "tvm"
    assert result["compile_s"] > 0 and result["first_call_s"] >= result["compile_s"]
    assert 0 <= result["compile_capture_overhead_s"] < result["first_call_s"]
    assert result["accuracy"]["pass"] is True, result["accuracy"]
    assert result["graphs"] == 1 and result["graph_breaks"] == 0 and result["recompiles"] == 0
    assert result["tvm"]["target"] == "llvm" and result["tvm"]["version"]
    # TVM's peak is the Relax VM's storage seen at run time; eager measured as usual.
    assert result["memory_method"] == "tvm-vm-storage-peak", result
    assert result["eager_memory_method"] == "profiler-allocator-peak"
    assert result["peak_memory_bytes"] > 0 and result["eager_peak_memory_bytes"] > 0
    assert "kernel" in result["memory_note"]
    assert run.messages[-1]["type"] == "bye"


def test_tvm_deployment_is_the_exported_library_loaded_in_a_fresh_process(tvm_run):
    # docs/tvm.md "Deployment": the .so a user ships, its size next to the eager state_dict's, and
    # its load and first call in one process that never loaded it.
    deployment = tvm_run("demo:mlp").one("result")["deployment"]
    assert deployment["artifact"] == "model.so" and "load_module" in deployment["loader"]
    assert "error" not in deployment, deployment
    # The weights are folded into the library as constants: it is at least as large as they are.
    assert deployment["eager_model_bytes"] > 0
    assert deployment["artifact_bytes"] > 0.5 * deployment["eager_model_bytes"], deployment
    assert deployment["fresh_processes"] == 1 and len(deployment["load_samples_s"]) == 1
    assert deployment["load_s"] > 0 and deployment["first_call_s"] > 0
    assert deployment["process_s"] > deployment["load_s"] + deployment["first_call_s"]


def test_tvm_peak_memory_is_plausible_on_mlp(tvm_run):
    """demo:mlp (batch 32, hidden 256, float32): the VM holds at least the (32, 10) output and at
    most every storage it allocated; the peak is within 10x of eager's either way."""
    result = tvm_run("demo:mlp").one("result")
    peak, eager = result["peak_memory_bytes"], result["eager_peak_memory_bytes"]
    output_bytes = 32 * 10 * 4
    assert output_bytes <= peak <= result["tvm_memory"]["storage_bytes_allocated"], result
    assert result["tvm_memory"]["storage_allocs"] >= 2
    assert eager / 10 <= peak <= eager * 10, (peak, eager)


@pytest.mark.parametrize("model", MODELS)
def test_tvm_streams_samples_and_protocol_phases(tvm_run, model):
    run = tvm_run(model)
    series = {m["series"]: len(m["ms"]) for m in run.of_type("samples")}
    assert series.get("eager", 0) >= 1 and series.get("compiled", 0) >= 1, series
    assert series["eager"] == series["compiled"] == run.one("result")["runs"]["compiled"]
    phases = {m["phase"] for m in run.of_type("progress")}
    assert {"load", "reference", "compile", "capture", "measure", "memory", "accuracy"} <= phases, phases
    fractions = [m["fraction"] for m in run.of_type("progress")]
    assert fractions == sorted(fractions)
    assert run.one("model")["name"] == model


@pytest.mark.parametrize("model", MODELS)
def test_tvm_stages_match_the_schema_and_fusion_shrinks_the_graph(tvm_run, model, schema):
    run = tvm_run(model)
    assert [s["name"] for s in run.stages()] == STAGES
    for stage in run.stages():
        check_schema(stage, schema)
        assert stage["status"] == "ok", stage
        assert stage["level"] == "relax"
        assert stage["fusion"] == ("after" if stage["name"] in AFTER else "before")
        assert stage["nodes"]
    before = run.stage(BEFORE)
    compute = [n for n in before["nodes"] if n["kind"] in COMPUTE]
    categories = {n["category"] for n in compute}
    assert "matmul" in categories and "pointwise" in categories, categories
    for name in AFTER:
        after = run.stage(name)
        groups = after["groups"]
        assert groups and all(g["kind"] == "kernel" for g in groups)
        assert len(groups) < len(compute), (name, len(groups), len(compute))
        assert any(g["name"].startswith("fused_") and len(g["nodes"]) > 1 for g in groups), groups
        # every compute binding FuseOps received is in exactly one kernel, and linking found all
        members = [m for g in groups for m in g["nodes"]]
        assert len(members) == len(set(members))
        assert {n["id"] for n in compute} <= set(members)
        assert after["warnings"] == []
        by_id = {n["id"]: n for n in after["nodes"]}
        for group in groups:
            assert all(by_id[m]["group"] == group["id"] for m in group["nodes"])


@pytest.mark.parametrize("model", MODELS)
def test_tvm_code_is_the_script_of_each_stage(tvm_run, model):
    run = tvm_run(model)
    code = {m["stage"]: m for m in run.of_type("code")}
    assert sorted(code) == sorted(STAGES)
    for stage, message in code.items():
        assert message["language"] == "python" and message["name"] == f"{stage}.py"
        assert "@I.ir_module" in message["text"] and "def main(" in message["text"]
    assert "fused_" in code["relax_fused"]["text"] and "fused_" in code["relax_fuse_tir"]["text"]


def test_tvm_is_listed_available():
    run = run_worker({"type": "list_backends", "id": "b1"})
    backends = {b["name"]: b for b in run.one("backends")["backends"]}
    assert backends["tvm"]["available"] is True, backends["tvm"]
    assert backends["tvm"]["reason"] is None


def test_tvm_on_cuda_is_unavailable_with_a_reason():
    run = run_model("demo:mlp", "tvm", device="cuda")
    error = run.one("error")
    assert error["code"] == "backend_unavailable" and error["backend"] == "tvm"
    assert error["message"]
    assert run.one("result")["status"] == "failed"
