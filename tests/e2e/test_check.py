"""`fusescope-cli check` (docs/ci.md): its exit codes are a contract CI scripts rely on.

0 when nothing regressed beyond the thresholds and the noise, 1 naming each regression, 2 on
unusable input. Uses the fixture report: no torch, a few seconds."""
import json
import shutil

from conftest import ROOT

GOOD = ROOT / "tests" / "fixtures" / "reports" / "good.fscope"
DAMAGED = ROOT / "tests" / "fixtures" / "reports" / "damaged" / "backend_name_number.fscope"


def steady(tmp_path):
    """The fixture with 40 steady samples per side (+-2 %): its own 8 compiled samples span
    0.37-84 ms, where a 30 % slowdown is inside the noise (see test_noise_is_not_a_regression)."""
    report = json.loads(GOOD.read_text())
    for run in report["backends"]:
        for side, ms in (("eager", 0.5), ("compiled", 0.4)):
            run["samples"][side] = [ms * (1 + 0.02 * ((i * 7 % 11) - 5) / 5) for i in range(40)]
    out = tmp_path / "steady.fscope"
    out.write_text(json.dumps(report))
    return out


def slower_copy(base, tmp_path, factor=1.3, backend="inductor"):
    report = json.loads(base.read_text())
    for run in report["backends"]:
        if run["name"] == backend:
            run["samples"]["compiled"] = [v * factor for v in run["samples"]["compiled"]]
    out = tmp_path / f"slower-{base.stem}.fscope"
    out.write_text(json.dumps(report))
    return out


def test_a_report_against_itself_passes(cli, tmp_path):
    md, xml = tmp_path / "c.md", tmp_path / "c.xml"
    r = cli("check", GOOD, "--baseline", GOOD, "--markdown", md, "--junit", xml)
    assert r.code == 0, r
    assert "PASS: 0 regression(s)" in r.stdout
    assert "FuseScope check: PASS" in md.read_text()
    assert 'failures="0"' in xml.read_text()


def test_thirty_percent_slower_fails_naming_the_backend(cli, tmp_path):
    base = steady(tmp_path)
    slower = slower_copy(base, tmp_path)
    md, xml = tmp_path / "c.md", tmp_path / "c.xml"
    r = cli("check", slower, "--baseline", base, "--markdown", md, "--junit", xml)
    assert r.code == 1, r
    assert "REGRESSION [latency] inductor is slower" in r.stdout
    assert "FAIL: 1 regression(s)" in r.stdout
    assert "| regression | inductor | latency |" in md.read_text()
    text = xml.read_text()
    assert 'failures="1"' in text and 'classname="fusescope.inductor" name="latency"' in text
    # The reverse is an improvement, listed, and a pass.
    back = cli("check", base, "--baseline", slower)
    assert back.code == 0, back
    assert "improvement [latency] inductor is faster" in back.stdout
    # A generous threshold lets the same slowdown through.
    assert cli("check", slower, "--baseline", base, "--max-slowdown", "50").code == 0


def test_noise_is_not_a_regression(cli, tmp_path):
    """The fixture's own samples (8 per side, 0.37-84 ms) made 30 % slower: inside the noise."""
    r = cli("check", slower_copy(GOOD, tmp_path), "--baseline", GOOD)
    assert r.code == 0, r
    assert "REGRESSION" not in r.stdout


def test_unusable_input_is_2_naming_the_file(cli, tmp_path):
    r = cli("check", DAMAGED, "--baseline", GOOD)
    assert r.code == 2, r
    assert "backend_name_number.fscope" in r.stderr
    missing = tmp_path / "missing.fscope"
    r = cli("check", GOOD, "--baseline", missing)
    assert r.code == 2, r
    assert "missing.fscope" in r.stderr
    r = cli("check", GOOD, "--baseline", tmp_path)  # a folder that is no sweep: not a report
    assert r.code == 2, r
    # A bad command line is the CLI's usage code.
    assert cli("check", GOOD, "--baseline", GOOD, "--max-slowdown", "-3").code == 64


def sweep(folder, jobs):
    folder.mkdir()
    entries = []
    for job_id, report in jobs:
        entry = {"id": job_id, "model": "demo:mlp", "backends": ["eager", "inductor"], "axes": {},
                 "status": "ok" if report else "failed"}
        if report:
            shutil.copy(report, folder / f"{job_id}.fscope")
            entry["report"] = f"{job_id}.fscope"
        else:
            entry["reason"] = "timeout: the job ran past 5 s"
        entries.append(entry)
    (folder / "sweep.json").write_text(json.dumps({"kind": "fusescope-sweep", "name": "t", "jobs": entries}))
    return folder


def test_sweeps_job_by_job(cli, tmp_path):
    base = steady(tmp_path)
    slower = slower_copy(base, tmp_path)
    old = sweep(tmp_path / "old", [("a", base), ("b", base), ("c", base)])
    same = sweep(tmp_path / "same", [("a", base), ("b", base), ("c", base)])
    assert cli("check", same, "--baseline", old).code == 0
    new = sweep(tmp_path / "new", [("a", base), ("b", slower), ("c", None)])
    r = cli("check", new, "--baseline", old)
    assert r.code == 1, r
    assert "[b latency] inductor is slower" in r.stdout
    assert "[c job] job c" in r.stdout
    assert "[a " not in r.stdout
    # A job whose new report kept none of its backends lost them all: a regression, not a pass.
    renamed = json.loads(base.read_text())
    for run in renamed["backends"]:
        run["name"] = run["name"] + "_renamed"
    lost = tmp_path / "renamed.fscope"
    lost.write_text(json.dumps(renamed))
    gone = sweep(tmp_path / "gone", [("a", lost), ("b", base), ("c", base)])
    r = cli("check", gone, "--baseline", old)
    assert r.code == 1, r
    assert "[a status] inductor ran in the baseline and is missing" in r.stdout
    # A sweep folder against a report is unusable.
    assert cli("check", new, "--baseline", GOOD).code == 2
