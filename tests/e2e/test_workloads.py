"""End to end: the workload flags of `compare` (docs/workloads.md) through the real CLI and worker."""
import json

from conftest import FAST

OK, PARTIAL, USAGE = 0, 2, 64


def by_name(summary):
    return {b["name"]: b for b in summary["backends"]}


def test_bad_workload_flags_are_usage_errors_naming_the_value(cli):
    cases = [
        (["--mode", "max-autotune"], "--compile-mode"),
        (["--mode", "train"], "train"),
        (["--precision", "fp8"], "fp8"),
        (["--shapes", "4x;8x8"], "4x"),
        (["--assign", "encoder"], "SUBMODULE=BACKEND"),
        (["--goal", "speed"], "speed"),
    ]
    for flags, named in cases:
        r = cli("compare", "demo:mlp", *flags)
        assert r.code == USAGE, (flags, r)
        assert named in r.stderr, (flags, r)


def test_shape_list_counts_recompiles_and_keeps_a_bad_set_apart(cli, tmp_path):
    out = tmp_path / "shapes.fscope"
    r = cli("compare", "demo:mlp", "--backends", "eager", "--shapes", "16x64;8x64;4x65;4x64", "--json",
            "--out", out, *FAST)
    assert r.code == OK, r
    shapes = by_name(r.json())["eager"]["shapes"]
    static, dynamic = shapes["runs"]
    assert static["dynamic"] is False and dynamic["dynamic"] is True
    assert static["recompiles"] >= 2 and dynamic["recompiles"] < static["recompiles"]
    bad = static["per_shape"][2]
    assert bad["status"] == "failed" and "shape set 2 (4x65:float32)" in bad["error"]
    good = static["per_shape"][1]
    assert good["status"] == "ok" and good["recompiled"] is True
    assert good["latency_ms"]["n"] >= 1 and good["inputs"][0]["shape"] == [8, 64]
    # The saved report keeps the samples; `show` derives the same numbers.
    shown = by_name(json.loads(cli("show", out, "--json").stdout))["eager"]["shapes"]
    assert shown == shapes
    table = cli("show", out).stdout
    assert "dynamic=false: " in table and "failed: shape set 2" in table


def test_assignment_runs_as_one_model_beside_the_single_backends(cli):
    r = cli("compare", "demo:mlp", "--backends", "eager", "--assign", "fc1=aot_eager,fc2=eager", "--json", *FAST)
    assert r.code == OK, r
    rows = by_name(r.json())
    mixed = rows["mixed[fc1=aot_eager,fc2=eager]"]
    assert mixed["status"] == "ok" and mixed["accuracy"]["pass"] is True
    assert mixed["assign"] == {"fc1": "aot_eager", "fc2": "eager"}
    assert sorted(p["module"] for p in mixed["parts"]) == ["fc1", "fc2"]
    assert mixed["graphs"] == sum(p["graphs"] for p in mixed["parts"])


def test_assignment_naming_a_missing_submodule_fails_only_that_row(cli):
    r = cli("compare", "demo:mlp", "--backends", "eager", "--assign", "fc9=inductor", "--json", *FAST)
    assert r.code == PARTIAL, r
    rows = by_name(r.json())
    assert rows["eager"]["status"] == "ok"
    mixed = rows["mixed[fc9=inductor]"]
    assert mixed["status"] == "failed" and "fc9" in mixed["error"] and "fc1" in mixed["error"]


def test_search_keeps_every_candidate_and_never_picks_worse_than_the_best_single(cli, fixture_model, tmp_path):
    out = tmp_path / "search.fscope"
    r = cli("compare", fixture_model("two_parts.py"), "--backends", "eager,aot_eager", "--search-assign", "--json",
            "--out", out, *FAST)
    assert r.code == OK, r
    summary = r.json()
    search = summary["search"]
    assert search["strategy"] == "exhaustive"
    assert search["modules"] == ["encoder", "decoder"]
    labels = [c["label"] for c in search["candidates"]]
    assert len(labels) == 4 and len(set(labels)) == 4
    rows = by_name(summary)
    for label in labels:  # every candidate's numbers are kept as a row of the report
        assert rows[label]["status"] == "ok" and rows[label]["latency_ms"]["n"] >= 1, rows[label]
    pick = search["pick"]
    best_single = search["best_single_speedup"]
    picked = rows[pick]["speedup"]
    # Never slower than the best single backend beyond the measured spread.
    assert picked["q3"] >= best_single["q1"], (pick, picked, best_single)
    assert summary["recommendation"]["verdict"]
    saved = json.loads(out.read_text())
    assert saved["search"]["pick"] == pick


def test_recommendation_ranks_for_the_goal_and_explains_exclusions(cli, tmp_path):
    out = tmp_path / "rec.fscope"
    r = cli("compare", "demo:mlp", "--backends", "eager,no_such_backend", "--out", out, *FAST)
    assert r.code == PARTIAL, r
    shown = cli("show", out, "--json", "--goal", "memory").json()
    rec = shown["recommendation"]
    assert rec["goal"] == "memory"
    assert [x["backend"] for x in rec["ranked"]] == ["eager"]
    assert rec["excluded"][0]["backend"] == "no_such_backend"
    assert "unavailable" in rec["excluded"][0]["reason"]
    text = cli("show", out, "--goal", "throughput").stdout
    assert "--mode training" in text


def test_training_mode_reports_steps_backward_stages_gradients_and_throughput(cli, tmp_path):
    out = tmp_path / "train.fscope"
    r = cli("compare", "demo:mlp", "--backends", "eager,aot_eager", "--mode", "training", "--goal", "throughput",
            "--json", "--out", out, *FAST)
    assert r.code == OK, r
    summary = r.json()
    b = by_name(summary)["aot_eager"]
    assert b["workload"]["mode"] == "training"
    assert b["training"]["gradient_accuracy"]["pass"] is True
    assert b["training"]["throughput_samples_s"] > 0
    assert b["training"]["compile_forward_s"] is not None
    stages = {(s["name"], s.get("pass")) for s in b["stages"]}
    assert ("aot_forward", None) in stages and ("aot_backward", "backward") in stages, stages
    rec = summary["recommendation"]
    assert rec["goal"] == "throughput" and rec["ranked"], rec
    assert "samples/s" in rec["ranked"][0]["sentence"]
    table = cli("show", out, "--goal", "throughput").stdout
    assert "training steps" in table and "gradients match" in table


def test_bf16_precision_is_reported_with_its_tolerance(cli):
    r = cli("compare", "demo:mlp", "--backends", "aot_eager", "--precision", "bf16", "--json", *FAST)
    assert r.code == OK, r
    acc = by_name(r.json())["aot_eager"]["accuracy"]
    assert acc["precision"] == "bf16" and acc["tolerance"] >= 1e-2 and acc["pass"] is True


def test_graph_break_is_reported_with_its_source_line_and_place(cli, fixture_model, tmp_path):
    out = tmp_path / "breaks.fscope"
    r = cli("compare", fixture_model("graph_break.py"), "--backends", "eager", "--out", out, *FAST)
    assert r.code == OK, r
    assert "after graph 0: " in r.stdout and "graph_break.py:15" in r.stdout, r
    b = by_name(cli("show", out, "--json").json())["eager"]
    assert b["graphs"] == 2 and b["graph_breaks"] == 1
    (brk,) = b["break_reasons"]
    assert brk["line"] == 15 and brk["file"].endswith("graph_break.py") and brk["graph"] == 1


def test_backends_that_cannot_run_a_workload_say_so_and_the_others_run(cli):
    r = cli("compare", "demo:mlp", "--backends", "aot_eager,torchscript,tvm", "--mode", "training", "--json", *FAST)
    assert r.code == PARTIAL, r
    rows = by_name(r.json())
    assert rows["aot_eager"]["status"] == "ok"
    assert rows["torchscript"]["status"] == "unavailable" and "training mode" in rows["torchscript"]["error"]
    assert rows["tvm"]["status"] == "unavailable" and "training mode is not supported" in rows["tvm"]["error"]
