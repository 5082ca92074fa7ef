"""The stopping rule by confidence and the intervals the CLI shows (docs/measurement.md,
"Stopping rule", "Confidence intervals"): the C++ side and the worker pick the same order
statistics on the same samples; --confidence reaches or misses its target and says so."""
import json
import random
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "plugins" / "worker"))
from fusescope_worker import confidence

OK = 0
# Like conftest.FAST, without its --confidence 0: these tests set their own target.
SHORT = ["--warmup", "1", "--min-runs", "5", "--min-time", "0.05"]


def scripted_report(path, runs):
    """A minimal schema-1 report whose backends carry the given (eager, compiled) samples."""
    backends = []
    for name, eager, compiled, measure in runs:
        b = {"name": name, "family": "torch_compile", "status": "ok", "error": None,
             "samples": {"eager": eager, "compiled": compiled},
             "accuracy": {"max_abs": 0.0, "max_rel": 0.0, "cosine": 1.0, "rmse": 0.0, "pass": True,
                          "status": "pass", "rule": "allclose", "tolerance": 0.001}}
        if measure is not None:
            b["measure"] = measure
        backends.append(b)
    path.write_text(json.dumps({"format": "fusescope-report", "schema": 1, "model_spec": "demo:mlp",
                                "backends": backends,
                                "warnings": [{"code": "machine_busy", "message": "scripted run-wide warning"}]}))


def test_show_gives_the_intervals_the_worker_computes_on_the_same_samples(cli, tmp_path):
    rng = random.Random(13)
    runs = []
    for i, n in enumerate((6, 7, 31, 100, 257)):
        eager = [10.0 * (1 + rng.uniform(-0.1, 0.1)) for _ in range(n)]
        compiled = [5.0 * (1 + rng.uniform(-0.2, 0.2)) for _ in range(n)]
        runs.append((f"b{i}", eager, compiled, {"confidence_pct": 2.0, "stopped_by": "max_runs"}))
    report = tmp_path / "scripted.fscope"
    scripted_report(report, runs)
    r = cli("show", report, "--json")
    assert r.code == OK, r
    shown = {b["name"]: b for b in r.json()["backends"]}
    for name, eager, compiled, _ in runs:
        b = shown[name]
        ratios = [e / c for e, c in zip(eager, compiled)]
        _, lo, hi = confidence.median_ci(ratios)
        assert b["speedup_ci95"] == [lo, hi], (name, len(ratios))
        _, lo, hi = confidence.median_ci(compiled)
        assert b["latency_ms"]["ci95"] == [lo, hi], name
        width = confidence.half_width_pct(ratios)
        assert abs(b["measure"]["half_width_pct"] - width) < 1e-9
        assert b["measure"]["confidence_reached"] == (width <= 2.0)
        codes = [w["code"] for w in b["warnings"]]
        assert ("low_confidence" in codes) == (width > 2.0), (name, codes)
    assert r.json()["warnings"] == [{"code": "machine_busy", "message": "scripted run-wide warning"}]
    table = cli("show", report)
    assert table.code == OK, table
    assert "warning: [machine_busy] scripted run-wide warning" in table.stdout
    assert "confidence (95 % intervals" in table.stdout and "NOT reached (stopped by max_runs)" in table.stdout


def test_confidence_target_reached_and_missed(cli, tmp_path):
    # A loose target is met as soon as the minimums are; an impossible one runs to the cap.
    loose = cli("compare", "demo:mlp", "--backends", "eager", "--json", *SHORT, "--max-time", "20",
                "--confidence", "50")
    assert loose.code == OK, loose
    b = loose.json()["backends"][0]
    assert b["measure"]["confidence_pct"] == 50
    assert b["measure"]["confidence_reached"] is True and b["measure"]["stopped_by"] == "confidence", b["measure"]
    assert b["measure"]["half_width_pct"] <= 50
    assert b["speedup_ci95"][0] <= b["speedup"]["median"] <= b["speedup_ci95"][1]
    assert "low_confidence" not in [w["code"] for w in b["warnings"]]

    out = tmp_path / "missed.fscope"
    missed = cli("compare", "demo:mlp", "--backends", "eager", "--out", out, *SHORT, "--max-runs", "12",
                 "--max-time", "20", "--confidence", "0.001")
    assert missed.code == OK, missed
    assert "low_confidence" in missed.stdout and "NOT reached (stopped by max_runs)" in missed.stdout
    shown = cli("show", out, "--json").json()
    b = shown["backends"][0]
    faults = b["measure"]["faults_per_call"]  # the worker's page faults per timed call, each side
    assert set(faults) == {"eager", "compiled"} and all(v >= 0 for v in faults.values()), faults
    assert b["measure"] == {"confidence_pct": 0.001, "confidence_reached": False,
                            "half_width_pct": b["measure"]["half_width_pct"], "stopped_by": "max_runs",
                            "faults_per_call": faults}
    assert "page faults per call: eager" in cli("show", out).stdout
    assert b["measure"]["half_width_pct"] > 0.001
    assert b["latency_ms"]["n"] == 12
    assert "low_confidence" in [w["code"] for w in b["warnings"]]
    saved = json.loads(out.read_text())
    assert saved["settings"]["measure"]["confidence_pct"] == 0.001
    assert saved["settings"]["measure"]["settle"] == 1  # the default: one untimed call before each timed one
    assert isinstance(saved["warnings"], list)  # the run-wide check ran (empty on a quiet machine)


def test_confidence_out_of_range_is_a_usage_error(cli):
    for bad in ("-1", "101", "nan"):
        r = cli("compare", "demo:mlp", "--backends", "eager", "--confidence", bad)
        assert r.code == 64, (bad, r)
        assert "--confidence" in r.stderr, r
