"""fusescope-cli compare --bisect (docs/accuracy.md): Inductor's own fault injection makes every
C++ relu compute x + 1; the bisect must name the relu node, the kernel of the measured compile
that holds it, and the relu's line of the model. A backend that passes is not bisected."""
import json
import pathlib

from conftest import FAST, ROOT

DEMOS = ROOT / "plugins" / "worker" / "fusescope_worker" / "models" / "demos.py"


def _relu_line() -> int:
    """The line of MLP.forward that calls F.relu, read from the model file."""
    lines = DEMOS.read_text().splitlines()
    start = next(i for i, text in enumerate(lines) if text.startswith("class MLP"))
    return next(i + 1 for i, text in enumerate(lines) if i > start and "F.relu(" in text)


def test_relu_fault_is_bisected_to_the_relu_node_its_kernel_and_line(cli, tmp_path):
    out = tmp_path / "bisect.fscope"
    r = cli("compare", "demo:mlp", "--backends", "eager,inductor", "--inductor-config",
            'cpp.inject_relu_bug_TESTING_ONLY="accuracy"', "--bisect", "--bisect-budget", "300",
            "--out", out, "--json", *FAST)
    assert r.code == 0, r
    runs = {b["name"]: b for b in r.json()["backends"]}
    assert runs["eager"]["accuracy"]["status"] == "pass"
    assert "first_divergence" not in runs["eager"]["accuracy"]  # passed: not bisected
    accuracy = runs["inductor"]["accuracy"]
    assert accuracy["status"] == "fail_accuracy", accuracy
    found = accuracy["first_divergence"]
    assert found["node"] == "relu", found
    assert "relu" in found["op"] and found["stage"] == "dynamo_fx" and found["graph"] == 0
    assert found["method"] == "intermediate_outputs" and found["compiles"] >= 1
    assert found["budget_exhausted"] is False and found["max_abs"] > 0.5
    assert pathlib.Path(found["file"]).name == "demos.py" and found["line"] == _relu_line()

    # The kernel is one of the measured compile's post-fusion kernels, and its record holds the relu.
    saved = json.loads(out.read_text())
    assert saved["settings"]["bisect_budget_s"] == 300
    inductor = next(b for b in saved["backends"] if b["name"] == "inductor")
    assert inductor["accuracy"]["first_divergence"] == found
    groups = [g for s in inductor["stages"] if s["name"] == "post_fusion" for g in s.get("groups", [])]
    holding = [g["name"] for g in groups if any("relu" in p for p in g.get("provenance", []))]
    assert found["kernel"] in holding, (found, holding)
    assert found["kernels"] == holding

    shown = cli("show", out, "--json")
    assert shown.code == 0, shown
    assert {b["name"]: b for b in shown.json()["backends"]}["inductor"]["accuracy"]["first_divergence"] == found
    text = cli("show", out)
    assert "bisect: inductor: first diverging node relu" in text.stdout, text
    assert found["kernel"] in text.stdout and f"demos.py:{found['line']}" in text.stdout

