"""The JSON-lines protocol itself (docs/protocol.md): handshake, framing, requests, exit codes."""
import glob
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile

from conftest import WORKER_DIR, run_model, run_worker


def test_first_line_is_hello_version_1_and_every_line_is_json():
    run = run_worker({"type": "shutdown"})
    assert run.returncode == 0, run
    hello = run.messages[0]
    assert hello["type"] == "hello"
    assert hello["protocol"] == "fusescope-worker" and hello["version"] == 1
    assert hello["torch"].startswith("2.13") and "cpu" in hello["devices"]
    assert hello["cuda"] is None or isinstance(hello["cuda"], dict)
    assert isinstance(hello["pid"], int) and hello["worker"] and hello["python"].startswith("3.")
    # The torch build for the report's provenance (docs/protocol.md, "Handshake").
    build = hello["torch_build"]
    assert build == "cpu" if hello["torch"].endswith("+cpu") else build.startswith(("cuda ", "rocm ")), build
    assert isinstance(hello["torch_git"], str) and len(hello["torch_git"]) >= 7
    assert run.messages[-1]["type"] == "bye"


def test_closing_stdin_ends_the_worker_cleanly():
    run = run_worker(raw="")
    assert run.returncode == 0, run
    assert [m["type"] for m in run.messages] == ["hello", "bye"]


def test_invalid_json_is_bad_request_with_exit_3():
    run = run_worker(raw="{not json\n")
    assert run.returncode == 3, run
    error = run.one("error")
    assert error["code"] == "bad_request" and "not valid JSON" in error["message"]
    assert error["file"] is None and error["backend"] is None


def test_run_without_a_model_is_bad_request():
    run = run_worker({"type": "run", "id": "x", "backend": "eager"})
    assert run.returncode == 3, run
    error = run.one("error")
    assert error["code"] == "bad_request" and "'model'" in error["message"]
    assert error["id"] == "x"


def test_unknown_request_type_is_bad_request():
    run = run_worker({"type": "compile_everything", "id": "x"})
    assert run.returncode == 3, run
    assert run.one("error")["code"] == "bad_request"


def test_bad_measure_setting_is_bad_request():
    run = run_worker({"type": "run", "id": "x", "model": "demo:mlp", "backend": "eager",
                      "measure": {"min_runs": -1}})
    assert run.returncode == 3, run
    assert "measure.min_runs" in run.one("error")["message"]


def test_list_backends_reports_availability_with_reasons():
    run = run_worker({"type": "list_backends", "id": "b1"})
    assert run.returncode == 0, run
    answer = run.one("backends")
    assert answer["id"] == "b1"
    backends = {b["name"]: b for b in answer["backends"]}
    for name in ("eager", "aot_eager", "inductor"):
        assert backends[name]["available"] is True, backends[name]
        assert backends[name]["reason"] is None
    for b in backends.values():
        assert b["family"] == ("tvm" if b["name"] == "tvm" else "torch_compile") and isinstance(b["tags"], list)
        assert b["available"] or b["reason"], b
    assert "debug" in backends["eager"]["tags"]
    if "cudagraphs" in backends and not run.messages[0]["cuda"]:
        assert backends["cudagraphs"]["available"] is False
        assert "CUDA" in backends["cudagraphs"]["reason"]
    if "tvm" in backends and not backends["tvm"]["available"]:
        assert "tvm" in backends["tvm"]["reason"]
    assert run.messages[-1]["type"] == "bye"


def test_stdout_stays_clean_when_the_model_prints(tmp_path):
    model = tmp_path / "noisy.py"
    model.write_text(
        "import os, torch\n"
        "class Noisy(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        print('hello from forward')\n"
        "        os.write(1, b'raw bytes on fd 1\\n')\n"
        "        return x + 1\n"
        "def build_model():\n    print('building'); return Noisy()\n"
        "def example_inputs():\n    return (torch.ones(2),)\n")
    run = run_model(model, "eager")
    assert run.returncode == 0, run
    assert run.one("result")["status"] == "ok", run
    assert "hello from forward" in run.stderr and "raw bytes on fd 1" in run.stderr


def test_third_party_backends_come_from_entry_points(tmp_path):
    """A package registering torch_dynamo_backends entry points: one loads, one is broken."""
    (tmp_path / "fake_backend_pkg.py").write_text("def my_backend(gm, example_inputs):\n    return gm.forward\n")
    info = tmp_path / "fusescope_fake-0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fusescope-fake\nVersion: 0.0\n")
    (info / "entry_points.txt").write_text("[torch_dynamo_backends]\nfake_ok = fake_backend_pkg:my_backend\n"
                                           "fake_broken = no_such_module_xyz:backend\n")
    env = {"PYTHONPATH": f"{WORKER_DIR}:{tmp_path}"}
    backends = {b["name"]: b for b in run_worker({"type": "list_backends", "id": "b"}, env=env)
                .one("backends")["backends"]}
    assert backends["fake_ok"]["available"] is True and "third_party" in backends["fake_ok"]["tags"]
    assert backends["fake_broken"]["available"] is False
    assert "no_such_module_xyz" in backends["fake_broken"]["reason"]
    run = run_model("demo:mlp", "fake_ok", env=env)
    assert run.one("result")["status"] == "ok", run
    assert run.stage("dynamo_fx")["status"] == "ok"
    assert "fake_ok compiles the Dynamo graph its own way" in run.stage("aot_forward")["reason"]


def test_sigterm_and_stale_scratch_directories_are_cleaned_up(tmp_path):
    """The C++ side stops a worker with SIGTERM on timeout or cancel; what a killed worker left
    behind is swept by the next one."""
    stale = pathlib.Path(tempfile.gettempdir()) / "fusescope-worker-999999999-test"
    stale.mkdir(exist_ok=True)
    model = tmp_path / "slow.py"
    model.write_text("import time, torch\nclass Slow(torch.nn.Module):\n    def forward(self, x):\n"
                     "        time.sleep(600)\n        return x\n"
                     "def build_model():\n    return Slow()\ndef example_inputs():\n    return (torch.ones(1),)\n")
    proc = subprocess.Popen([sys.executable, "-m", "fusescope_worker"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "PYTHONPATH": str(WORKER_DIR)})
    proc.stdin.write(json.dumps({"type": "run", "id": "s", "model": str(model), "backend": "eager"}) + "\n")
    proc.stdin.flush()
    for line in proc.stdout:
        if json.loads(line).get("phase") == "reference":
            break
    scratch = glob.glob(os.path.join(tempfile.gettempdir(), f"fusescope-worker-{proc.pid}-*"))
    assert scratch and not stale.exists()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 128 + signal.SIGTERM
    assert not any(os.path.exists(path) for path in scratch)


TOKEN = "0123456789abcdef0123456789abcdef"


def test_with_a_channel_token_every_line_carries_it_and_model_code_cannot_find_the_channel(tmp_path):
    """docs/protocol.md, "Transport": the token leaves the environment before model code runs,
    and the channel sits on a close-on-exec descriptor outside the small numbers."""
    model = tmp_path / "snoop.py"
    model.write_text(
        "import fcntl, os, subprocess, sys, torch\n"
        "def report():\n"
        "    pipes = []\n"
        "    for name in os.listdir('/proc/self/fd'):\n"
        "        try:\n"
        "            if int(name) > 2 and os.readlink('/proc/self/fd/' + name).startswith('pipe:'):\n"
        "                pipes.append(int(name))\n"
        "        except OSError:\n"
        "            pass\n"
        "    cloexec = all(fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC for fd in pipes)\n"
        "    environ = open('/proc/self/environ', 'rb').read()\n"
        "    child = subprocess.run(['env'], capture_output=True, text=True).stdout\n"
        "    print('SNOOP', 'env' if 'FUSESCOPE_CHANNEL_TOKEN' in os.environ else 'noenv',\n"
        "          'proc' if b'" + TOKEN + "' in environ else 'noproc',\n"
        "          'child' if '" + TOKEN + "' in child else 'nochild',\n"
        "          'low' if any(fd <= 64 for fd in pipes) else 'high',\n"
        "          'cloexec' if cloexec else 'inherited', file=sys.stderr)\n"
        "class M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x + 1\n"
        "def build_model():\n    report(); return M()\n"
        "def example_inputs():\n    return (torch.ones(2),)\n")
    request = json.dumps({"type": "run", "id": "t", "model": str(model), "backend": "eager",
                          "measure": {"warmup": 1, "min_runs": 3, "min_time_s": 0.0, "max_runs": 5}})
    proc = subprocess.run([sys.executable, "-m", "fusescope_worker"], input=request + "\n",
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(WORKER_DIR), "FUSESCOPE_CHANNEL_TOKEN": TOKEN})
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert lines and all(line.startswith(TOKEN + " ") for line in lines), proc.stdout[:500]
    messages = [json.loads(line[len(TOKEN) + 1:]) for line in lines]
    assert messages[0]["type"] == "hello" and messages[-1]["type"] == "bye"
    assert [m for m in messages if m["type"] == "result"][0]["status"] == "ok"
    assert "SNOOP noenv noproc nochild high cloexec" in proc.stderr, proc.stderr[-3000:]


def test_sigterm_while_a_model_file_imports_is_a_stop_not_a_model_error(tmp_path):
    """The stop the C++ side sends on timeout must never come back as model_invalid: a result
    naming the model would hide the timeout."""
    model = tmp_path / "slow_import.py"
    model.write_text("import sys, time\nprint('importing', file=sys.stderr, flush=True)\ntime.sleep(600)\n"
                     "def build_model():\n    pass\ndef example_inputs():\n    return ()\n")
    proc = subprocess.Popen([sys.executable, "-m", "fusescope_worker"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(WORKER_DIR)})
    proc.stdin.write(json.dumps({"type": "run", "id": "s", "model": str(model), "backend": "eager"}) + "\n")
    proc.stdin.flush()
    for line in proc.stderr:
        if "importing" in line:
            break
    proc.send_signal(signal.SIGTERM)
    stdout, _ = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM
    types = [json.loads(line)["type"] for line in stdout.splitlines()]
    assert "error" not in types and "result" not in types, stdout


def test_unencodable_strings_never_break_the_channel():
    from fusescope_worker.protocol import encode_line
    assert encode_line('{"m":"a\udcffb\ud800"}') == '{"m":"a\ufffdb\ufffd"}'.encode()
    assert encode_line('{"m":"caf\u00e9"}') == '{"m":"caf\u00e9"}'.encode()
