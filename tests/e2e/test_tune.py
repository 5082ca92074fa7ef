"""`fusescope-cli tune` end to end (docs/tuning.md): a small space on demo:mlp within a budget,
the JSON contract, the report and `show --json` carrying the same object, the snippet parsed back
into the best entry, and the usage errors (unknown space key, bad budget) before anything runs."""
import ast
import json
import os
import pathlib
import subprocess

import pytest

from conftest import FAST, cli_path

# Two candidates and no advice keep this at two worker runs, ~30 s on the CI machine.
SPACE = """
backends = ["inductor"]
modes = []
dynamic = [false]
fullgraph = false
advice = false
max_rounds = 2
[inductor_options]
"""

CONTRACT_CANDIDATE = {"entry", "origin", "status", "speedup", "speedup_ci95", "compile_s", "peak_memory_bytes",
                      "accuracy_status", "dropped"}


def entry_from_snippet(snippet: str) -> str:
    """The `--backends` entry the snippet's torch.compile call stands for, read by Python's parser."""
    tree = ast.parse(snippet)
    call = next(node for node in ast.walk(tree)
                if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "compile")
    # Dynamo options are set before the call: `torch._dynamo.config.NAME = VALUE`.
    dynamo = [f"dynamo.{node.targets[0].attr}={json.dumps(ast.literal_eval(node.value))}"
              for node in tree.body if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Attribute)
              and ast.unparse(node.targets[0].value) == "torch._dynamo.config"]
    kw = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    entry = kw.pop("backend")
    if "mode" in kw:
        entry += "@" + kw.pop("mode")
    options = []
    if "fullgraph" in kw:
        options.append("fullgraph" if kw.pop("fullgraph") else "fullgraph=false")
    if "dynamic" in kw:
        d = kw.pop("dynamic")
        options.append("dynamic=" + ("auto" if d is None else str(d).lower()))
    options += dynamo
    for key, value in kw.pop("options", {}).items():
        options.append(f"{key}={json.dumps(value) if not isinstance(value, str) else value}")
    assert not kw, f"unexpected arguments {kw}"
    return entry + ("{" + ",".join(options) + "}" if options else "")


def test_tune_races_a_small_space_and_keeps_the_contract(cli, tmp_path):
    space = tmp_path / "space.toml"
    space.write_text(SPACE)
    out = tmp_path / "tune.fscope"
    r = cli("tune", "demo:mlp", "--budget", "4m", "--space", space, "--json", "-q", "-o", out, *FAST)
    assert r.code == 0, r
    t = r.json()["tuning"]
    assert t["goal"] == "latency"
    assert t["budget_s"] == 240
    assert 0 < t["elapsed_s"] <= 240 + 10  # the budget, plus the last run's cleanup
    entries = [c["entry"] for c in t["candidates"]]
    assert entries == ["inductor", "inductor{dynamic=false}"]
    for c in t["candidates"]:
        assert CONTRACT_CANDIDATE <= set(c), c
        assert c["origin"] == "space"
        assert c["status"] == "ok", c
        assert c["accuracy_status"] == "pass"
        lo, hi = c["speedup_ci95"]
        assert lo <= c["speedup"] <= hi
        assert c["compile_s"] > 0 and c["peak_memory_bytes"] > 0
        assert 1 <= c["rounds"] <= 2
    assert t["stopped_by"] in ("separated", "max_rounds", "budget")
    best = t["best"]
    assert best["entry"] in entries
    assert best["entry"] not in t["runners_up"]
    assert set(t["pareto"]) <= set(entries) and t["pareto"]
    assert t["advice_outcomes"] == []
    # The snippet is the best entry's torch.compile call, read back by Python's own parser.
    assert entry_from_snippet(best["snippet"]) == best["entry"]

    # The report holds the same object, and `show --json` prints it.
    shown = cli("show", out, "--json")
    assert shown.code == 0, shown
    assert shown.json()["tuning"] == t
    report = json.loads(out.read_text())
    assert report["tuning"] == t
    rows = {row["name"]: row for row in report["backends"]}
    assert set(rows) == set(entries)
    for c in t["candidates"]:
        if c["rounds"] > 1:  # a revisit joined its row: the rounds and where their samples start
            rounds = rows[c["entry"]]["rounds"]
            assert [r["cache"] for r in rounds] == ["cold", "warm"]
            assert 0 == rounds[0]["first_sample"] < rounds[1]["first_sample"]
    text = cli("show", out)
    assert "tuning (latency" in text.stdout and best["snippet"].splitlines()[0] in text.stdout

    # The GUI opens it on the Tuning view.
    gui = os.environ.get("FUSESCOPE_GUI") or str(pathlib.Path(cli_path()).parents[1] / "gui" / "fusescope")
    if pathlib.Path(gui).exists():
        shot = tmp_path / "tuning.png"
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", FUSESCOPE_PYTHON="/nonexistent/python")
        proc = subprocess.run([gui, str(out), "--tab", "tuning", "--screenshot", str(shot)],
                              capture_output=True, text=True, timeout=120, env=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert shot.stat().st_size > 10_000


@pytest.mark.parametrize("space_text, message", [
    ("backends = [\"inductor\"]\nbackendz = [\"tvm\"]\n", "unknown key 'backendz'"),
    ("max_rounds = 0\n", "max_rounds"),
    ("entries = [\"inductor{\"]\n", "entries"),
])
def test_a_bad_space_file_is_a_usage_error_naming_the_key(cli, tmp_path, space_text, message):
    space = tmp_path / "bad.toml"
    space.write_text(space_text)
    r = cli("tune", "demo:mlp", "--budget", "60", "--space", space, "-o", tmp_path / "x.fscope")
    assert r.code == 64, r
    assert message in r.stderr and "bad.toml" in r.stderr, r
    assert not (tmp_path / "x.fscope").exists()


@pytest.mark.parametrize("budget", ["0", "5 minutes", "-3", "1e9"])
def test_a_bad_budget_is_a_usage_error(cli, budget):
    r = cli("tune", "demo:mlp", "--budget", budget)
    assert r.code == 64, r
    assert "--budget" in r.stderr


def test_a_bad_goal_is_a_usage_error(cli):
    r = cli("tune", "demo:mlp", "--budget", "60", "--goal", "speed")
    assert r.code == 64 and "--goal" in r.stderr, r


def test_the_snippet_reader_takes_dynamo_options():
    """The reader above, on the snippet TunerTest pins for a Dynamo option (set before the call)."""
    snippet = 'torch._dynamo.config.capture_scalar_outputs = True\nmodel = torch.compile(model, backend="inductor")'
    assert entry_from_snippet(snippet) == "inductor{dynamo.capture_scalar_outputs=true}"


def test_advice_turns_a_dynamo_hint_into_a_candidate_and_measures_it(cli, tmp_path):
    """A Tensor.item() graph break: the dynamo_option advice races the row with
    capture_scalar_outputs, and the outcome says what it did (two aot_eager runs, ~30 s)."""
    space = tmp_path / "space.toml"
    space.write_text('backends = ["aot_eager"]\nbase = "aot_eager"\nmodes = []\ndynamic = []\nfullgraph = false\n'
                     'assignments = false\nmax_rounds = 1\n[inductor_options]\n')
    model = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "models" / "scalar_break.py"
    r = cli("tune", model, "--budget", "3m", "--space", space, "--json", "-q", "-o", tmp_path / "t.fscope", *FAST)
    assert r.code == 0, r
    t = r.json()["tuning"]
    by_entry = {c["entry"]: c for c in t["candidates"]}
    tried = by_entry["aot_eager{dynamo.capture_scalar_outputs=true}"]
    assert tried["origin"] == "advice" and tried["advice"] == "dynamo_option" and tried["status"] == "ok", tried
    outcome = next(a for a in t["advice_outcomes"] if a["rule"] == "dynamo_option")
    assert outcome["entry"] == tried["entry"] and outcome["base"] == "aot_eager"
    assert outcome["outcome"] in ("helped", "hurt", "no_difference"), outcome
    report = json.loads((tmp_path / "t.fscope").read_text())
    rows = {row["name"]: row for row in report["backends"]}
    assert rows["aot_eager"]["graph_breaks"] >= 1
    assert rows[tried["entry"]]["graph_breaks"] == 0
