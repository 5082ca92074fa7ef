"""Files and arguments (issue 11): what fusescope-cli and fusescope refuse before anything runs.

Every refusal here happens before a backend starts, so these tests need no torch work, except
the one proving that a report that cannot be written at the end makes the exit code say so.
"""
import os
import pathlib
import re
import resource
import socket
import subprocess

import pytest

from conftest import FAST, FIXTURES, ROOT, cli_path

OK, ERROR, ALL_FAILED, USAGE = 0, 1, 3, 64
# A backend no family knows: the row is unavailable at once, no worker runs. Old binaries that
# accepted a bad argument then end quickly (exit 3) instead of running torch.
NOTHING = ["--backends", "no_such_backend"]
QUICK = 60  # seconds: a refusal is immediate; more than this means it ran or blocked


class Run:
    def __init__(self, proc):
        self.code = proc.returncode
        self.stdout = proc.stdout.decode("utf-8", "replace")
        self.stderr = proc.stderr.decode("utf-8", "replace")

    def __repr__(self):
        return f"exit {self.code}\nstdout:\n{self.stdout[-3000:]}\nstderr:\n{self.stderr[-3000:]}"


def run(binary, *args, timeout=QUICK, env=None, memory_limit=None):
    """Runs with bytes arguments allowed (os.fsencode), so paths need not be UTF-8."""
    def limit():
        if memory_limit:
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))

    argv = [binary, *(a if isinstance(a, bytes) else os.fsencode(str(a)) for a in args)]
    return Run(subprocess.run(argv, capture_output=True, timeout=timeout, env=env, preexec_fn=limit))


@pytest.fixture
def cli():
    path = cli_path()
    return lambda *args, **kw: run(path, *args, **kw)


def gui_path():
    path = os.environ.get("FUSESCOPE_GUI") or str(ROOT / "build" / "dev" / "app" / "gui" / "fusescope")
    if not pathlib.Path(path).exists():
        pytest.skip(f"fusescope not built at {path}")
    return path


def no_display_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env.update(extra)
    return env


@pytest.fixture
def gui():
    path = gui_path()
    return lambda *args, env=None, **kw: run(path, *args, env=env or no_display_env(), **kw)


@pytest.fixture
def model(tmp_path):
    """A copy of the tiny fixture model, so a test that overwrites it harms nothing."""
    path = tmp_path / "model.py"
    path.write_bytes((FIXTURES / "good_tiny.py").read_bytes())
    return path


@pytest.fixture
def report(cli, tmp_path):
    """A real report (one unavailable backend), written by compare itself."""
    path = tmp_path / "r.fscope"
    r = cli("compare", "demo:mlp", *NOTHING, "--timeout", "1", "--out", path, "--quiet")
    assert r.code == ALL_FAILED and path.exists(), r
    return path


def refused(r, *words):
    assert r.code == USAGE, r
    for w in words:
        assert w in r.stderr, r
    assert len(r.stderr) < 600, r  # short: no help dump, no 300-digit ranges


# 1. --out: never the model, never a directory, never a place that cannot be written.

def test_out_equal_to_the_model_is_refused_and_the_model_kept(cli, model):
    before = model.read_bytes()
    r = cli("compare", model, *NOTHING, "--out", model)
    refused(r, str(model), "is the model file")
    assert model.read_bytes() == before


@pytest.mark.parametrize("kind", ["symlink", "hardlink", "dotted"])
def test_out_reaching_the_model_another_way_is_refused(cli, model, tmp_path, kind):
    if kind == "symlink":
        out = tmp_path / "link.fscope"
        out.symlink_to(model)
    elif kind == "hardlink":
        out = tmp_path / "hard.fscope"
        os.link(model, out)
    else:
        (tmp_path / "sub").mkdir()
        out = tmp_path / "sub" / ".." / "model.py"
    before = model.read_bytes()
    r = cli("compare", model, *NOTHING, "--out", out)
    refused(r, str(out), "is the model file")
    assert model.read_bytes() == before


def test_out_that_is_a_directory_is_refused(cli, tmp_path):
    r = cli("compare", "demo:mlp", *NOTHING, "--out", tmp_path)
    refused(r, str(tmp_path), "is a directory")


def unwritable_outs(tmp_path):
    (tmp_path / "plain").write_text("a file, not a folder")
    return {
        "proc": (pathlib.Path("/proc/x.fscope"), "/proc"),
        "missing_folder": (tmp_path / "nope" / "r.fscope", "does not exist"),
        "parent_is_a_file": (tmp_path / "plain" / "r.fscope", "not a directory"),
    }


@pytest.mark.parametrize("case", ["proc", "missing_folder", "parent_is_a_file"])
def test_unwritable_out_is_refused_before_anything_runs(cli, tmp_path, case):
    out, why = unwritable_outs(tmp_path)[case]
    r = cli("compare", "demo:mlp", *NOTHING, "--out", out)
    refused(r, str(out), why)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_out_in_a_read_only_folder_is_refused(cli, tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        refused(cli("compare", "demo:mlp", *NOTHING, "--out", ro / "r.fscope"), str(ro), "cannot write")
    finally:
        ro.chmod(0o755)


def test_out_that_is_a_fifo_is_refused(cli, tmp_path):
    fifo = tmp_path / "out.fscope"
    os.mkfifo(fifo)
    refused(cli("compare", "demo:mlp", *NOTHING, "--out", fifo), str(fifo), "is a FIFO")


def test_export_out_is_checked_like_compare_out(cli, report, tmp_path):
    same = cli("export", report, "--backend", "no_such_backend", "--trace", "--out", report)
    refused(same, str(report), "is the report")
    missing = tmp_path / "nope" / "t.json"
    refused(cli("export", report, "--backend", "no_such_backend", "--trace", "--out", missing), str(missing),
            "does not exist")
    refused(cli("export", report, "--backend", "no_such_backend", "--out", tmp_path), str(tmp_path),
            "is a directory")


def test_report_that_cannot_be_written_at_the_end_fails_the_run(cli, tmp_path):
    """The folder exists when the run starts; the model removes it while loading, so the last
    write fails: the exit code must say so (it was 0)."""
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    model = tmp_path / "removes_out.py"
    model.write_text(
        f"import shutil\nshutil.rmtree({str(out_dir)!r}, ignore_errors=True)\n"
        + (FIXTURES / "good_tiny.py").read_text())
    out = out_dir / "r.fscope"
    r = cli("compare", model, "--backends", "eager", "--out", out, *FAST, timeout=600)
    assert r.code == ERROR, r
    assert str(out) in r.stderr and "cannot write" in r.stderr, r
    assert not out.exists()


# 2. Files that are not files: FIFOs, sockets, devices, and files too large to be reports.

def test_show_refuses_a_fifo_at_once(cli, tmp_path):
    fifo = tmp_path / "r.fscope"
    os.mkfifo(fifo)
    r = cli("show", fifo, timeout=20)
    assert r.code == ERROR, r
    assert str(fifo) in r.stderr and "is a FIFO" in r.stderr, r


def test_show_refuses_a_socket(cli, tmp_path):
    path = tmp_path / "s.fscope"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    try:
        r = cli("show", path, timeout=20)
    finally:
        s.close()
    assert r.code == ERROR, r
    assert str(path) in r.stderr and "is a socket" in r.stderr, r


def test_show_refuses_a_device_without_reading_it(cli):
    # An old binary reads /dev/zero until memory runs out: cap it.
    r = cli("show", "/dev/zero", timeout=20, memory_limit=2 << 30)
    assert r.code == ERROR, r
    assert "/dev/zero" in r.stderr and "is a character device" in r.stderr, r


def test_show_refuses_a_report_over_the_size_limit(cli, tmp_path):
    big = tmp_path / "big.fscope"
    with open(big, "wb") as f:
        f.truncate((4 << 30) + 1)  # sparse: no disk used
    r = cli("show", big, timeout=20, memory_limit=2 << 30)
    assert r.code == ERROR, r
    assert str(big) in r.stderr and "4 GiB" in r.stderr, r


def test_export_refuses_a_fifo_report(cli, tmp_path):
    fifo = tmp_path / "r.fscope"
    os.mkfifo(fifo)
    r = cli("export", fifo, "--backend", "eager", "--trace", "--out", tmp_path / "t.json", timeout=20)
    assert r.code == ERROR, r
    assert str(fifo) in r.stderr and "is a FIFO" in r.stderr, r


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_compare_refuses_a_model_path_that_is_not_a_file(cli, tmp_path, kind):
    path = tmp_path / "model.py"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    # An old binary has the worker open the FIFO and wait for the timeout: keep that short.
    r = cli("compare", path, "--backends", "eager", "--timeout", "5", timeout=120)
    refused(r, str(path), "is a FIFO" if kind == "fifo" else "is a directory")


# 3. The GUI binary without a display.

def test_gui_help_and_version_need_no_display(gui):
    h = gui("--help")
    assert h.code == OK, h
    assert "--backends" in h.stdout and "--run" in h.stdout, h
    v = gui("--version")
    assert v.code == OK, v
    assert re.search(r"\d+\.\d+\.\d+", v.stdout), v


def test_gui_without_a_display_says_so_and_exits_cleanly(gui):
    r = gui()
    assert r.code > 0, r  # a clean exit, not a signal (abort was -6)
    for w in ("display", "fusescope-cli", "QT_QPA_PLATFORM=offscreen", "xvfb-run"):
        assert w in r.stderr, r


def test_gui_with_an_unreachable_display_says_so_and_exits_cleanly(gui):
    r = gui(env=no_display_env(DISPLAY=":97"))
    assert r.code > 0, r
    assert "display" in r.stderr and "fusescope-cli" in r.stderr, r


def test_gui_bad_arguments_are_refused_before_any_display(gui, tmp_path):
    refused(gui("--no-such-option"), "no-such-option")
    refused(gui("--tab", "nosuch"), "nosuch", "comparison")
    refused(gui("--heat", "warm"), "warm", "time, roof")
    fifo = tmp_path / "m.py"
    os.mkfifo(fifo)
    refused(gui(fifo), str(fifo), "is a FIFO")
    refused(gui("demo:mlp", "--screenshot", tmp_path / "nope" / "s.png"), "does not exist")
    refused(gui(b"/tmp/bad\xffname.py"), "\\xff", "rename")


def test_gui_starts_on_a_report_with_braced_backends_and_applies_graphs(gui, tmp_path):
    # main() itself, as a user starts it: the --backends list read once (a braced entry is one
    # row), the report opened before --graphs and --screenshot apply (off-screen platform).
    shot = tmp_path / "s.png"
    good = ROOT / "tests" / "fixtures" / "reports" / "good.fscope"
    r = gui(good, "--backends", "inductor{fullgraph,dynamic=false},eager", "--graphs", "inductor",
            "--screenshot", shot, env=no_display_env(QT_QPA_PLATFORM="offscreen"))
    assert r.code == OK, r
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# 4. Numeric options: finite, in range, whole where meant, short messages, usage exit code.

BAD_NUMBERS = [
    ("--timeout", "nan"), ("--timeout", "inf"), ("--timeout", "1e12"), ("--timeout", "abc"),
    ("--timeout", "0"), ("--timeout", "-5"), ("--timeout", "0.5"),
    ("--warmup", "-1"), ("--warmup", "1.5"), ("--warmup", "1e99"),
    ("--min-runs", "-1"), ("--min-runs", "abc"), ("--max-runs", "0"), ("--max-runs", "-3"),
    ("--min-time", "nan"), ("--min-time", "-1"), ("--max-time", "inf"), ("--max-time", "0"),
    ("--compile-budget", "nan"), ("--compile-budget", "-1"), ("--compile-budget", "1e308"),
]


@pytest.mark.parametrize("option,value", BAD_NUMBERS)
def test_compare_numeric_options_are_validated(cli, option, value):
    r = cli("compare", "demo:mlp", *NOTHING, option, value)
    refused(r, option, value)
    assert not re.search(r"\d{12}", r.stderr), r


def test_compare_numeric_options_accept_their_range(cli):
    # Every boundary at once, one short run: --timeout 1 stops the probe of the unknown backend.
    r = cli("compare", "demo:mlp", *NOTHING, "--timeout", "1", "--warmup", "0", "--min-runs", "0",
            "--max-runs", "10000000", "--min-time", "0", "--max-time", "604800", "--compile-budget", "0.5",
            "--settle", "16")
    assert r.code == ALL_FAILED, r  # parsed; the unavailable backend is the only failure
    r = cli("compare", "--help")
    assert r.code == OK, r
    assert "604800" in r.stdout, r


@pytest.mark.parametrize("option,value,words", [
    ("--threads", "0", "out of range"), ("--threads", "1025", "out of range"), ("--threads", "1.5", "whole"),
    ("--threads", "two", "whole"), ("--pin", "", "not a CPU list"), ("--pin", "1-0", "not a CPU list"),
    ("--pin", "0,0", "twice"), ("--pin", "a", "not a CPU list"), ("--pin", "0,", "not a CPU list"),
    ("--pin", str(os.cpu_count()), "does not have"), ("--pin", "0-99999", "does not have"),
    ("--settle", "17", "out of range"), ("--settle", "-1", "out of range")])
def test_threads_and_pin_are_validated(cli, option, value, words):
    refused(cli("compare", "demo:mlp", *NOTHING, option, value), option, words)


def test_show_and_export_numeric_options_are_validated(cli, tmp_path):
    refused(cli("show", tmp_path / "r.fscope", "--compile-budget", "nan"), "--compile-budget")
    refused(cli("export", tmp_path / "r.fscope", "--backend", "x", "--out", tmp_path / "x.png", "--scale", "nan"),
            "--scale")
    refused(cli("export", tmp_path / "r.fscope", "--backend", "x", "--out", tmp_path / "x.png", "--scale", "99"),
            "--scale")


# 5. Paths that are not UTF-8.

def test_model_path_that_is_not_utf8_is_refused_naming_it(cli, tmp_path):
    bad = os.fsencode(tmp_path) + b"/m\xffodel.py"
    with open(bad, "wb") as f:
        f.write((FIXTURES / "good_tiny.py").read_bytes())
    r = cli("compare", bad, "--backends", "eager")
    refused(r, "m\\xffodel.py", "rename")


def test_out_path_that_is_not_utf8_is_refused_naming_it(cli, tmp_path):
    bad = os.fsencode(tmp_path) + b"/r\xfe.fscope"
    refused(cli("compare", "demo:mlp", *NOTHING, "--out", bad), "r\\xfe.fscope", "rename")
    assert not os.path.exists(bad)


def test_other_compare_arguments_that_are_not_utf8_are_refused(cli):
    refused(cli("compare", "demo:mlp", *NOTHING, "--inductor-config", b"key=\xc3("), "--inductor-config", "\\xc3")
