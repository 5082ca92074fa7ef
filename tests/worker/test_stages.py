"""Stage capture on the demos (docs/worker.md). Each (model, backend) worker run is started once
per session and shared: an Inductor compile takes tens of seconds on two cores."""
import re

import pytest

from conftest import FIXTURES, run_model

ALL = ["dynamo_fx", "aot_forward", "post_grad", "pre_fusion", "post_fusion"]
CAPTURED = {"eager": ["dynamo_fx"], "aot_eager": ["dynamo_fx", "aot_forward"], "inductor": ALL}
TINY = [("demo:mlp", "eager"), ("demo:mlp", "aot_eager"), ("demo:mlp", "inductor"),
        ("demo:cnn", "eager"), ("demo:cnn", "aot_eager"), ("demo:cnn", "inductor")]
TINY_AOT = [case for case in TINY if case[1] != "eager"]
TINY_INDUCTOR = [case for case in TINY if case[1] == "inductor"]


@pytest.fixture(scope="session")
def user_cache(tmp_path_factory):
    """Stands for the user's own Inductor cache: a cold run must leave it untouched."""
    return tmp_path_factory.mktemp("user-inductor-cache")


@pytest.fixture(scope="session")
def worker_run(user_cache):
    """One worker run per (model, backend) for the whole session, shared by the tests."""
    runs = {}

    def get(model: str, backend: str):
        if (model, backend) not in runs:
            run = run_model(model, backend, env={"TORCHINDUCTOR_CACHE_DIR": str(user_cache)})
            assert run.returncode == 0, run
            assert run.one("result")["status"] == "ok", run
            runs[model, backend] = run
        return runs[model, backend]
    return get


@pytest.fixture(scope="session")
def transformer_inductor(worker_run):
    return worker_run("demo:transformer", "inductor")


def check_schema(stage: dict, schema: dict) -> None:
    """The required fields and references of docs/graph-schema.json."""
    for key in schema["required"]:
        assert key in stage, key
    assert stage["status"] in ("ok", "unsupported", "failed")
    defs = schema["$defs"]
    ids = set()
    for node in stage["nodes"]:
        assert all(k in node for k in defs["node"]["required"]), node
        assert node["id"] not in ids, node["id"]
        ids.add(node["id"])
        assert len(node["shapes"]) == len(node["dtypes"])
    for edge in stage["edges"]:
        assert edge["src"] in ids and edge["dst"] in ids, edge
    for group in stage["groups"]:
        assert all(k in group for k in defs["group"]["required"]), group
        assert set(group["nodes"]) <= ids, group


@pytest.mark.parametrize("model, backend", TINY)
def test_each_stage_is_sent_once_and_matches_the_schema(worker_run, model, backend, schema):
    run = worker_run(model, backend)
    names = [s["name"] for s in run.stages()]
    assert sorted(names) == sorted(ALL), names
    for stage in run.stages():
        check_schema(stage, schema)
        wanted = stage["name"] in CAPTURED[backend]
        assert stage["status"] == ("ok" if wanted else "unsupported"), stage
        if wanted:
            assert stage["nodes"] and stage["reason"] is None
        else:
            assert stage["reason"], stage


@pytest.mark.parametrize("model, backend", TINY)
def test_dynamo_graph_nodes_carry_ops_modules_and_source(worker_run, model, backend):
    run = worker_run(model, backend)
    nodes = run.stage("dynamo_fx")["nodes"]
    kinds = {n["kind"] for n in nodes}
    assert {"placeholder", "call_function", "output"} <= kinds
    calls = [n for n in nodes if n["kind"] == "call_function"]
    assert any(n["category"] in ("matmul", "conv") for n in calls)
    assert all(n["source"] and n["source"]["file"].endswith("demos.py") for n in calls), calls
    assert any(n["module"] for n in calls)


@pytest.mark.parametrize("model, backend", TINY_AOT)
def test_aten_stages_trace_back_to_dynamo_nodes(worker_run, model, backend):
    run = worker_run(model, backend)
    dynamo = {n["id"] for n in run.stage("dynamo_fx")["nodes"]}
    aot = run.stage("aot_forward")["nodes"]
    ops = [n for n in aot if n["kind"] == "call_function"]
    assert all(re.match(r"(aten|prims|operator)\.", n["op"]) for n in ops), [n["op"] for n in ops]
    assert any(n["origins"] for n in ops)
    assert all(set(n["origins"]) <= dynamo for n in ops)


@pytest.mark.parametrize("model, backend", TINY)
def test_result_describes_the_run(worker_run, model, backend):
    run = worker_run(model, backend)
    result = run.one("result")
    assert result["backend"] == backend and result["graphs"] == 1 and result["graph_breaks"] == 0
    assert result["first_call_s"] > 0 and result["compile_s"] > 0
    # One compile: the timed first call is the one that captured; the warm recompile runs apart
    assert result["compile_s"] == result["first_call_s"]
    assert result["capture_from"] == "timed_compile" and result["capture_from_reason"] is None
    assert result["capture_s"] is None and result["warm_compile_s"] > 0
    assert 0 < result["compile_capture_overhead_s"] < result["compile_s"]
    phases = result["compile_breakdown"]
    assert sum(phases.values()) == pytest.approx(result["compile_s"], rel=1e-6)  # first_run, unaccounted
    timed = sum(v for k, v in phases.items() if k not in ("first_run", "unaccounted"))
    assert timed >= 0.9 * result["compile_s"], phases  # torch's timers explain compile_s within 10 %
    assert phases["dynamo_tracing"] > 0
    if backend == "inductor":
        assert phases["kernel_compilation"] > 0 and phases["inductor_lowering"] > 0, phases
    graphs = result["compile_breakdown_graphs"]
    assert [g["compile_id"] for g in graphs] == ["0/0"]
    assert graphs[0]["total_s"] == pytest.approx(sum(graphs[0]["phases"].values()))
    assert graphs[0]["total_s"] <= timed + 1e-9
    assert result["accuracy"]["pass"] is True and result["accuracy"]["cosine"] > 0.999
    assert result["accuracy"]["rule"] in ("allclose", "rmse_vs_fp64")
    assert result["peak_memory_bytes"] > 0 and result["eager_peak_memory_bytes"] > 0
    assert result["memory_method"] == "profiler-allocator-peak"
    samples = {"eager": [], "compiled": []}
    for message in run.of_type("samples"):
        assert 0 < len(message["ms"]) <= 50
        samples[message["series"]] += message["ms"]
    assert len(samples["eager"]) == len(samples["compiled"]) >= 3
    assert all(ms > 0 for ms in samples["eager"] + samples["compiled"])


@pytest.mark.parametrize("model, backend", TINY_INDUCTOR)
def test_inductor_scheduler_nodes_derive_from_post_grad_nodes(worker_run, model, backend):
    run = worker_run(model, backend)
    post_grad = {n["id"] for n in run.stage("post_grad")["nodes"]}
    for node in run.stage("pre_fusion")["nodes"]:
        assert node["kind"] in ("scheduler_node", "extern_kernel", "nop", "template"), node
        assert node["origins"] and set(node["origins"]) <= post_grad, node
        assert node["name"].startswith("buf")


@pytest.mark.parametrize("model, backend", TINY_INDUCTOR)
def test_generated_kernels_have_provenance_and_occur_in_the_code(worker_run, model, backend):
    run = worker_run(model, backend)
    stage = run.stage("post_fusion")
    code = run.one("code")
    assert code["stage"] == "post_fusion" and code["language"] == "python" and code["name"] == "output_code.py"
    kernels = [g for g in stage["groups"] if g["kind"] == "kernel"]
    assert kernels and stage["kernels"] == len(kernels)
    for group in kernels:
        assert group["provenance"], group
        assert group["name"].startswith("cpp_") and group["name"] in code["text"], group
        assert group["nodes"] and group["code"] == "output_code.py"
    assert stage["warnings"] == [], stage["warnings"]


def test_transformer_fuses_into_fewer_kernels_than_scheduler_nodes(transformer_inductor):
    pre = transformer_inductor.stage("pre_fusion")
    post = transformer_inductor.stage("post_fusion")
    assert len(post["groups"]) < len(pre["nodes"])
    assert post["kernels"] < len(pre["nodes"])
    assert {n["id"] for n in post["nodes"]} == {n["id"] for n in pre["nodes"]}
    grouped = [n for n in post["nodes"] if n["group"]]
    assert len(grouped) == len(post["nodes"]), "every scheduler node belongs to a kernel launch"
    assert post["warnings"] == []


def test_transformer_kernels_have_provenance_in_the_generated_code(transformer_inductor):
    code = transformer_inductor.one("code")["text"]
    post_grad = {n["id"] for n in transformer_inductor.stage("post_grad")["nodes"]}
    kernels = [g for g in transformer_inductor.stage("post_fusion")["groups"] if g["kind"] == "kernel"]
    assert len(kernels) >= 3
    for group in kernels:
        assert group["provenance"] and set(group["provenance"]) <= post_grad, group
        assert re.search(rf"\b{re.escape(group['name'])}\b", code), group["name"]


def test_transformer_modules_use_dotted_paths(transformer_inductor):
    modules = {n["module"] for n in transformer_inductor.stage("dynamo_fx")["nodes"]}
    assert {"blocks.0.attn.qkv", "blocks.1.mlp.fc1", "blocks.0.ln1", "head"} <= modules


def test_graph_break_gives_two_graphs_and_a_located_reason():
    path = FIXTURES / "graph_break.py"
    run = run_model(path, "aot_eager")
    assert run.returncode == 0, run
    result = run.one("result")
    assert result["status"] == "ok", run
    assert result["graphs"] == 2 and result["graph_breaks"] >= 1
    reason = result["break_reasons"][0]
    assert reason["file"] == str(path) and reason["line"] == 15 and "graph_break" in reason["reason"]
    assert {s["graph"] for s in run.stages("dynamo_fx")} == {0, 1}


def test_cold_compiles_leave_the_users_cache_alone(worker_run, user_cache):
    run = worker_run("demo:mlp", "inductor")
    assert run.one("result")["cache"] == "cold"
    assert list(user_cache.iterdir()) == []


def test_graphs_the_compile_cache_served_get_the_stages_of_their_identical_graph(worker_run):
    """One compile with the caches on (docs/measurement.md "Compile time"): blocks 1 and 2 are
    graphs of the same structure as block 0, so Inductor's cache serves them and no hook sees
    them; their stages are graph 0's, moved onto their own Dynamo nodes and modules."""
    run = worker_run(FIXTURES / "repeated_blocks.py", "inductor")
    result = run.one("result")
    assert result["status"] == "ok" and result["graphs"] == 3 and result["capture_from"] == "timed_compile"
    stages = {(m["stage"]["graph"], m["stage"]["name"]): m["stage"] for m in run.of_type("stage")}
    for graph in (1, 2):
        dynamo = {n["id"] for n in stages[(graph, "dynamo_fx")]["nodes"]}
        for name in ("aot_forward", "post_grad", "pre_fusion", "post_fusion"):
            stage = stages[(graph, name)]
            assert stage["status"] == "ok" and stage["copied_from_graph"] == 0, stage
            assert stage["reason"].startswith("copied from graph 0: Inductor's compile cache served"), stage
            modules = {n["module"] for n in stage["nodes"] if n["module"]}
            assert modules and all(m.startswith(f"blocks.{graph}") for m in modules), (graph, name, modules)
        aot = stages[(graph, "aot_forward")]["nodes"]
        assert any(n["origins"] for n in aot) and all(set(n["origins"]) <= dynamo for n in aot), aot
        kernels = [g["name"] for g in stages[(graph, "post_fusion")]["groups"]]
        assert kernels == [g["name"] for g in stages[(0, "post_fusion")]["groups"]] and kernels
    assert "copied_from_graph" not in stages[(0, "post_fusion")]
