"""The Diff window reads its two reports off the UI thread (DiffWindow::loadReports): it opens
at once, then shows the diff, or names each file that could not be read (docs/diff.md)."""
import os
import pathlib
import subprocess

import pytest

from conftest import ROOT, cli_path

GOOD = ROOT / "tests" / "fixtures" / "reports" / "good.fscope"


def gui():
    path = os.environ.get("FUSESCOPE_GUI") or str(pathlib.Path(cli_path()).parents[1] / "gui" / "fusescope")
    if not pathlib.Path(path).exists():
        pytest.skip(f"fusescope not built at {path}")
    return path


def run(*args):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run([gui(), *map(str, args)], capture_output=True, text=True, timeout=120, env=env)


def test_loads_off_the_ui_thread_then_shows_the_diff(tmp_path):
    shot = tmp_path / "d.png"
    proc = run("--diff", GOOD, GOOD, "--screenshot", shot)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert shot.stat().st_size > 10_000


def test_each_unreadable_file_is_named(tmp_path):
    proc = run("--diff", tmp_path / "a.fscope", tmp_path / "b.fscope")
    assert proc.returncode == 1, proc
    assert "A: " in proc.stderr and "a.fscope" in proc.stderr, proc.stderr
    assert "B: " in proc.stderr and "b.fscope" in proc.stderr, proc.stderr
    proc = run("--diff", GOOD, tmp_path / "b.fscope")
    assert proc.returncode == 1 and "b.fscope" in proc.stderr and "A: " not in proc.stderr, proc.stderr
