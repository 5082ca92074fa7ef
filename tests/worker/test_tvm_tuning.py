"""tvm{tune=TRIALS}: MetaSchedule tuning of the fused kernels for llvm (docs/tvm.md, "Tuning"). The
option checks and the cache's crash safety run without TVM; the tuned runs need a TVM whose
MetaSchedule works (tuning.unavailable_reason), else the run must be refused with that reason."""
import importlib.util
import os
import sys

import pytest

from conftest import WORKER_DIR, run_model

sys.path.insert(0, str(WORKER_DIR))
from fusescope_worker.tvm_relax import tuning


def test_options_parse_and_refuse_what_is_wrong():
    assert tuning.parse_options({"inductor": {}}) is None
    assert tuning.parse_options({"tvm": {"tune": 8}}) == {"trials": 8, "time_s": None}
    assert tuning.parse_options({"tvm": {"tune": 8, "tune_time": 30}}) == {"trials": 8, "time_s": 30.0}
    for bad, words in [({"tune": 0}, "positive number of trials"), ({"tune": "8"}, "positive number of trials"),
                       ({"tune": True}, "positive number of trials"), ({"tune_time": 5}, "needs tune"),
                       ({"tune": 4, "tune_time": -1}, "positive number of seconds"),
                       ({"tune": 4, "trials": 4}, "unknown tvm option(s) trials")]:
        with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
            tuning.parse_options({"tvm": bad})


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("FUSESCOPE_TVM_TUNING_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert tuning.tvm_tuning_dir() == str(tmp_path / "fusescope" / "tvm-tuning")
    monkeypatch.setenv("FUSESCOPE_TVM_TUNING_DIR", str(tmp_path / "x"))
    assert tuning.tvm_tuning_dir() == str(tmp_path / "x")


def test_a_killed_tuning_leaves_no_entry_and_its_temporary_is_removed(tmp_path):
    # A worker killed mid-tuning leaves only its `.tune-<pid>-*` temporary, never a keyed entry.
    dead = tmp_path / ".tune-999999999-abc"
    alive = tmp_path / f".tune-{os.getpid()}-abc"
    entry = tmp_path / "0123abcd"
    for d in (dead, alive, entry):
        d.mkdir()
    tuning._remove_stale(str(tmp_path))
    assert not dead.exists() and alive.exists() and entry.exists()


TVM_MISSING = None if importlib.util.find_spec("tvm") is not None else "apache-tvm is not installed in this Python"


@pytest.mark.skipif(TVM_MISSING is not None, reason=f"TVM not importable: {TVM_MISSING}")
def test_tuned_run_records_trials_and_a_rerun_hits_the_cache(tmp_path):
    env = {"FUSESCOPE_TVM_TUNING_DIR": str(tmp_path)}
    os.environ.update(env)
    try:
        reason = tuning.unavailable_reason()  # the worker's probe, cached in tmp_path
    finally:
        del os.environ["FUSESCOPE_TVM_TUNING_DIR"]
    options = {"mode": None, "fullgraph": False, "dynamic": None, "inductor": {}, "tvm": {"tune": 2}}
    first = run_model("demo:mlp", "tvm", env=env, options=options)
    if reason is not None:
        # MetaSchedule cannot run with this TVM: the tuned run is refused with the probe's reason.
        error = first.one("error")
        assert error["code"] == "backend_unavailable", first
        assert reason in error["message"] and "tune=2" in error["message"], error
        pytest.skip(f"MetaSchedule unavailable (refusal checked): {reason}")
    assert first.returncode == 0, first
    r1 = first.one("result")
    assert r1["tune_cache"] == "miss" and 1 <= r1["tune_trials"] <= 2 and r1["tune_s"] > 0, r1
    assert r1["tvm_tuning"]["trials_requested"] == 2 and r1["tvm_tuning"]["tuned_tasks"] >= 1, r1
    assert r1["compile_s"] + r1["tune_s"] <= r1["first_call_s"] + 1e-6
    assert any("MetaSchedule" in n for n in r1["notes"])
    entry = tmp_path / r1["tvm_tuning"]["key"] / "records.json"
    assert entry.is_file() and not [p for p in tmp_path.iterdir() if p.name.startswith(".tune-")]
    second = run_model("demo:mlp", "tvm", env=env, options=options)
    assert second.returncode == 0, second
    r2 = second.one("result")
    assert r2["tune_cache"] == "hit" and r2["tune_trials"] == 0, r2
    assert r2["tvm_tuning"]["key"] == r1["tvm_tuning"]["key"]
    assert r2["tvm_tuning"]["tuned_tasks"] == r1["tvm_tuning"]["tuned_tasks"]
    assert r2["accuracy"]["pass"], r2["accuracy"]
