"""fusescope-cli import of a PyTorch profiler (Kineto) trace (docs/import.md, "PyTorch profiler
traces"): a real trace, made here with torch.profiler on demo:mlp compiled by Inductor on CPU, as
a report of its own and attached to the inductor backend of a captured report, where its kernels
link by name to that backend's graphs."""
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

WORKER = ROOT / "plugins" / "worker"
GOOD = ROOT / "tests" / "fixtures" / "reports" / "good.fscope"

# Two profiled steps of demo:mlp (the model good.fscope's inductor row ran), with Inductor's CPU
# kernels named in the profiler (cpp.enable_kernel_profile), under no_grad as the worker runs it.
PROFILE = r"""
import sys
import torch
from torch._inductor import config
from torch.profiler import ProfilerActivity, profile, schedule
from fusescope_worker.models import load_model

config.cpp.enable_kernel_profile = True
m = load_model("demo:mlp", None)
compiled = torch.compile(m.module, backend="inductor")
with torch.no_grad():
    compiled(*m.args)
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True,
                 schedule=schedule(wait=0, warmup=1, active=2, repeat=1)) as prof:
        for _ in range(3):
            compiled(*m.args)
            prof.step()
prof.export_chrome_trace(sys.argv[1])
"""


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    out = tmp_path_factory.mktemp("kineto") / "trace.json"
    env = dict(os.environ, PYTHONPATH=str(WORKER),
               TORCHINDUCTOR_CACHE_DIR=str(out.parent / "inductor-cache"))
    proc = subprocess.run([sys.executable, "-c", PROFILE, str(out)], capture_output=True, text=True,
                          timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def test_import_profiler_trace_as_its_own_report(cli, trace, tmp_path):
    report = tmp_path / "k.fscope"
    r = cli("import", trace, "--out", report)
    assert r.code == 0, r
    assert "kineto" in r.stdout, r
    saved = json.loads(report.read_text())
    assert saved["settings"]["import"]["format"] == "kineto"
    (run,) = saved["backends"]
    assert run["name"] == "profiler" and run["status"] == "ok"
    assert run["trace"]["source"] == "cpu-profiler" and run["trace"]["iterations"] == 2
    names = run["trace"]["names"]
    assert "aten::addmm" in names and any(n.startswith("cpp_fused_") for n in names), names
    assert not any(n.startswith(("graph_0_", "Torch-Compiled Region", "ProfilerStep#")) for n in names), names
    assert run["samples"]["compiled"] == []  # absent, not invented
    s = cli("show", report)
    assert s.code == 0 and "profiler" in s.stdout, s


def test_import_into_a_backend_links_kernels_to_its_graphs(cli, trace, tmp_path):
    out = tmp_path / "r2.fscope"
    r = cli("import", trace, "--into", GOOD, "--backend", "inductor", "--out", out)
    assert r.code == 0, r
    assert "linked" in r.stdout, r
    t = cli("show", out, "--by", "module", "--backend", "inductor", "--json")
    assert t.code == 0, t
    rows = t.json()["backends"][0]["rows"]
    attributed = [row for row in rows if row["attributed"]]
    kernels = {k for row in attributed for k in row["kernel_names"]}
    assert any(k.startswith("cpp_fused_") for k in kernels), rows
    assert "aten::addmm" in kernels, rows  # extern kernels linked by launch order too
    # The other backend and the rest of the report are as they were.
    before, after = json.loads(GOOD.read_text()), json.loads(out.read_text())
    for key in ("name", "samples", "stages", "trace"):  # rewritten by this build, not changed
        assert after["backends"][0][key] == before["backends"][0][key], key
    assert after["backends"][1]["stages"] == before["backends"][1]["stages"]
    assert after["backends"][1]["trace"] != before["backends"][1]["trace"]

    missing = cli("import", trace, "--into", GOOD, "--backend", "tvm", "--out", tmp_path / "x.fscope")
    assert missing.code == 1 and "tvm" in missing.stderr and "inductor" in missing.stderr, missing
    assert not (tmp_path / "x.fscope").exists()
    usage = cli("import", trace, "--backend", "inductor", "--out", tmp_path / "y.fscope")
    assert usage.code == 64, usage


def test_damaged_trace_names_file_and_field(cli, tmp_path):
    bad = ROOT / "tests" / "fixtures" / "kineto" / "damaged_bad_ts.json"
    r = cli("import", bad, "--out", tmp_path / "z.fscope")
    assert r.code == 1, r
    assert "damaged_bad_ts.json" in r.stderr and "traceEvents[7].ts" in r.stderr, r
