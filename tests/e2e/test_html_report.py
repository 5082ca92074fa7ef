"""The self-contained HTML report (docs/html-report.md), rendered by a real browser: headless
Chromium (Debian's `chromium`; scripts/setup.sh test installs it) draws the page to a PNG and
dumps its DOM after scripts ran. No torch: the fixture report, a few seconds per render."""
import json
import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT

GOOD = ROOT / "tests" / "fixtures" / "reports" / "good.fscope"


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("CI"):
        pytest.fail("headless Chromium is needed to test the HTML report: apt-get install chromium")
    pytest.skip("no chromium on PATH (scripts/setup.sh test installs it)")


def browse(page, *args):
    """Runs headless Chromium on `page`; returns (stdout, stderr)."""
    proc = subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
         "--enable-logging=stderr", "--v=0", *args, page.as_uri()],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout, proc.stderr


def refused(stderr):
    """Console lines of loads the Content-Security-Policy refused, or requests that failed."""
    return [line for line in stderr.splitlines()
            if "Refused to" in line or "Content Security Policy" in line or "net::ERR_" in line]


def test_the_page_renders_with_its_table_graphs_and_script(cli, tmp_path):
    page = tmp_path / "report.html"
    r = cli("export", GOOD, "--html", page)
    assert r.code == 0, r
    assert "wrote" in r.stderr and "KiB" in r.stderr
    text = page.read_text()
    assert "<table class=\"comparison\">" in text and "class=\"graph\"" in text

    dom, stderr = browse(page, "--dump-dom", "--virtual-time-budget=3000")
    assert 'data-script="ran"' in dom  # the hover script ran
    assert "<table class=\"comparison\">" in dom and "<svg" in dom
    assert not refused(stderr), refused(stderr)

    shot = tmp_path / "report.png"
    _, stderr = browse(page, f"--screenshot={shot}", "--window-size=1400,2400", "--hide-scrollbars")
    assert shot.stat().st_size > 20_000  # a drawn page, not a blank one
    assert not refused(stderr), refused(stderr)


def test_markup_in_a_report_is_text(cli, tmp_path):
    report = json.loads(GOOD.read_text())
    evil = "<script>document.title='pwned'</script><img src=x onerror=\"document.title='pwned'\">"
    report["model_spec"] = evil
    for run in report["backends"]:
        run["name"] = run["name"] + evil
        for stage in run.get("stages", []):
            for group in stage.get("groups", []):
                group["name"] = group["name"] + evil
    hostile = tmp_path / "hostile.fscope"
    hostile.write_text(json.dumps(report))
    page = tmp_path / "hostile.html"
    r = cli("export", hostile, "--html", page)
    assert r.code == 0, r
    text = page.read_text()
    assert text.count("<script") == 1  # the page's own
    assert "<img" not in text

    dom, stderr = browse(page, "--dump-dom", "--virtual-time-budget=3000")
    title = re.search(r"<title>(.*?)</title>", dom, re.S).group(1)
    assert title != "pwned" and "&lt;script&gt;" in title
    assert "pwned" in dom  # shown, as text
    assert not refused(stderr), refused(stderr)


def test_bad_arguments_are_usage_errors(cli, tmp_path):
    assert cli("export", GOOD, "--html", tmp_path / "r.html", "--backend", "inductor").code == 64
    assert cli("export", GOOD, "--html", GOOD).code == 64  # the report itself as the output
    assert cli("export", GOOD).code == 64  # neither --html nor --backend/--out
    missing = cli("export", tmp_path / "missing.fscope", "--html", tmp_path / "m.html")
    assert missing.code == 1 and "missing.fscope" in missing.stderr
