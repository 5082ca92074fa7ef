"""The LibTorch backends run in fusescope-libtorch-runner, a process of their own (docs/libtorch.md,
"The runner"): a crash or a hang inside it fails that backend's row only, and the other rows finish."""
import json
import os
import subprocess

from conftest import FAST, cli_path

PARTIAL = 2


def test_a_crashing_and_a_hanging_runner_fail_their_own_rows_only():
    # The runner's test hook: torchscript aborts (SIGABRT) and torchscript_nnc hangs once their
    # compiled samples begin; eager runs in the Python worker as usual.
    env = dict(os.environ, FUSESCOPE_LIBTORCH_RUNNER_FAULT="torchscript=abort,torchscript_nnc=hang")
    proc = subprocess.run([cli_path(), "compare", "demo:mlp", "--backends", "torchscript,torchscript_nnc,eager",
                           "--timeout", "12", "--threads", "1", "--json", *FAST],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == PARTIAL, proc.stderr[-3000:]
    rows = {b["name"]: b for b in json.loads(proc.stdout)["backends"]}

    crashed = rows["torchscript"]
    assert crashed["status"] == "failed" and crashed["error_code"] == "worker_crashed", crashed
    assert "the LibTorch runner crashed (killed by a signal)" in crashed["error"]
    assert "aborting in the measure phase of torchscript" in crashed["error"]  # its last words

    hung = rows["torchscript_nnc"]
    assert hung["status"] == "failed" and hung["error_code"] == "worker_timeout", hung
    assert "12 s timeout" in hung["error"]

    assert rows["eager"]["status"] == "ok", rows["eager"]


def test_rows_are_interleaved_with_eager_and_stop_by_the_workers_rule():
    # Eager calls come from the export worker, pair by pair (docs/libtorch.md, "Interleaved
    # timing"): as many eager samples as compiled ones, the measure record of a worker run.
    proc = subprocess.run([cli_path(), "compare", "demo:mlp", "--backends", "torchscript", "--threads", "1",
                           "--json", "--warmup", "1", "--min-runs", "8", "--min-time", "0", "--max-time", "5",
                           "--settle", "2", "--confidence", "50"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    row = json.loads(proc.stdout)["backends"][0]
    assert row["status"] == "ok", row
    measure = row["measure"]
    assert measure["confidence_pct"] == 50.0, measure
    # +-50 % is met at a check once the minimum of 8 pairs is reached: usually the first (8
    # pairs), but on 8 pairs the interval is the min and max ratio, and on a VM whose speed jumps
    # within seconds one pair can fall outside +-50 % (seen 2026-12-03: 13 pairs, the next check,
    # in 2 of 5 runs). The rule ran, on as many eager samples as compiled ones.
    assert measure["stopped_by"] == "confidence" and measure["confidence_reached"], measure
    assert row["speedup"]["pairs"] >= 8, row["speedup"]
    assert row["eager_latency_ms"]["n"] == row["latency_ms"]["n"] == row["speedup"]["pairs"], row
    assert measure["faults_per_call"]["eager"] is not None and measure["faults_per_call"]["compiled"] is not None


def test_an_eager_call_failing_after_the_export_fails_the_row_with_its_reason(fixture_model):
    model = fixture_model("eager_fails_later.py")
    proc = subprocess.run([cli_path(), "compare", str(model), "--backends", "torchscript", "--threads", "1",
                           "--json", *FAST, "--settle", "1"], capture_output=True, text=True, timeout=300)
    row = json.loads(proc.stdout)["backends"][0]
    assert row["status"] == "failed" and row["error_code"] == "model_failed", row
    assert "deliberate failure on eager call 8" in row["error"], row["error"]
    assert "while eager was timed beside the LibTorch backend" in row["error"]
    assert row["compile_s"] is not None and row["stages"], row  # what the runner had stays
