"""--python: the interpreter the workers run in (docs/worker.md, "Your own Python")."""
import json
import os
import pathlib
import platform
import stat
import subprocess
import sys
from importlib import metadata

import pytest

from conftest import FAST

OK, USAGE = 0, 64
ROOT_DIR = pathlib.Path(__file__).resolve().parents[2]
# The torch 2.14.1 smoke environment (docs/worker.md, "Supported torch"); set up by hand, too big
# (the CUDA wheel and its libraries, ~6 GB) for scripts/setup.sh test to create.
TORCH_2141 = pathlib.Path(os.environ.get(
    "FUSESCOPE_PYTHON_2141",
    pathlib.Path(os.environ.get("FUSESCOPE_CACHE", pathlib.Path.home() / ".cache" / "fusescope"))
    / "venv-torch2141" / "bin" / "python"))


def default_python() -> str:
    return os.environ.get("FUSESCOPE_PYTHON") or sys.executable


def test_backends_report_the_chosen_environment(cli):
    py = default_python()
    r = cli("backends", "--json", "--python", py)
    assert r.code == OK, r
    env = r.json()["python"]
    assert env["path"] == str(pathlib.Path(py).absolute())
    # pytest runs in that environment (tests/CMakeLists.txt): its versions are the answer.
    assert env["python"] == platform.python_version()
    assert env["torch"] == metadata.version("torch")
    assert env["torch_tested"] is True
    assert pathlib.Path(env["torch_lib"], "libtorch_cpu.so").exists()
    backends = {b["name"]: b for b in r.json()["backends"]}
    assert backends["eager"]["available"] is True


def test_compare_runs_in_the_chosen_environment(cli, tmp_path):
    out = tmp_path / "r.fscope"
    r = cli("compare", "demo:mlp", "--backends", "eager", "--python", default_python(), "--out", out, "--json", *FAST)
    assert r.code == OK, r
    import torch
    assert r.json()["torch"] == torch.__version__
    assert r.json()["backends"][0]["status"] == "ok"


def _script(path: pathlib.Path, text: str) -> pathlib.Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_a_bad_python_is_a_usage_error_naming_it(cli, tmp_path):
    plain = tmp_path / "notes.txt"
    plain.write_text("not a program")
    liar = _script(tmp_path / "python", "#!/bin/sh\necho hello\n")
    broken = _script(tmp_path / "python-broken", "#!/bin/sh\necho 'no such interpreter' >&2\nexit 7\n")
    # A Python without torch: a bare virtual environment (no pip, no site packages: seconds).
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    cases = {
        str(tmp_path / "missing" / "python"): "does not exist",
        str(tmp_path): "is a directory",
        str(plain): "is not executable",
        str(liar): "is not a Python 3 interpreter",
        str(broken): "no such interpreter",
        str(bare / "bin" / "python"): "cannot import torch: No module named 'torch'",
        "fusescope-no-such-python": "is not found on PATH",
    }
    for path, why in cases.items():
        for command in (["backends"], ["compare", "demo:mlp", "--backends", "eager"]):
            r = cli(*command, "--python", path)
            assert r.code == USAGE, (path, r)
            assert f"--python: '{path}'" in r.stderr and why in r.stderr, (path, r)


@pytest.mark.skipif(not TORCH_2141.exists(),
                    reason=f"no torch 2.14.1 environment at {TORCH_2141} (docs/worker.md: how to make it)")
def test_torch_2141_smoke(cli, tmp_path):
    py = str(TORCH_2141)
    text = cli("backends", "--python", py)
    assert text.code == OK, text
    assert text.stdout.splitlines()[0].startswith(f"python: {py} (Python 3.")
    assert ", torch 2.14.1" in text.stdout.splitlines()[0] and "outside the tested range" not in text.stdout
    available = {line.split()[0] for line in text.stdout.splitlines()[1:] if line.split()[1:2] == ["available"]}
    assert {"eager", "inductor"} <= available, text
    out = tmp_path / "r.fscope"
    r = cli("compare", "demo:mlp", "--backends", "eager,inductor", "--python", py, "--out", out, "--json", *FAST)
    assert r.code == OK, r
    s = r.json()
    assert s["torch"].startswith("2.14.1")
    inductor = {b["name"]: b for b in s["backends"]}["inductor"]
    assert inductor["status"] == "ok" and inductor["accuracy"]["pass"] is True
    stages = {st["name"]: st for st in inductor["stages"]}
    # Every hook exists in 2.14.1; had one gone, its stage would be unsupported naming the API.
    for name in ("dynamo_fx", "aot_forward", "post_grad", "pre_fusion", "post_fusion"):
        assert stages[name]["status"] == "ok" or "has no torch." in (stages[name].get("reason") or ""), stages[name]
    assert stages["post_fusion"]["kernels"] >= 1
    assert json.loads(out.read_text())["environment"]["torch"].startswith("2.14.1")


def test_the_gui_checks_its_python_before_any_window(tmp_path):
    gui = os.environ.get("FUSESCOPE_GUI") or str(ROOT_DIR / "build" / "dev" / "app" / "gui" / "fusescope")
    if not pathlib.Path(gui).exists():
        pytest.skip(f"fusescope not built at {gui}")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    missing = tmp_path / "nope" / "python"
    r = subprocess.run([gui, "--python", str(missing), "demo:mlp"], capture_output=True, text=True, env=env,
                       timeout=60)
    assert r.returncode == USAGE, r
    assert f"--python: '{missing}' does not exist" in r.stderr
    help_text = subprocess.run([gui, "--help"], capture_output=True, text=True, env=env, timeout=60).stdout
    assert "--python <path>" in help_text
