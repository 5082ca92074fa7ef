"""Kernel traces end to end on CPU: the real worker, the PyTorch profiler, the report, the export."""
import json

from conftest import FAST


def test_inductor_trace_has_its_generated_kernels_and_each_maps_to_nodes(cli, tmp_path):
    report = tmp_path / "t.fscope"
    r = cli("compare", "demo:transformer", "--backends", "inductor", "--trace", "--out", report, "--json", *FAST)
    assert r.code == 0, r
    b = r.json()["backends"][0]
    trace = b["trace"]
    assert trace["source"] == "cpu-profiler" and trace["iterations"] == 5 and trace["dropped"] == 0
    assert trace["kernels"] > 0 and trace["memory_events"] > 0
    assert trace["overhead_ratio"] > 0
    # Every traced kernel reaches its group; the extern calls (aten::addmm under extern_kernels.addmm)
    # are linked by launch order on top of the generated kernels linked by name.
    assert trace["unlinked_kernels"] == []
    # Kernel profiling changes the kernels' source: the stages and the traced model come from a
    # second compile, and the report says so (docs/measurement.md "Compile time").
    assert b["capture_from"] == "second_compile" and "kernel profiling" in b["capture_from_reason"], b
    assert b["capture_s"] > 0

    saved = json.loads(report.read_text())["backends"][0]
    names = saved["trace"]["names"]
    kernel_names = {names[e[3]] for e in saved["trace"]["events"] if e[4] == "kernel"}
    assert kernel_names and all(n.startswith("cpp_fused") for n in kernel_names), kernel_names
    post_fusion = next(s for s in saved["stages"] if s["name"] == "post_fusion")
    groups = {g["name"]: g for g in post_fusion["groups"]}
    for name in kernel_names:
        assert name in groups, f"traced kernel {name} has no kernel group after fusion"
        assert groups[name]["provenance"], f"kernel {name} has no provenance"
        assert groups[name]["nodes"], f"kernel {name} covers no nodes"
    assert trace["linked"] > len(kernel_names), trace

    chrome = tmp_path / "t.json"
    e = cli("export", report, "--backend", "inductor", "--trace", "--out", chrome)
    assert e.code == 0, e
    events = json.loads(chrome.read_text())["traceEvents"]
    assert {ev["name"] for ev in events if ev.get("ph") == "X"} >= kernel_names
    csv = tmp_path / "k.csv"
    assert cli("export", report, "--backend", "inductor", "--trace", "--out", csv).code == 0
    assert csv.read_text().splitlines()[0].startswith("name,calls,total_ns")

    # Time on the graph: every row a module of the graph, the rows adding up to the traced kernel
    # time per iteration (unlinked time in its own row), one line per source line.
    modules = {n["module"] or "(top level)" for n in post_fusion["nodes"]}
    for by in ("module", "line"):
        t = cli("show", report, "--by", by, "--backend", "inductor", "--json")
        assert t.code == 0, t
        row_set = t.json()["backends"][0]
        rows = row_set["rows"]
        assert rows and row_set["traced_ms"] > 0
        assert abs(sum(r["time_ms"] for r in rows) - row_set["traced_ms"]) < 1e-6 * row_set["traced_ms"]
        assert abs(sum(r["share"] for r in rows) - 1) < 1e-9
        assert all(r["kernels"] == len(r["kernel_names"]) > 0 for r in rows), rows
        keys = [r[by] for r in rows if r["attributed"]]
        if by == "module":
            assert set(keys) <= modules and "blocks.0.mlp.fc1" in keys, keys
        else:
            assert all(":" in k and k.split(":")[-1].isdigit() for k in keys if k != "(no source line)"), keys
            assert any(k.endswith("demos.py:74") for k in keys), keys  # the MLP's fc2(gelu(fc1(x)))
    text = cli("show", report, "--by", "module")
    assert text.code == 0 and "by module" in text.stdout and "blocks.0.attn" in text.stdout
    assert cli("show", report, "--by", "kernel").code == 64

    # The roofline (docs/roofline.md): the machine's roofs beside the trace; every traced kernel
    # with its bytes, FLOPs, rates and fraction of the roof, or the reason it has none.
    roof = cli("show", report, "--roofline", "--json")
    assert roof.code == 0, roof
    out = roof.json()
    assert out["roofs"]["bandwidth_gbs"] > 0 and out["roofs"]["gflops"]["float32"] > 0, out["roofs"]
    assert out["roofs"]["threads"] >= 1 and out["roofs"]["measured_at"]
    backend = out["backends"][0]
    assert backend["name"] == "inductor" and backend["traced"]
    assert 0 < backend["bytes_per_call"] < backend["eager_bytes_per_call"], backend
    assert backend["kernels"]
    for k in backend["kernels"]:
        assert k["calls"] > 0 and k["time_ms"] > 0, k
        if k["unknown_reason"] is None:
            assert k["bound"] in ("memory", "compute") and k["roof_fraction"] > 0, k
            assert k["gbs"] > 0 and k["bytes"] > 0 and k["bytes_source"] == "inductor_buffers", k
        else:
            assert k["roof_fraction"] is None or k["bytes"] is not None, k
    assert any(k["bound"] == "compute" and k["kind"] == "extern_kernel" for k in backend["kernels"])
    assert sum(k["unknown_reason"] is None for k in backend["kernels"]) >= len(kernel_names)
    text = cli("show", report, "--roofline")
    assert text.code == 0 and "roofs:" in text.stdout and "of the" in text.stdout, text
    assert cli("show", report, "--roofline", "--by", "module").code == 64


def test_export_trace_of_a_run_without_trace_says_why(cli, tmp_path):
    report = tmp_path / "r.fscope"
    assert cli("compare", "demo:mlp", "--backends", "eager", "--out", report, *FAST).code == 0
    e = cli("export", report, "--backend", "eager", "--trace", "--out", tmp_path / "t.json")
    assert e.code == 1 and "without --trace" in e.stderr
    t = cli("show", report, "--by", "module")
    assert t.code == 1 and "no kernel trace" in t.stderr, t
    roof = cli("show", report, "--roofline")
    assert roof.code == 0 and "no kernel trace" in roof.stdout and "eager has no kernels" in roof.stdout, roof
    assert cli("show", report, "--roofline", "--backend", "inductor").code == 1
