"""Shape lists (workload.shapes): recompiles with dynamic=False and dynamic=True, the recompile
limit, per-set failures, inputs made like the model's own (docs/workloads.md)."""
import torch

from conftest import run_model


def f32(*shape):
    return [{"shape": list(shape), "dtype": "float32"}]


def shape_run(model, backend, sets, **fields):
    run = run_model(model, backend, workload={"shapes": sets}, **fields)
    assert run.returncode == 0, run
    result = run.one("result")
    assert result["status"] == "ok", run
    return run, result


def by_dynamic(result) -> dict:
    runs = {r["dynamic"]: r for r in result["shapes"]["runs"]}
    assert set(runs) == {False, True}
    return runs


def test_shape_list_recompiles_with_static_shapes_and_fewer_with_dynamic():
    sets = [f32(16, 64), f32(8, 64), f32(4, 65), f32(4, 64)]  # set 2 does not fit the first Linear
    run, result = shape_run("demo:mlp", "eager", sets)
    assert result["shapes"]["sets"] == sets
    runs = by_dynamic(result)
    static, dynamic = runs[False], runs[True]

    # dynamic=False: every new batch size is a recompile of forward (set 0 is the first compile).
    assert [p["index"] for p in static["per_shape"]] == [0, 1, 2, 3]
    assert [p["recompiled"] for p in static["per_shape"]] == [False, True, False, True]
    assert static["recompiles"] == 2 and static["graphs"] == 3
    assert static["guard_failures"] >= 2  # Dynamo's records of the failed size guards
    assert static["recompile_limit"] == torch._dynamo.config.recompile_limit and not static["limit_hit"]
    # dynamic=True: one symbolic graph serves every batch size.
    assert dynamic["recompiles"] == 0 < static["recompiles"] and dynamic["graphs"] == 1
    assert not any(p["recompiled"] for p in dynamic["per_shape"])

    for entry in (static, dynamic):
        failed = entry["per_shape"][2]
        assert failed["status"] == "failed" and failed["first_call_s"] is None
        assert failed["error"].startswith("shape set 2 (4x65:float32): forward raised RuntimeError"), failed
        for point in (entry["per_shape"][i] for i in (0, 1, 3)):
            assert point["status"] == "ok" and point["error"] is None, point
            assert point["first_call_s"] > 0 and point["accuracy"]["pass"], point
            assert len(point["eager_ms"]) == len(point["compiled_ms"]) >= 3
    # The set that compiled takes longer on its first call than a set served from the cache.
    assert dynamic["per_shape"][0]["first_call_s"] > min(dynamic["per_shape"][i]["first_call_s"] for i in (1, 3))

    # The main result stands, and the shape samples stay out of the streamed `samples`.
    assert result["graphs"] == 1 and result["accuracy"]["pass"]
    streamed = sum(len(m["ms"]) for m in run.of_type("samples") if m["series"] == "eager")
    assert streamed == result["runs"]["eager"]
    phases = [m["phase"] for m in run.of_type("progress")]
    assert "shapes" in phases and phases[-1] == "shapes"
    fractions = [m["fraction"] for m in run.of_type("progress")]
    assert fractions == sorted(fractions)


def test_too_many_static_shapes_hit_the_recompile_limit_and_fall_back_to_eager():
    limit = torch._dynamo.config.recompile_limit  # 8 in torch 2.13
    sets = [f32(batch, 64) for batch in range(2, limit + 5)]
    _, result = shape_run("demo:mlp", "eager", sets)
    static, dynamic = by_dynamic(result)[False], by_dynamic(result)[True]
    assert static["limit_hit"] and static["recompile_limit"] == limit
    # limit cache entries for forward: the first compile and limit - 1 recompiles; the next new
    # shape hits the limit and forward runs eager from then on, without an error.
    assert static["graphs"] == limit and static["recompiles"] == limit - 1
    hits = [p["index"] for p in static["per_shape"] if p["limit_hit"]]
    assert hits == [limit]
    assert all(p["status"] == "ok" and p["compiled_graphs"] == 0 for p in static["per_shape"][limit:])
    assert not dynamic["limit_hit"] and dynamic["recompiles"] == 0


def test_inputs_for_a_set_take_integer_ranges_from_the_default_inputs():
    from fusescope_worker.models import demos
    from fusescope_worker.shapes import build_inputs

    loaded = demos.load("demo:transformer")
    (tokens,), _ = build_inputs(loaded, [{"shape": [4, 999], "dtype": "int64"}], torch.device("cpu"))
    assert tokens.shape == (4, 999) and tokens.dtype == torch.int64
    assert tokens.min() >= 0 and tokens.max() < 256 and tokens.max() > 200  # the vocabulary, not [0, 2)
    (low,), _ = build_inputs(loaded, [{"shape": [8], "dtype": "int64", "low": 5, "high": 7}], torch.device("cpu"))
    assert set(low.tolist()) <= {5, 6}


def test_malformed_shape_list_is_a_bad_request():
    run = run_model("demo:mlp", "eager", workload={"shapes": {"shape": [4, 64]}})
    assert run.returncode == 3, run
    error = run.one("error")
    assert error["code"] == "bad_request" and "workload.shapes" in error["message"]
