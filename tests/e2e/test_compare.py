"""fusescope-cli compare / show / backends on real models (docs/cli.md)."""
import json
import os
import signal
import subprocess
import time

from conftest import FAST, cli_path

OK, ERROR, PARTIAL, ALL_FAILED, CANCELLED, USAGE = 0, 1, 2, 3, 4, 64


def by_name(summary):
    return {b["name"]: b for b in summary["backends"]}


def test_three_backends_on_mlp_complete_with_every_field(cli, tmp_path):
    out = tmp_path / "r.fscope"
    r = cli("compare", "demo:mlp", "--backends", "eager,aot_eager,inductor", "--out", out, "--json", *FAST)
    assert r.code == OK, r
    s = r.json()
    for key in ("schema", "model", "device", "torch", "backends"):
        assert key in s
    assert s["model"] == "demo:mlp" and s["device"] == "cpu" and s["torch"].startswith("2.13")
    backends = by_name(s)
    assert list(backends) == ["eager", "aot_eager", "inductor"]
    for name, b in backends.items():
        assert b["status"] == "ok", (name, b["error"])
        assert b["compile_s"] > 0
        # compile_s by phase adds up to it; it captured the stages, the warm compile is apart
        assert abs(sum(b["compile_breakdown"].values()) - b["compile_s"]) <= 1e-6 * b["compile_s"], b
        assert b["capture_from"] == "timed_compile" and b["capture_s"] is None, b
        assert b["warm_compile_s"] > 0
        assert b["compile_breakdown_graphs"][0]["compile_id"] == "0/0"
        assert b["latency_ms"]["n"] >= 5 and b["latency_ms"]["median"] > 0 and b["latency_ms"]["iqr"] >= 0
        assert b["latency_ms"]["min"] <= b["latency_ms"]["median"]
        assert b["speedup_vs_eager"] > 0
        assert b["peak_memory_bytes"] is not None
        assert b["accuracy"]["pass"] is True and b["accuracy"]["cosine"] > 0.999
        assert b["graphs"] == 1 and b["graph_breaks"] == 0
        assert any(st["name"] == "dynamo_fx" for st in b["stages"])
    inductor_stages = {st["name"]: st for st in backends["inductor"]["stages"]}
    assert {"dynamo_fx", "aot_forward", "post_grad", "pre_fusion", "post_fusion"} <= set(inductor_stages)
    assert inductor_stages["post_fusion"]["kernels"] >= 1
    assert {"dynamo_fx", "aot_forward"} <= {st["name"] for st in backends["aot_eager"]["stages"]}

    # The saved report says the same thing.
    shown = cli("show", out, "--json")
    assert shown.code == OK, shown
    assert by_name(shown.json()) == backends
    text = cli("show", out)
    assert text.code == OK and "compile time:" in text.stdout and "C++/Triton compilation" in text.stdout, text
    table = cli("show", out)
    assert "inductor" in table.stdout and "speedup" in table.stdout


def test_unknown_backend_is_unavailable_and_the_others_still_run(cli, tmp_path):
    out = tmp_path / "r.fscope"
    r = cli("compare", "demo:mlp", "--backends", "no_such_backend,eager", "--out", out, "--json", *FAST)
    assert r.code == PARTIAL, r
    b = by_name(r.json())
    assert b["no_such_backend"]["status"] == "unavailable"
    assert "no_such_backend" in b["no_such_backend"]["error"]
    assert b["eager"]["status"] == "ok"
    assert out.exists()


def test_missing_model_file_is_named(cli, tmp_path):
    missing = tmp_path / "nope.py"
    r = cli("compare", missing, "--backends", "eager,inductor", "--json", *FAST)
    assert r.code == ALL_FAILED, r
    for b in r.json()["backends"]:
        assert b["status"] == "failed"
        assert b["error_code"] == "model_not_found"
        assert str(missing) in b["error"]


def test_syntax_error_and_missing_functions_are_model_invalid(cli, fixture_model):
    for name in ("syntax_error.py", "no_functions.py", "empty.py"):
        path = fixture_model(name)
        r = cli("compare", path, "--backends", "eager", "--json", *FAST)
        assert r.code == ALL_FAILED, r
        b = r.json()["backends"][0]
        assert b["error_code"] == "model_invalid", (name, b)
        assert name in b["error"]


def test_model_raising_in_forward_is_model_failed(cli, fixture_model):
    r = cli("compare", fixture_model("raises_in_forward.py"), "--backends", "eager", "--json", *FAST)
    assert r.code == ALL_FAILED, r
    assert r.json()["backends"][0]["error_code"] == "model_failed"


def test_crashing_worker_is_reported_and_the_report_saved(cli, fixture_model, tmp_path):
    out = tmp_path / "crash.fscope"
    r = cli("compare", fixture_model("crashes_worker.py"), "--backends", "eager", "--out", out, "--json", *FAST)
    assert r.code == ALL_FAILED, r
    b = r.json()["backends"][0]
    assert b["error_code"] == "worker_crashed", b
    assert "eager" in b["error"]
    assert cli("show", out, "--json").code == OK


def test_hanging_backend_is_stopped_by_the_timeout(cli, fixture_model, tmp_path):
    start = time.monotonic()
    r = cli("compare", fixture_model("hangs_in_forward.py"), "--backends", "eager", "--timeout", "20", "--json",
            *FAST)
    assert r.code == ALL_FAILED, r
    b = r.json()["backends"][0]
    assert b["error_code"] == "worker_timeout", b
    assert "20 s" in b["error"]
    assert time.monotonic() - start < 120


def test_interrupt_keeps_a_valid_report_in_place(cli, fixture_model, tmp_path):
    out = tmp_path / "keep.fscope"
    first = cli("compare", "demo:mlp", "--backends", "eager", "--out", out, "--json", *FAST)
    assert first.code == OK, first
    proc = subprocess.Popen([cli_path(), "compare", str(fixture_model("hangs_in_forward.py")), "--backends",
                             "eager,aot_eager", "--out", str(out), "--json", *FAST],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(8)
    proc.send_signal(signal.SIGINT)
    stdout, _ = proc.communicate(timeout=60)
    assert proc.returncode == CANCELLED
    statuses = [b["status"] for b in json.loads(stdout)["backends"]]
    assert statuses == ["failed", "failed"]
    shown = cli("show", out, "--json")
    assert shown.code == OK, shown  # never a corrupt file where a good one was
    assert not [p for p in os.listdir(tmp_path) if ".tmp-" in p]


def test_show_refuses_a_corrupt_report_naming_it(cli, tmp_path):
    bad = tmp_path / "bad.fscope"
    bad.write_text('{"format": "fusescope-report", "schema": 1, "backends": [')
    r = cli("show", bad)
    assert r.code == ERROR
    assert "bad.fscope" in r.stderr and "truncated" in r.stderr


def test_backends_lists_availability_and_reasons(cli):
    r = cli("backends", "--json")
    assert r.code == OK, r
    backends = {b["name"]: b for b in r.json()["backends"]}
    for name in ("eager", "aot_eager", "inductor"):
        assert backends[name]["available"] is True, backends[name]
    assert backends["cudagraphs"]["available"] is False
    assert backends["cudagraphs"]["reason"]


def test_export_writes_png_svg_pdf_and_names_bad_stages(cli, tmp_path):
    report = tmp_path / "r.fscope"
    r = cli("compare", "demo:mlp", "--backends", "inductor", "--out", report, *FAST)
    assert r.code == OK, r
    magic = {"png": b"\x89PNG", "svg": b"<?xml", "pdf": b"%PDF"}
    for ext, head in magic.items():
        out = tmp_path / f"g.{ext}"
        e = cli("export", report, "--backend", "inductor", "--stage", "post_fusion", "--out", out)
        assert e.code == OK, e
        data = out.read_bytes()
        assert data.startswith(head) and len(data) > 2000, ext
    assert b"cpp_fused" in (tmp_path / "g.svg").read_bytes()
    bad = cli("export", report, "--backend", "inductor", "--stage", "nope", "--out", tmp_path / "x.png")
    assert bad.code == 64 and "post_fusion" in bad.stderr
    missing = cli("export", report, "--backend", "tvm", "--out", tmp_path / "x.png")
    assert missing.code == 64 and "inductor" in missing.stderr


def test_modes_and_options_are_per_entry_and_saved(cli, tmp_path):
    out = tmp_path / "modes.fscope"
    r = cli("compare", "demo:mlp", "--backends", "aot_eager,aot_eager@default", "--fullgraph", "--dynamic", "false",
            "--out", out, "--json", *FAST)
    assert r.code == OK, r
    assert [b["name"] for b in r.json()["backends"]] == ["aot_eager", "aot_eager@default"]
    saved = json.loads(out.read_text())["backends"]
    assert saved[0]["options"]["fullgraph"] is True and saved[0]["options"]["dynamic"] is False
    assert saved[1]["options"]["mode"] == "default"


def test_unknown_inductor_option_fails_that_backend_with_its_name(cli):
    r = cli("compare", "demo:mlp", "--backends", "eager,inductor", "--inductor-config", "no_such_option=1",
            "--json", *FAST)
    assert r.code == PARTIAL, r
    b = by_name(r.json())
    assert b["eager"]["status"] == "ok"
    assert b["inductor"]["status"] == "failed" and "no_such_option" in b["inductor"]["error"]


def test_options_in_braces_apply_to_their_entry_only(cli, tmp_path):
    out = tmp_path / "entries.fscope"
    r = cli("compare", "demo:mlp", "--backends",
            "aot_eager, aot_eager{fullgraph,dynamic=false}, inductor{no_such_option=1}, torchscript{fullgraph}",
            "--inductor-config", "epilogue_fusion=true", "--out", out, "--json", *FAST)
    assert r.code == PARTIAL, r
    names = [b["name"] for b in r.json()["backends"]]
    assert names == ["aot_eager", "aot_eager{fullgraph,dynamic=false}", "inductor{no_such_option=1}",
                     "torchscript{fullgraph}"]
    b = by_name(r.json())
    saved = {s["name"]: s for s in json.loads(out.read_text())["backends"]}
    assert b["aot_eager"]["status"] == "ok" and b["aot_eager{fullgraph,dynamic=false}"]["status"] == "ok"
    plain, braced = saved["aot_eager"]["options"], saved["aot_eager{fullgraph,dynamic=false}"]["options"]
    assert plain["fullgraph"] is False and plain["dynamic"] is None
    assert braced["fullgraph"] is True and braced["dynamic"] is False
    # The entry's Inductor options reach torch.compile on top of the run-wide ones: torch rejects it.
    failed = b["inductor{no_such_option=1}"]
    assert failed["status"] == "failed" and "no_such_option" in failed["error"], failed
    refused = b["torchscript{fullgraph}"]
    assert refused["status"] == "failed" and refused["error_code"] == "bad_option"
    assert "not a torch.compile backend" in refused["error"], refused


def test_malformed_backend_entry_is_a_usage_error_naming_it(cli):
    r = cli("compare", "demo:mlp", "--backends", "eager,inductor{dynamic=maybe}")
    assert r.code == USAGE, r
    assert "inductor{dynamic=maybe}" in r.stderr and "dynamic takes true, false or auto" in r.stderr


def test_aot_inductor_compiles_runs_and_fuses_on_mlp(cli, tmp_path):
    """LibTorch family, aot_inductor (docs/libtorch.md): a real AOTInductor package of demo:mlp,
    built by the worker, loaded and timed in-process; about a minute on 2 cores. torchscript rides
    along (a few seconds) for the deployment view both share (docs/libtorch.md, "Deployment")."""
    listed = {b["name"]: b for b in cli("backends", "--json").json()["backends"]}
    assert listed["aot_inductor"]["family"] == "libtorch"
    assert listed["aot_inductor"]["available"] is True, listed["aot_inductor"]
    out = tmp_path / "r.fscope"
    r = cli("compare", "demo:mlp", "--backends", "eager,torchscript,aot_inductor", "--out", out, "--json", *FAST)
    assert r.code == OK, r
    b = by_name(r.json())["aot_inductor"]
    assert b["status"] == "ok", b["error"]
    assert b["family"] == "libtorch"
    assert b["compile_s"] > 0 and b["latency_ms"]["n"] >= 5 and b["speedup_vs_eager"] > 0
    assert b["accuracy"]["pass"] is True
    assert 0 < b["kernels_after_fusion"] < b["nodes_before_fusion"]
    assert [st["name"] for st in b["stages"]] == ["export", "aot_forward", "post_grad", "pre_fusion", "post_fusion"]

    # Deployment: the artifact's size next to the eager state_dict's, its load and first call in
    # fresh runner processes (never the runner's own load), read back from the saved report.
    rows = by_name(cli("show", out, "--json").json())
    assert rows["eager"]["deployment"] is None
    for name, artifact in (("aot_inductor", "model.pt2"), ("torchscript", "model.pt")):
        d = rows[name]["deployment"]
        assert rows[name]["status"] == "ok", rows[name]["error"]
        assert d is not None and "error" not in d, (name, d)
        assert d["artifact"] == artifact and d["artifact_bytes"] > 0 and d["eager_model_bytes"] > 0
        assert d["fresh_processes"] == 3 and len(d["load_samples_s"]) == 3
        assert d["load_s"] > 0 and d["first_call_s"] > 0 and d["process_s"] > d["load_s"]
        assert d["file_cache"] in ("warm", "partial", "cold") and 0 <= d["file_cache_resident"] <= 1
    # the package holds the compiled library besides the weights: larger than the bare state_dict
    deployment = rows["aot_inductor"]["deployment"]
    assert deployment["artifact_bytes"] > deployment["eager_model_bytes"]
    text = cli("show", out).stdout
    assert "deployment (the artifact a user would ship):" in text and "artifact model.pt2" in text, text
