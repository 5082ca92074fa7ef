"""Mixed runs: per-submodule backends (backend "mixed", workload.assign; docs/workloads.md)."""
import pytest

from conftest import run_model

MEASURE = {"warmup": 3, "min_runs": 40, "min_time_s": 0.0, "max_runs": 40, "max_time_s": 15.0}


def mixed_run(model, assign, **fields):
    return run_model(model, "mixed", workload={"assign": assign}, **fields)


def ok(run):
    assert run.returncode == 0, run
    result = run.one("result")
    assert result["status"] == "ok", run
    return result


def test_mixed_assignment_runs_matches_eager_and_adds_up_to_its_parts():
    assign = {"blocks.0": "aot_eager", "blocks.1": "eager", "head": "aot_eager"}
    run = mixed_run("demo:transformer", assign)
    result = ok(run)
    assert result["backend"] == "mixed" and result["assign"] == assign
    assert result["accuracy"]["pass"], result["accuracy"]

    parts = {p["module"]: p for p in result["parts"]}
    assert list(parts) == list(assign)
    assert all(parts[name]["backend"] == backend for name, backend in assign.items())
    assert all(p["graphs"] == 1 and p["graph_breaks"] == 0 and p["calls"] == 1 for p in parts.values())
    assert result["graphs"] == sum(p["graphs"] for p in parts.values())
    assert result["graph_breaks"] == sum(p["graph_breaks"] for p in parts.values())
    # Per-part compile time is measured inside the whole first call.
    assert all(p["compile_s"] > 0 for p in parts.values())
    assert sum(p["first_call_s"] for p in parts.values()) <= result["first_call_s"]

    # Each part's stages: unique graph indices, labelled with the part, nodes under its path.
    dynamo = run.stages("dynamo_fx")
    assert sorted(s["graph"] for s in dynamo) == list(range(result["graphs"]))
    assert {s["module"]: s["backend"] for s in dynamo} == assign
    for stage in dynamo:
        compute = [n for n in stage["nodes"] if n["kind"] not in ("placeholder", "output")]
        assert compute and all(n["module"].startswith(stage["module"]) for n in compute), stage["module"]
    aot = {s["module"]: s["status"] for s in run.stages("aot_forward")}
    assert aot == {"blocks.0": "ok", "blocks.1": "unsupported", "head": "ok"}

    # The model message lists the submodules a user can assign.
    modules = {m["name"]: m for m in run.one("model")["modules"]}
    assert {"embed", "blocks", "blocks.0", "blocks.0.attn.qkv", "head"} <= set(modules)
    assert modules["blocks.0.attn.qkv"]["depth"] == 4 and modules["head"]["parameters"] == 64 * 256 + 256


def test_inductor_part_gets_inductor_stages_and_code():
    run = mixed_run("demo:mlp", {"fc2": "inductor", "head": "eager"})
    result = ok(run)
    assert result["accuracy"]["pass"]
    fc2 = next(p for p in result["parts"] if p["module"] == "fc2")
    post = [s for s in run.stages("post_fusion") if s["module"] == "fc2"]
    assert len(post) == 1 and post[0]["status"] == "ok" and post[0]["graph"] == 0 and fc2["graphs"] == 1
    code = run.of_type("code")
    assert [c["module"] for c in code] == ["fc2"] and code[0]["graph"] == 0
    head_stages = {s["name"]: s["status"] for s in run.stages() if s["module"] == "head"}
    assert head_stages["dynamo_fx"] == "ok" and head_stages["post_fusion"] == "unsupported"


def test_all_eager_assignment_runs_at_eager_speed():
    assign = {name: "eager" for name in ("embed", "blocks.0", "blocks.1", "ln_f", "head")}
    run = mixed_run("demo:transformer", assign, measure=MEASURE)
    result = ok(run)
    assert result["accuracy"]["max_abs"] == 0.0
    series = {name: [x for m in run.of_type("samples") if m["series"] == name for x in m["ms"]]
              for name in ("eager", "compiled")}
    # Five Dynamo-wrapped calls of the unchanged code: only guard checks are added. Minimums,
    # because on a busy 2-core machine single samples jump by 100x when threads are preempted.
    speedup = min(series["eager"]) / min(series["compiled"])
    assert 0.6 < speedup < 1.5, (speedup, series)


@pytest.mark.parametrize("assign, words", [
    ({"blocks.7": "eager"}, ["'blocks.7'", "top-level submodules: embed, blocks, ln_f, head"]),
    ({"blocks.0": "eager", "blocks.0.attn": "aot_eager"}, ["overlap", "'blocks.0.attn'"]),
    ({"blocks.0": "tvm"}, ["not a torch.compile backend", "TVM Relax"]),
    ({"blocks.0": "aot_inductor"}, ["aot_inductor", "not a torch.compile backend"]),
    ({"blocks": "eager"}, ["container", "blocks.0, blocks.1"]),
])
def test_bad_assignments_are_refused_by_name(assign, words):
    run = mixed_run("demo:transformer", assign)
    assert run.returncode == 3, run
    error = run.one("error")
    assert error["code"] == "bad_request", error
    assert all(word in error["message"] for word in words), error["message"]
