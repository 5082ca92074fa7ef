"""fusescope-cli import of a TORCH_TRACE directory (docs/import.md): a real log, made here with
TORCH_TRACE on a tiny model with a graph break compiled by Inductor (no_grad, one call), imported,
and checked against counts computed from the log independently (and against tlparse when
FUSESCOPE_TLPARSE or PATH has it)."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

MODEL = r"""
import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(8, 8)
        self.b = torch.nn.Linear(8, 4)

    def forward(self, x):
        y = torch.relu(self.a(x))
        print("graph break")
        return torch.sigmoid(self.b(y)) * 2

torch.manual_seed(0)
f = torch.compile(M(), backend="inductor", dynamic=False)
with torch.no_grad():
    f(torch.randn(2, 8))
"""
BREAK_LINE = 11  # the print() in MODEL, as the file is written below

ENVELOPE = re.compile(r"^[VIWEC]\d{4} [^\]]*\] (\{.*\})$")


def read_records(log_dir):
    """The log's records, read here without FuseScope: (metadata, payload)."""
    records = []
    for name in sorted(os.listdir(log_dir)):
        lines = open(os.path.join(log_dir, name), encoding="utf-8").read().split("\n")
        i = 0
        while i < len(lines):
            m = ENVELOPE.match(lines[i])
            i += 1
            if not m:
                continue
            payload = []
            while i < len(lines) and lines[i].startswith("\t"):
                payload.append(lines[i][1:])
                i += 1
            meta = json.loads(m.group(1))
            text = "\n".join(payload)
            if "has_payload" in meta:
                assert hashlib.md5(text.encode()).hexdigest() == meta["has_payload"]
            records.append((meta, text))
    return records


def artifact(meta):
    return meta.get("artifact", {}).get("name")


@pytest.fixture(scope="module")
def trace_dir(tmp_path_factory):
    work = tmp_path_factory.mktemp("torch_trace")
    model = work / "model.py"
    model.write_text(MODEL.lstrip("\n"))
    assert model.read_text().split("\n")[BREAK_LINE - 1].strip() == 'print("graph break")'
    env = dict(os.environ, TORCH_TRACE=str(work / "logs"), TORCHINDUCTOR_CACHE_DIR=str(work / "cache"),
               TORCHINDUCTOR_COMPILE_THREADS="1")
    proc = subprocess.run([os.environ.get("FUSESCOPE_PYTHON", sys.executable), str(model)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return work


def test_import_matches_the_log(cli, trace_dir, tmp_path):
    logs = trace_dir / "logs"
    out = tmp_path / "r.fscope"
    r = cli("import", logs, "--out", out)
    assert r.code == 0, r
    assert "torch_trace" in r.stdout
    report = json.loads(out.read_text())
    (run,) = report["backends"]
    records = read_records(logs)

    graphs = [m for m, _ in records if "dynamo_output_graph" in m]
    breaks = [p for m, p in records if artifact(m) == "dynamo_graph_break_reason"]
    assert len(graphs) == 2 and len(breaks) == 1  # the model: one break, two graphs
    assert run["graphs"] == len(graphs)
    assert run["graph_breaks"] == len(breaks)
    (gb,) = run["break_reasons"]
    assert gb["file"] == str(trace_dir / "model.py")
    assert gb["line"] == BREAK_LINE
    assert "print" in gb["detail"]

    # Kernel names, from the output code read here: NAME = async_compile.KIND(...) and extern calls.
    want = []
    for m, payload in records:
        if "inductor_output_code" in m:
            defs = re.findall(r"^(\w+) = async_compile\.\w+\(", payload, re.M)
            calls = re.findall(r"^\s+(?:\w+ = )?(extern_kernels\.\w+)\(", payload, re.M)
            want.append(sorted(defs + calls))
    got = [sorted(g["name"] for g in s["groups"]) for s in run["stages"] if s["name"] == "post_fusion"]
    assert got == want and all(want), (got, want)

    # Source lines on the Dynamo graph's nodes, and the compile times the log has.
    dynamo = [s for s in run["stages"] if s["name"] == "dynamo_fx"]
    lines = {n["source"]["line"] for s in dynamo for n in s["nodes"] if n.get("source")}
    assert {BREAK_LINE - 1, BREAK_LINE + 1} <= lines, lines
    metrics = [m["compilation_metrics"] for m, _ in records if "compilation_metrics" in m]
    assert run["compile_s"] == pytest.approx(sum(m["entire_frame_compile_time_s"] for m in metrics), rel=1e-6)
    # Nothing the log lacks: no samples, no accuracy, no memory.
    assert not run.get("samples", {}).get("compiled")
    assert run.get("accuracy") is None
    assert report["environment"]["torch"].startswith("2.")
    assert report["settings"]["import"]["format"] == "torch_trace"


def test_tlparse_agrees_when_installed(cli, trace_dir, tmp_path):
    tlparse = os.environ.get("FUSESCOPE_TLPARSE") or shutil.which("tlparse")
    if not tlparse:
        pytest.skip("tlparse is not installed (pip install tlparse; or set FUSESCOPE_TLPARSE)")
    logs = trace_dir / "logs"
    (log,) = list(logs.iterdir())
    proc = subprocess.run([tlparse, str(log), "-o", str(tmp_path / "tl"), "--no-browser"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    directory = json.loads((tmp_path / "tl" / "compile_directory.json").read_text())
    names = [a["name"] for v in directory.values() for a in v["artifacts"]]
    out = tmp_path / "r.fscope"
    assert cli("import", logs, "--out", out).code == 0
    (run,) = json.loads(out.read_text())["backends"]
    assert run["graphs"] == sum(n.startswith("dynamo_output_graph") for n in names)
    assert run["graph_breaks"] == sum(n.startswith("dynamo_graph_break_reason") for n in names)
    assert sum(s["name"].startswith("post_fusion") for s in run["stages"]) == \
        sum(n.startswith("inductor_output_code") for n in names)


def test_damaged_and_unknown_inputs(cli, trace_dir, tmp_path):
    (log,) = list((trace_dir / "logs").iterdir())
    text = log.read_text()
    cut = tmp_path / "cut.log"
    cut.write_text(text[: len(text) // 2])
    r = cli("import", cut, "--out", tmp_path / "cut.fscope")
    assert r.code == 0, r  # a log cut short (a killed run) imports what it has
    other = tmp_path / "other.json"
    other.write_text('{"hello": 1}')
    r = cli("import", other, "--out", tmp_path / "o.fscope")
    assert r.code == 1 and "import_unknown_format" in r.stderr and str(other) in r.stderr, r
    r = cli("import", tmp_path / "missing", "--out", tmp_path / "m.fscope")
    assert r.code == 1 and "import_not_found" in r.stderr, r
