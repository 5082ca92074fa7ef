"""End-to-end tests of fusescope-cli: the real binary, the real worker, real torch."""
import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "models"
# Short measurement so the suite stays quick; the method is the same as the defaults', without
# the confidence target (test_confidence.py tests it), which would time on up to --max-time.
FAST = ["--warmup", "1", "--min-runs", "5", "--min-time", "0.05", "--max-time", "5", "--confidence", "0"]


def cli_path() -> str:
    path = os.environ.get("FUSESCOPE_CLI") or str(ROOT / "build" / "dev" / "app" / "cli" / "fusescope-cli")
    if not pathlib.Path(path).exists():
        pytest.skip(f"fusescope-cli not built at {path}")
    return path


class CliResult:
    def __init__(self, proc: subprocess.CompletedProcess):
        self.code = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr

    def json(self):
        return json.loads(self.stdout)

    def __repr__(self):
        return f"exit {self.code}\nstdout:\n{self.stdout[-3000:]}\nstderr:\n{self.stderr[-3000:]}"


@pytest.fixture
def cli():
    path = cli_path()

    def run(*args, timeout=600):
        proc = subprocess.run([path, *map(str, args)], capture_output=True, text=True, timeout=timeout)
        return CliResult(proc)

    return run


@pytest.fixture
def fixture_model():
    def get(name: str) -> pathlib.Path:
        p = FIXTURES / name
        assert p.exists(), f"missing fixture {p}"
        return p

    return get
