"""The `fusescope` Python package (docs/python.md): installed into a fresh virtual environment, a
model class defined in `__main__` with weights set in memory, compare() through fusescope-cli, the
report read back by `fusescope-cli show`; Result, _repr_html_, load(), errors, Ctrl+C."""
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import textwrap
import threading
import time

import pytest

from conftest import cli_path

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "app" / "python"
# compare()'s measurement options, as short as conftest's FAST.
FAST_KW = "warmup=1, min_runs=5, min_time=0.05, max_time=5, confidence=0"

# A model of __main__'s own: cloudpickle must send its class by value. `ready` is set in memory
# after construction: a worker that rebuilt the model instead of unpickling it raises.
MAIN_MODEL = """
import torch

class TinyNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 8)
        self.ready = False

    def forward(self, x):
        if not self.ready:
            raise RuntimeError("the model was rebuilt, not sent")
        return torch.relu(self.fc(x)) * 2
"""


def _env(**extra):
    env = dict(os.environ)
    env["FUSESCOPE_CLI"] = os.path.abspath(cli_path())
    env.pop("PYTHONPATH", None)
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def venv_python(tmp_path_factory):
    """A fresh virtual environment with the package pip-installed from the checkout; torch and the
    package's dependencies come from the test's own environment through a .pth file (the issue's
    "system site packages allowed for torch"), so nothing is downloaded."""
    cli_path()
    here = pathlib.Path(sys.executable)
    venv = tmp_path_factory.mktemp("pkg") / "venv"
    subprocess.run([str(here), "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    pathlib.Path(site, "_outer_torch.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    # From a copy: setuptools builds in place, and the checkout stays as it is.
    source = shutil.copytree(PACKAGE, venv.parent / "src", ignore=shutil.ignore_patterns("build", "*.egg-info"))
    install = subprocess.run(
        [str(here), "-m", "pip", "--python", str(python), "install", "--no-build-isolation", "--no-index",
         "--quiet", str(source)],
        capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stderr[-3000:]
    where = subprocess.run([str(python), "-c", "import fusescope; print(fusescope.__file__)"],
                           capture_output=True, text=True, cwd="/", check=True).stdout.strip()
    assert where.startswith(site), f"fusescope imported from {where}, not from the new environment"
    return python


def _run_script(python, script: pathlib.Path, text: str, timeout=600, **env):
    script.write_text(textwrap.dedent(text))
    return subprocess.run([str(python), str(script)], capture_output=True, text=True, timeout=timeout,
                          env=_env(**env), cwd=script.parent)


def test_compare_a_main_model_from_a_fresh_environment(venv_python, tmp_path, cli):
    out = tmp_path / "main-model.fscope"
    proc = _run_script(venv_python, tmp_path / "user_script.py", MAIN_MODEL + f"""
import json, fusescope

model = TinyNet()
torch.manual_seed(1)
with torch.no_grad():
    model.fc.weight.mul_(3)  # trained weights: the worker must use these
model.ready = True
result = fusescope.compare(model, (torch.randn(4, 16),), backends=["eager", "aot_eager"],
                           out={str(out)!r}, progress=False, {FAST_KW})
print(json.dumps({{"path": result.path, "names": [r.name for r in result],
                   "status": [r.status for r in result], "best": result.best,
                   "speedup": result["aot_eager"].speedup, "accuracy": result["aot_eager"].accuracy_pass,
                   "html": result._repr_html_(), "text": str(result), "table": result.table()}}))
""")
    assert proc.returncode == 0, proc.stderr[-4000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["path"] == str(out) and out.exists()
    assert got["names"] == ["eager", "aot_eager"] and got["status"] == ["ok", "ok"], got
    assert got["accuracy"] is True and got["speedup"] > 0
    assert got["table"][1]["backend"] == "aot_eager" and got["table"][1]["latency_ms"] > 0
    html = got["html"]
    assert "<table>" in html and "<td>aot_eager</td>" in html and "Recommendation" in html
    assert "aot_eager" in got["text"] and "report: " + str(out) in got["text"]
    # The report is a plain report: the CLI reads it, with the same rows.
    shown = cli("show", out, "--json")
    assert shown.code == 0, shown
    rows = shown.json()["backends"]
    assert [r["name"] for r in rows] == ["eager", "aot_eager"]
    assert all(r["status"] == "ok" for r in rows)
    assert shown.json()["model"].endswith("TinyNet.py")


def test_serialisation_failure_says_why_and_what_to_do(venv_python, tmp_path):
    proc = _run_script(venv_python, tmp_path / "lock_model.py", MAIN_MODEL + """
import threading, fusescope

model = TinyNet()
model.lock = threading.Lock()
try:
    fusescope.compare(model, (torch.randn(4, 16),), backends=["eager"], progress=False)
except fusescope.SerializationError as err:
    print("ERR", err)
""")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "ERR the model (__main__.TinyNet) could not be serialised" in proc.stdout
    assert "lock" in proc.stdout and "build_model()" in proc.stdout


# The rest drive the package from this environment (the one the workers run in), imported from the
# checkout: no install needed to test its behaviour.
@pytest.fixture
def fusescope(monkeypatch):
    monkeypatch.setenv("FUSESCOPE_CLI", os.path.abspath(cli_path()))
    monkeypatch.syspath_prepend(str(PACKAGE))
    for name in [m for m in sys.modules if m == "fusescope" or m.startswith("fusescope.")]:
        del sys.modules[name]
    import fusescope
    return fusescope


def test_no_cli_says_how_to_get_it(fusescope, monkeypatch, tmp_path):
    monkeypatch.delenv("FUSESCOPE_CLI")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(fusescope.CliNotFoundError, match="scripts/setup.sh build"):
        fusescope.load(tmp_path / "r.fscope")
    monkeypatch.setenv("FUSESCOPE_CLI", str(tmp_path / "nothing"))
    with pytest.raises(fusescope.CliNotFoundError, match="FUSESCOPE_CLI names .*nothing"):
        fusescope.compare("demo:mlp")


def test_options_are_the_clis(fusescope):
    """Every option of `fusescope-cli compare` is a keyword of compare(), but those the package sets."""
    help_text = subprocess.run([cli_path(), "compare", "--help"], capture_output=True, text=True).stdout
    cli_options = set(re.findall(r"--([a-z][a-z-]+)", help_text))
    own = {"help", "backends", "out", "json", "quiet", "progress-json", "python"}
    package = {flag.lstrip("-") for flag, _ in fusescope.OPTIONS.values()}
    assert cli_options - own == package, (cli_options - own) ^ package
    with pytest.raises(TypeError, match="unknown option 'modee'"):
        fusescope.compare("demo:mlp", modee="training")
    with pytest.raises(fusescope.UsageError, match="--goal"):
        fusescope.compare("demo:mlp", backends=["eager"], goal="speed", progress=False)


def test_a_model_error_is_an_exception_naming_backend_and_code(fusescope, tmp_path):
    class Broken(__import__("torch").nn.Module):
        def forward(self, x):
            raise RuntimeError("<script>alert(1)</script> bad forward")

    import torch
    with pytest.raises(fusescope.BackendError) as info:
        fusescope.compare(Broken(), (torch.randn(2, 2),), backends=["eager", "aot_eager"], out=tmp_path / "b.fscope",
                          progress=False, **dict(warmup=1, min_runs=5, min_time=0.05, max_time=5, confidence=0))
    err = info.value
    assert err.backend == "eager" and err.code == "model_failed", err
    assert "bad forward" in str(err) and "b.fscope" in str(err)
    assert {b for b, _, _ in err.failures} == {"eager", "aot_eager"}
    html = err.result._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html
    # load() reads any report; a damaged one is a ReportError naming it.
    again = fusescope.load(tmp_path / "b.fscope")
    assert [r.status for r in again] == ["failed", "failed"] and again.completion == "failed"
    (tmp_path / "junk.fscope").write_bytes(b"\x00not a report")
    with pytest.raises(fusescope.ReportError, match="junk.fscope"):
        fusescope.load(tmp_path / "junk.fscope")


def test_ctrl_c_keeps_what_was_measured(tmp_path):
    """SIGINT to the interpreter while inductor compiles: compare() returns with the eager row,
    `interrupted` set, the inductor row cancelled, and the report on disk."""
    script = tmp_path / "interrupted.py"
    script.write_text(MAIN_MODEL + f"""
import json, signal, fusescope
signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started with SIGINT ignored
model = TinyNet()
model.ready = True
result = fusescope.compare(model, (torch.randn(4, 16),), backends=["eager", "inductor"],
                           out={str(tmp_path / 'i.fscope')!r}, {FAST_KW})
print(json.dumps({{"interrupted": result.interrupted, "status": [r.status for r in result],
                   "codes": [r.error_code for r in result], "path": result.path}}))
""")
    env = _env(PYTHONPATH=str(PACKAGE))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=tmp_path)
    chunks = []
    reader = threading.Thread(target=lambda: chunks.extend(iter(lambda: proc.stderr.read(64), "")), daemon=True)
    reader.start()

    def inductor_compiling():
        text = "".join(chunks)
        after = text.find("eager: ok")
        return after >= 0 and "compile" in text[after:]

    deadline = time.monotonic() + 300
    while not inductor_compiling() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    assert inductor_compiling(), "".join(chunks)[-3000:]
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    out = proc.stdout.read()
    reader.join(timeout=10)
    err = "".join(chunks)
    assert proc.returncode == 0, err[-3000:]
    got = json.loads(out.strip().splitlines()[-1])
    assert got["interrupted"] is True
    assert got["status"][0] == "ok" and got["codes"][1] == "cancelled", got
    assert pathlib.Path(got["path"]).exists()
    assert "interrupted" in err


def test_inputs_are_checked_before_any_worker(fusescope, tmp_path):
    import collections

    import torch

    class Encoding(collections.abc.Mapping):  # what a tokenizer returns: a mapping, not a dict
        def __init__(self, **items):
            self._items = items

        def __getitem__(self, key):
            return self._items[key]

        def __iter__(self):
            return iter(self._items)

        def __len__(self):
            return len(self._items)

    class Keyword(torch.nn.Module):
        def forward(self, x):
            return x * 2

    result = fusescope.compare(Keyword(), Encoding(x=torch.randn(2, 2)), backends=["eager"], progress=False,
                               out=tmp_path / "kw.fscope", **dict(warmup=1, min_runs=5, min_time=0.05, max_time=5,
                                                                  confidence=0))
    assert result["eager"].ok, result
    with pytest.raises(TypeError, match="example_inputs is a set"):
        fusescope.compare(Keyword(), {1, 2}, backends=["eager"])
    with pytest.raises(TypeError, match="iterable of input sets"):
        fusescope.compare(Keyword(), (torch.randn(2, 2),), backends=["eager"], calibration_inputs=torch.randn(2, 2))
    with pytest.raises(TypeError, match="each calibration input set is a int"):
        fusescope.compare(Keyword(), (torch.randn(2, 2),), backends=["eager"], calibration_inputs=[1, 2])


# tune(): two inductor candidates, one round each, no advice (~30 s on the CI machine).
TUNE_SPACE = """
backends = ["inductor"]
modes = []
dynamic = [false]
fullgraph = false
advice = false
assignments = false
max_rounds = 1
[inductor_options]
"""


def test_tune_a_model_in_memory(fusescope, tmp_path):
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(16, 8)

        def forward(self, x):
            return torch.relu(self.fc(x)) * 2

    space = tmp_path / "space.toml"
    space.write_text(TUNE_SPACE)
    result = fusescope.tune(Net(), (torch.randn(4, 16),), budget="3m", space=space, out=tmp_path / "t.fscope",
                            progress=False, **dict(warmup=1, min_runs=5, min_time=0.05, max_time=5, confidence=0))
    assert [c["entry"] for c in result.candidates] == ["inductor", "inductor{dynamic=false}"], result.candidates
    assert all(c["origin"] == "space" and c["status"] == "ok" for c in result.candidates), result.candidates
    assert result.best in ("inductor", "inductor{dynamic=false}") and not result.interrupted
    assert result.snippet.startswith("model = torch.compile(model, backend=\"inductor\"")
    assert result.speedup > 0 and result.speedup_ci95[0] <= result.speedup <= result.speedup_ci95[1]
    assert result.stopped_by in ("max_rounds", "separated") and result.goal == "latency"
    assert result.elapsed_s <= result.budget_s == 180
    assert result.best in str(result) and repr(result).startswith("<TuneResult best=")
    page = result._repr_html_()
    assert "<pre>model = torch.compile(model, backend=&quot;inductor&quot;" in page and "<td>space</td>" in page
    # The report holds a row per candidate, and its `tuning` is the same object.
    assert result.path == str(tmp_path / "t.fscope")
    assert [r.name for r in result.report] == ["inductor", "inductor{dynamic=false}"]
    shown = json.loads(subprocess.run([cli_path(), "show", result.path, "--json"], capture_output=True,
                                      text=True, check=True).stdout)
    assert shown["tuning"]["best"] == result.tuning["best"]


def test_tune_options_and_usage_errors(fusescope, tmp_path):
    """Every option of `fusescope-cli tune` is a keyword of tune() (or one of its own arguments)."""
    help_text = subprocess.run([cli_path(), "tune", "--help"], capture_output=True, text=True).stdout
    cli_options = set(re.findall(r"--([a-z][a-z-]+)", help_text))
    own = {"help", "out", "json", "quiet", "progress-json", "python", "budget", "goal", "space"}
    package = {flag.lstrip("-") for flag, _ in fusescope.TUNE_OPTIONS.values()}
    assert cli_options - own == package, (cli_options - own) ^ package
    with pytest.raises(TypeError, match="tune\\(\\) got an unknown option 'backends'"):
        fusescope.tune("demo:mlp", budget=60, backends=["eager"])
    with pytest.raises(TypeError, match="budget takes seconds"):
        fusescope.tune("demo:mlp", budget=None)
    with pytest.raises(fusescope.UsageError, match="budget"):
        fusescope.tune("demo:mlp", budget="soon", progress=False)
    bad = tmp_path / "bad.toml"
    bad.write_text("colours = [1]\n")
    with pytest.raises(fusescope.UsageError, match="colours"):
        fusescope.tune("demo:mlp", budget=60, space=bad, progress=False)
