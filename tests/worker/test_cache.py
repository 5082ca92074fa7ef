"""The user's own compile cache with options.cache = "warm" (docs/measurement.md); that cold runs
leave it alone is checked in test_stages.py."""
from conftest import FIXTURES, run_model

MODEL = FIXTURES / "good_tiny.py"
OPTIONS = {"mode": None, "fullgraph": False, "dynamic": None, "inductor": {}}


def inductor_run(cache_dir, cache):
    run = run_model(MODEL, "inductor", env={"TORCHINDUCTOR_CACHE_DIR": str(cache_dir)},
                    options={**OPTIONS, "cache": cache})
    assert run.returncode == 0, run
    assert run.one("result")["status"] == "ok", run
    return run


def test_warm_runs_use_the_users_cache(tmp_path):
    first = inductor_run(tmp_path, "warm")
    assert first.one("result")["cache"] == "warm"
    assert first.stage("post_fusion")["status"] == "ok"
    assert list(tmp_path.iterdir())

    # The timed compile of the second run hits the user's cache; the capturing compile turns the
    # FX graph and AOTAutograd caches off, so its stages are captured all the same.
    second = inductor_run(tmp_path, "warm")
    assert second.stage("post_fusion")["status"] == "ok"
    assert second.stage("dynamo_fx")["status"] == "ok"
    assert second.one("result")["compile_breakdown"]["compile_cache"] > 0
    # So the stages come from a second compile, and the result says so and why.
    result = second.one("result")
    assert result["capture_from"] == "second_compile"
    assert "options.cache = warm" in result["capture_from_reason"]
    assert result["capture_s"] > 0
