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
