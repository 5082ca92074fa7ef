"""End to end: the int8 precisions (docs/quantization.md) through the real CLI, worker and torchao:
three modes of one small MLP in one comparison, each timed and judged against fp32 eager, with its
quantization record, its int8 kernels and its weights against fp32's; a backend that cannot run
them refused with the reason, the other rows kept."""
import json

from conftest import FAST

PARTIAL, USAGE = 2, 64
MODES = ("int8_weight_only", "int8_dynamic", "int8_static")


def test_three_modes_beside_an_unavailable_one(cli, fixture_model, tmp_path):
    out = tmp_path / "int8.fscope"
    entries = [f"inductor{{precision={m}}}" for m in MODES] + ["tvm{precision=int8_dynamic}"]
    r = cli("compare", fixture_model("quant_mlp.py"), "--backends", ",".join(entries), "--json", "--out", out,
            *FAST)
    assert r.code == PARTIAL, r  # the tvm row is refused, the others ran
    rows = {b["name"]: b for b in r.json()["backends"]}
    for mode in MODES:
        row = rows[f"inductor{{precision={mode}}}"]
        assert row["status"] == "ok", (mode, row["error"])
        assert row["workload"]["precision"] == mode
        assert row["accuracy"]["status"] == "pass" and row["accuracy"]["rule"] == "quantized", row["accuracy"]
        assert row["speedup"]["pairs"] >= 5  # timed against fp32 eager, interleaved
        q = row["quantization"]
        assert q["mode"] == mode and q["library"] == "torchao"
        assert q["quantized_modules"] == ["up", "down"]
        assert q["weight_bytes"] < q["fp32_weight_bytes"]
        assert q["int8_kernels"], (mode, q)  # the int8 kernels Inductor generated, found in the graph
    assert any("_int_mm" in k for k in rows["inductor{precision=int8_dynamic}"]["quantization"]["int8_kernels"])
    assert any("qlinear" in k for k in rows["inductor{precision=int8_static}"]["quantization"]["int8_kernels"])
    tvm = rows["tvm{precision=int8_dynamic}"]
    assert tvm["status"] == "unavailable" and tvm["error_code"] == "backend_unavailable", tvm
    assert "the int8 precisions run through torch.compile backends" in tvm["error"]

    shown = cli("show", out)
    assert shown.code == 0, shown
    assert "quantization (speedup and accuracy against fp32 eager):" in shown.stdout
    assert "inductor{precision=int8_dynamic}: int8_dynamic (torchao " in shown.stdout
    assert "not quantized: proj: Conv1d" in shown.stdout
    assert "calibrated on 4 input sets of calibration_inputs()" in shown.stdout
    # the saved report keeps the record as the worker sent it
    saved = {b["name"]: b for b in json.loads(out.read_text())["backends"]}
    assert saved["inductor{precision=int8_static}"]["quantization"]["calibration"].startswith("4 input sets")


def test_unknown_precisions_are_usage_errors_listing_the_int8_ones(cli):
    r = cli("compare", "demo:mlp", "--precision", "int4")
    assert r.code == USAGE, r
    assert "int4" in r.stderr and "int8_dynamic" in r.stderr, r
    r = cli("compare", "demo:mlp", "--backends", "inductor{precision=int3}")
    assert r.code == USAGE, r
    assert "precision 'int3'" in r.stderr, r


def test_aot_inductor_ships_an_int8_package_and_torchscript_refuses(cli, fixture_model):
    entries = "aot_inductor{precision=int8_dynamic},torchscript{precision=int8_dynamic}"
    r = cli("compare", fixture_model("quant_mlp.py"), "--backends", entries, "--json", *FAST)
    assert r.code == PARTIAL, r
    rows = {b["name"]: b for b in r.json()["backends"]}
    aoti = rows["aot_inductor{precision=int8_dynamic}"]
    assert aoti["status"] == "ok", aoti["error"]
    assert aoti["accuracy"]["rule"] == "quantized" and aoti["accuracy"]["status"] == "pass", aoti["accuracy"]
    assert aoti["accuracy"]["precision"] == "int8_dynamic"
    q = aoti["quantization"]
    assert q["mode"] == "int8_dynamic" and q["weight_bytes"] < q["fp32_weight_bytes"], q
    assert q["int8_kernels"], q  # found in the package's C++ signatures
    deployment = aoti["deployment"]  # the int8 package against the fp32 model a user would ship
    assert deployment["artifact_bytes"] > 0 and deployment["eager_model_bytes"] > q["fp32_weight_bytes"]
    ts = rows["torchscript{precision=int8_dynamic}"]
    assert ts["status"] == "unavailable", ts
    assert "TorchScript scripts the fp32 model" in ts["error"], ts["error"]
