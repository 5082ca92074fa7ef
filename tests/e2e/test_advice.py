"""docs/advice.md end to end: `show` on a scripted report (no torch compile) lists the advice each
rule gives, with its evidence and the --backends entry to add; a report with no evidence gets none."""
import copy
import json

from conftest import ROOT

GOOD = ROOT / "tests" / "fixtures" / "reports" / "good.fscope"

HINTED_BREAK = {
    "reason": "Unsupported Tensor.item() call with capture_scalar_outputs=False",
    "detail": "Unsupported Tensor.item() call with capture_scalar_outputs=False\n"
              "  Explanation: Dynamo does not support tracing `Tensor.item()` with "
              "config.capture_scalar_outputs=False.\n"
              "  Hint: Set `torch._dynamo.config.capture_scalar_outputs = True` or `export "
              "TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1` to include these operations in the captured graph.\n\n"
              "  Developer debug context: call_method TensorVariable() item () {}\n",
    "file": "model.py", "line": 9, "graph": 1}


def scripted(tmp_path):
    report = json.loads(GOOD.read_text())
    inductor = next(b for b in report["backends"] if b["name"] == "inductor")
    compile_s = inductor["compile_s"]
    # 80 % of the compile in C++ compilation (compile_breakdown, docs/measurement.md).
    inductor["compile_breakdown"] = {"dynamo_tracing": 0.05 * compile_s, "kernel_compilation": 0.8 * compile_s,
                                     "unaccounted": 0.15 * compile_s}
    inductor["break_reasons"] = [HINTED_BREAK]
    inductor["graph_breaks"] = 1
    missing = copy.deepcopy(next(b for b in report["backends"] if b["name"] == "eager"))
    missing.update(name="nvfuser", status="unavailable", samples={"eager": [], "compiled": []}, accuracy=None,
                   error={"code": "backend_unavailable", "file": None, "traceback": None,
                          "message": "backend 'nvfuser' is unavailable: needs lightning-thunder with nvFuser: "
                                     "import thunder failed: No module named 'thunder'"})
    report["backends"].append(missing)
    path = tmp_path / "scripted.fscope"
    path.write_text(json.dumps(report))
    return path


def test_show_lists_the_advice_of_a_scripted_report(cli, tmp_path):
    path = scripted(tmp_path)
    r = cli("show", path, "--json")
    assert r.code == 0, r
    advice = r.json()["advice"]
    by_rule = {a["rule"]: a for a in advice}
    assert set(by_rule) == {"compile_kernel_compilation", "graph_break_hint", "dynamo_option",
                            "backend_unavailable"}, advice
    compile_advice = by_rule["compile_kernel_compilation"]
    assert compile_advice["backend"] == "inductor" and compile_advice["try"] == "inductor@lite"
    assert "(80 %" in compile_advice["evidence"], compile_advice
    assert "capture_scalar_outputs = True" in by_rule["graph_break_hint"]["message"]
    assert by_rule["graph_break_hint"]["try"] is None
    assert "model.py:9" in by_rule["graph_break_hint"]["evidence"]
    # The same hint names a Dynamo option: the row with it is the thing to try (docs/advice.md).
    assert by_rule["dynamo_option"]["try"] == "inductor{dynamo.capture_scalar_outputs=true}", by_rule["dynamo_option"]
    assert "'thunder'" in by_rule["backend_unavailable"]["message"]
    assert all(a["backend"] != "eager" for a in advice)

    text = cli("show", path)
    assert text.code == 0, text
    assert "\nadvice:\n" in text.stdout
    assert "inductor [compile_kernel_compilation]" in text.stdout
    assert "try --backends 'inductor@lite'" in text.stdout


def test_a_report_without_evidence_gets_no_advice(cli):
    r = cli("show", GOOD, "--json")
    assert r.code == 0, r
    assert r.json()["advice"] == []
    assert "advice:" not in cli("show", GOOD).stdout
