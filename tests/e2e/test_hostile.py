"""Hostile model files at the worker process boundary (issue 11): each is refused or survived with
a message naming the file or backend, the report is still written, and the next backend in the
same --backends list still runs. Fixtures: tests/fixtures/models/."""
import json
import os
import time

from conftest import FAST

OK, ALL_FAILED = 0, 3
BACKENDS = "eager,aot_eager"
REPLACEMENT = "\ufffd"


def by_name(summary):
    return {b["name"]: b for b in summary["backends"]}


def compare(cli, model, out, *extra):
    """compare on both backends; the summary and the saved report, both parsed."""
    r = cli("compare", model, "--backends", BACKENDS, "--out", out, "--json", *FAST, *extra)
    assert out.exists(), r
    saved = json.loads(out.read_text(encoding="utf-8"))  # strict: valid UTF-8 and JSON
    return r, by_name(r.json()), {b["name"]: b for b in saved["backends"]}


def test_binary_bytes_on_stderr_are_kept_as_replacement_characters(cli, fixture_model, tmp_path):
    r, summary, saved = compare(cli, fixture_model("stderr_binary.py"), tmp_path / "binary.fscope")
    assert r.code == OK, r
    for name in ("eager", "aot_eager"):
        assert summary[name]["status"] == "ok", summary[name]
        log = saved[name]["log"]
        assert "in build_model: caf" + REPLACEMENT in log and "end of binary" in log, log[-500:]


def test_binary_last_words_of_a_crashed_worker_reach_the_message(cli, fixture_model, tmp_path, monkeypatch):
    monkeypatch.setenv("FUSESCOPE_FIXTURE_CRASH", "1")
    r, summary, _ = compare(cli, fixture_model("stderr_binary.py"), tmp_path / "crash.fscope")
    assert r.code == ALL_FAILED, r
    for name in ("eager", "aot_eager"):
        b = summary[name]
        assert b["error_code"] == "worker_crashed", b
        assert f"backend {name}" in b["error"] and "code 7" in b["error"], b["error"]
        assert "in forward: caf" + REPLACEMENT in b["error"], b["error"]


def test_a_multibyte_flood_on_stderr_is_cut_on_a_character_boundary(cli, fixture_model, tmp_path):
    r, summary, saved = compare(cli, fixture_model("stderr_flood.py"), tmp_path / "flood.fscope")
    assert r.code == OK, r
    for name in ("eager", "aot_eager"):
        assert summary[name]["status"] == "ok", summary[name]
        log = saved[name]["log"]
        assert log.endswith("漢" * 1000) and REPLACEMENT not in log, log[:100]
        assert len(log.encode()) <= 64 * 1024


def test_a_lone_surrogate_in_a_message_is_a_model_error(cli, fixture_model, tmp_path):
    path = fixture_model("surrogate_message.py")
    r, summary, saved = compare(cli, path, tmp_path / "surrogate.fscope")
    assert r.code == ALL_FAILED, r
    for name in ("eager", "aot_eager"):
        b = summary[name]
        assert b["error_code"] == "model_failed", b
        assert str(path) in b["error"] and "bad byte " + REPLACEMENT + " in the data file" in b["error"], b
        assert saved[name]["status"] == "failed"


def test_sys_exit_in_build_model_names_the_file_and_function(cli, fixture_model, tmp_path):
    path = fixture_model("sys_exit.py")
    r, summary, _ = compare(cli, path, tmp_path / "exit.fscope")
    assert r.code == ALL_FAILED, r
    for name in ("eager", "aot_eager"):
        b = summary[name]
        assert b["error_code"] == "model_failed", b
        assert f"model file {path}: build_model() called sys.exit(3)" in b["error"], b["error"]


def test_sys_exit_in_forward_names_the_file_and_function(cli, fixture_model, tmp_path, monkeypatch):
    monkeypatch.setenv("FUSESCOPE_FIXTURE_EXIT_AT", "forward")
    path = fixture_model("sys_exit.py")
    r, summary, _ = compare(cli, path, tmp_path / "exit.fscope")
    assert r.code == ALL_FAILED, r
    for name in ("eager", "aot_eager"):
        assert f"model {path}: forward() called sys.exit(3)" in summary[name]["error"], summary[name]


def test_a_hang_at_import_is_a_timeout_not_a_model_error(cli, fixture_model, tmp_path):
    path = fixture_model("hangs_at_import.py")
    start = time.monotonic()
    r, summary, _ = compare(cli, path, tmp_path / "hang.fscope", "--timeout", "20")
    assert r.code == ALL_FAILED, r
    for name in ("eager", "aot_eager"):
        b = summary[name]
        assert b["error_code"] == "worker_timeout", b
        assert f"backend {name}" in b["error"] and "20 s" in b["error"], b["error"]
        assert f"loading {path}" in b["error"], b["error"]  # where it hung
    assert time.monotonic() - start < 120


def test_forged_protocol_lines_from_the_model_are_refused(cli, fixture_model, tmp_path):
    r, summary, saved = compare(cli, fixture_model("forges_protocol.py"), tmp_path / "forged.fscope")
    assert r.code == OK, r
    assert "FORGED" not in r.stdout and "FORGED" not in json.dumps(saved)
    for name in ("eager", "aot_eager"):
        b = summary[name]
        assert b["status"] == "ok" and b["error"] is None, b
        assert b["compile_s"] != 1234.5
        assert any("refused" in note for note in b["notes"]), b["notes"]
    assert "no channel token" in r.stderr, r


def _dead(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie nobody reaped yet
    except FileNotFoundError:
        return True


def test_processes_the_model_forks_do_not_outlive_the_run(cli, fixture_model, tmp_path, monkeypatch):
    pid_file = tmp_path / "children.pid"
    monkeypatch.setenv("FUSESCOPE_FIXTURE_PID_FILE", str(pid_file))
    r, summary, _ = compare(cli, fixture_model("forks_child.py"), tmp_path / "fork.fscope")
    assert r.code == OK, r
    assert all(b["status"] == "ok" for b in summary.values()), summary
    pids = [int(line) for line in pid_file.read_text().split()]
    assert len(pids) == 2, pids  # one child per backend run
    deadline = time.monotonic() + 5
    while not all(_dead(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = [pid for pid in pids if not _dead(pid)]
    for pid in alive:  # leave nothing behind, even when failing
        os.kill(pid, 9)
    assert not alive, f"children of the model still running after the run: {alive}"
