"""fusescope-cli sweep / suite (docs/sweeps.md): a small sweep of three models (one broken) x
eager and aot_eager, run locally and on a local Ray cluster; Ctrl+C, resume, --retry-failed,
failure isolation and a Ray worker killed mid-job."""
import json
import os
import signal
import subprocess
import time

import pytest

from conftest import FIXTURES, cli_path

PARTIAL, CANCELLED, USAGE = 2, 4, 64
BROKEN = "raises_in_forward.py"


def write_spec(tmp_path, extra=""):
    spec = tmp_path / "sweep.toml"
    spec.write_text(f"""
[sweep]
name = "tiny"
models = ["demo:mlp", "{FIXTURES / 'good_tiny.py'}", "{FIXTURES / BROKEN}"]
backends = ["eager", "aot_eager"]
timeout = 300
{extra}
[measure]
warmup = 1
min_runs = 3
min_time = 0
max_time = 1
stages = false
""")
    return spec


def sweep(spec, out, *args, timeout=300):
    return subprocess.run([cli_path(), "sweep", str(spec), "--out", str(out), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def state(out):
    return {j["model"].rsplit("/", 1)[-1]: j for j in json.loads((out / "sweep.json").read_text())["jobs"]}


def check_suite(out):
    suite = json.loads((out / "suite.json").read_text())
    assert suite["kind"] == "fusescope-suite" and suite["name"] == "tiny"
    jobs = {j["model"].rsplit("/", 1)[-1]: j for j in suite["jobs"]}
    assert set(jobs) == {"demo:mlp", "good_tiny.py", BROKEN}
    for name in ("demo:mlp", "good_tiny.py"):
        assert jobs[name]["status"] == "ok", jobs[name]
        assert (out / jobs[name]["report"]).is_file()
        assert jobs[name]["backends"] == ["eager", "aot_eager"] and jobs[name]["axes"] == {}
        assert all(r["passed"] and r["speedup"]["median"] > 0 for r in jobs[name]["results"])
    assert jobs[BROKEN]["status"] == "failed"
    backends = {b["name"]: b for b in suite["backends"]}
    assert list(backends) == ["eager", "aot_eager"]
    for b in backends.values():
        assert b["jobs"] == 3 and b["passed"] == 2
        assert b["pass_rate"] == pytest.approx(2 / 3)
        assert b["geomean_speedup"] > 0 and b["median_compile_s"] > 0
        assert b["speedup_ci95"]["lo"] <= b["geomean_speedup"] <= b["speedup_ci95"]["hi"]
        assert b["memory_compression"] is None or b["memory_compression"] > 0
        [failure] = b["failures"]
        assert BROKEN in failure["model"] and failure["reason"], failure
    assert "deliberate failure in forward" in backends["eager"]["failures"][0]["reason"]
    assert suite["verdict"] and suite["winners"]
    assert suite["single_winner"] == (len(suite["winners"]) == 1)
    return suite


def test_local_sweep_interrupt_resume_retry_and_suite(tmp_path):
    spec, out = write_spec(tmp_path), tmp_path / "out"
    # Ctrl+C once the first job has finished: it stays done, the rest is interrupted.
    proc = subprocess.Popen([cli_path(), "sweep", str(spec), "--out", str(out)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        jobs = state(out) if (out / "sweep.json").exists() else {}
        if any(j["status"] == "ok" for j in jobs.values()):
            break
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == CANCELLED, err
    first = state(out)
    assert first["demo:mlp"]["status"] == "ok", first
    assert {first["good_tiny.py"]["status"], first[BROKEN]["status"]} == {"interrupted"}, first
    done_report = out / first["demo:mlp"]["report"]
    mtime = done_report.stat().st_mtime_ns

    # Rerun: resumes with the two unfinished jobs only.
    r = sweep(spec, out, "--json")
    assert r.returncode == PARTIAL, r.stderr
    assert "1 already finished, 2 to run" in r.stderr
    assert done_report.stat().st_mtime_ns == mtime
    suite = check_suite(out)
    assert json.loads(r.stdout)["verdict"] == suite["verdict"]

    # Again: everything finished or failed; the failed job reruns only with --retry-failed.
    r = sweep(spec, out)
    assert r.returncode == PARTIAL and "3 already finished, 0 to run" in r.stderr, r.stderr
    r = sweep(spec, out, "--retry-failed")
    assert r.returncode == PARTIAL and "2 already finished, 1 to run" in r.stderr, r.stderr
    assert done_report.stat().st_mtime_ns == mtime
    assert state(out)[BROKEN]["attempts"] == 2

    # suite DIR agrees with suite.json and writes the CSV.
    csv = tmp_path / "suite.csv"
    shown = subprocess.run([cli_path(), "suite", str(out), "--json", "--csv", str(csv)], capture_output=True,
                           text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["backends"] == check_suite(out)["backends"]
    rows = csv.read_text().splitlines()
    assert rows[0].startswith("job,model,axes,backend,job_status,passed,speedup")
    assert len(rows) == 1 + 3 * 2
    table = subprocess.run([cli_path(), "suite", str(out)], capture_output=True, text=True, timeout=60)
    assert "FAIL" in table.stdout and "geomean" in table.stdout


def test_bad_spec_is_a_usage_error_naming_the_key(tmp_path):
    spec = write_spec(tmp_path, extra="colour = 'blue'")
    r = sweep(spec, tmp_path / "out")
    assert r.returncode == USAGE and "colour" in r.stderr, r.stderr
    r = subprocess.run([cli_path(), "suite", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "sweep.json" in r.stderr


def _compare_of(model_part):
    """(pid, parent pid) of a running compare of the model, started by a Ray task."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            args = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            stat = open(f"/proc/{pid}/stat").read()
        except OSError:
            continue
        if len(args) > 2 and args[1] == b"compare" and model_part in args[2] and \
                any(b"fusescope-job-" in a for a in args):
            return int(pid), int(stat.rsplit(")", 1)[1].split()[1])
    return None


def test_ray_sweep_survives_a_killed_worker_and_isolates_the_broken_model(tmp_path):
    pytest.importorskip("ray")
    jobs = 2 if len(os.sched_getaffinity(0)) >= 2 else 1
    spec, out = write_spec(tmp_path), tmp_path / "out"
    proc = subprocess.Popen([cli_path(), "sweep", str(spec), "--out", str(out), "--executor", "ray",
                             "--jobs", str(jobs)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # Kill the Ray worker running demo:mlp's compare, as if its node were lost: Ray reruns it.
    killed = None
    deadline = time.monotonic() + 240
    while killed is None and time.monotonic() < deadline and proc.poll() is None:
        found = _compare_of(b"demo:mlp")
        if found:
            os.kill(found[1], signal.SIGKILL)
            killed = found
        time.sleep(0.1)
    out_text, err = proc.communicate(timeout=300)
    assert killed, f"never saw demo:mlp's compare running\n{err}"
    assert proc.returncode == PARTIAL, err
    check_suite(out)
    jobs_state = state(out)
    assert jobs_state["demo:mlp"]["status"] == "ok", jobs_state["demo:mlp"]
    if jobs == 2:
        # Two slots on this machine: each job measured pinned to one CPU of its own.
        pins = {j["pin"] for j in jobs_state.values()}
        cpus = {str(c) for c in os.sched_getaffinity(0)}
        assert pins <= cpus, pins
    for j in jobs_state.values():
        assert (out / j["log"]).is_file()
