"""fusescope-cli diff (docs/diff.md) on one pair of real reports, made once per session.

demo:mlp with inductor, fp32 and bf16 autocast, both traced: autocast adds conversions that change
what Inductor fuses (inductor{max_fusion_size=1} does not change fusion on torch 2.13 CPU; docs/diff.md).
"""
import os
import pathlib
import subprocess

import pytest

from conftest import cli_path

TINY = ["--warmup", "1", "--min-runs", "20", "--min-time", "0", "--max-time", "2"]


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    cli = cli_path()
    out = tmp_path_factory.mktemp("diff")
    paths = {}
    for precision in ("fp32", "bf16"):
        path = out / f"{precision}.fscope"
        proc = subprocess.run(
            [cli, "compare", "demo:mlp", "--backends", "inductor", "--precision", precision, "--trace",
             "--out", str(path), "-q", *TINY],
            capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        paths[precision] = path
    return paths


def test_report_against_itself_is_unchanged_and_a_tie(cli, pair):
    for path in pair.values():
        r = cli("diff", path, path, "--json")
        assert r.code == 0, r
        (d,) = r.json()["backends"]
        assert d["name"] == d["name_b"] == "inductor"
        assert d["verdict"] == "tie", d["sentence"]
        assert d["latency_ratio"] == 1.0
        low, high = d["latency_ratio_ci95"]
        assert low <= 1.0 <= high
        assert d["compile_ratio"] == 1.0 and d["memory_ratio"] == 1.0
        k = d["kernels"]
        assert k["added"] == [] and k["removed"] == [] and k["changed"] == []
        assert len(k["matched"]) >= 3
        assert all(not m["renamed"] for m in k["matched"])
        # Both sides traced: every generated kernel has a time and a zero delta.
        timed = [m for m in k["matched"] if m["time_delta_ms"] is not None]
        assert any(m["a"]["name"].startswith("cpp_fused") for m in timed), k["matched"]
        assert all(m["time_delta_ms"] == 0 for m in timed)
        assert d["breaks"] == {"added": [], "removed": []}


def test_bf16_changes_fusion_and_the_diff_finds_it(cli, pair):
    r = cli("diff", pair["fp32"], pair["bf16"], "--backend", "inductor", "--json")
    assert r.code == 0, r
    (d,) = r.json()["backends"]
    k = d["kernels"]
    assert d["verdict"] in ("faster", "slower", "tie")
    assert d["accuracy"]["a"]["status"] == "pass"
    # The gelu kernel now also converts: it covers more nodes, so it is changed, not matched.
    changed_names = [x["name"] for c in k["changed"] for x in c["a"] + c["b"]]
    assert any("gelu" in n for n in changed_names), k
    for c in k["changed"]:
        assert c["shared"], c  # changed means overlapping node sets
        assert c["only_a"] or c["only_b"]
        assert 0 < c["overlap"] < 1
    assert k["added"] or k["removed"], k
    # The extern matmuls cover the same FX nodes in both runs: matched, whatever they are called.
    assert any(m["a"]["kind"] == "extern_kernel" for m in k["matched"]), k["matched"]
    text = cli("diff", pair["fp32"], pair["bf16"])
    assert text.code == 0, text
    assert "~ fused more" in text.stdout, text.stdout


def test_two_backends_and_errors_name_the_file(cli, pair, tmp_path):
    r = cli("diff", pair["fp32"], pair["bf16"], "--backend", "inductor", "--backend-b", "tvm")
    assert r.code == 1
    assert f"{pair['bf16']} has no backend 'tvm' (it has: inductor)" in r.stderr
    bad = tmp_path / "cut.fscope"
    bad.write_bytes(pair["fp32"].read_bytes()[:500])
    r = cli("diff", pair["fp32"], bad)
    assert r.code == 1 and str(bad) in r.stderr, r
    r = cli("diff", tmp_path / "missing.fscope", pair["fp32"])
    assert r.code == 1 and "missing.fscope" in r.stderr, r
    r = cli("diff", pair["fp32"], pair["bf16"], "--backend-b", "inductor")
    assert r.code == 64, r


def test_diff_window_screenshot(pair, tmp_path):
    gui = os.environ.get("FUSESCOPE_GUI") or str(pathlib.Path(cli_path()).parents[1] / "gui" / "fusescope")
    if not pathlib.Path(gui).exists():
        pytest.skip(f"fusescope not built at {gui}")
    shot = tmp_path / "diff.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([gui, "--diff", str(pair["fp32"]), str(pair["bf16"]), "--screenshot", str(shot)],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert shot.stat().st_size > 10_000
    keep = os.environ.get("FUSESCOPE_DIFF_SHOT")
    if keep:
        pathlib.Path(keep).write_bytes(shot.read_bytes())
