"""Bytes, FLOPs and eager bytes per kernel (capture/costs.py) and the machine's roofs (roofs.py),
checked by hand on demo:mlp and demo:cnn (docs/roofline.md, "Accounting")."""
import time

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from conftest import run_model, run_worker
from fusescope_worker import roofs
from fusescope_worker.models import demos

F32 = 4


def _eager_flops(name: str) -> int:
    torch.manual_seed(demos.SEED)
    module, args = demos.DEMOS[name]()
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        module(*args)
    return counter.get_total_flops()


@pytest.fixture(scope="module")
def mlp_stage():
    run = run_model("demo:mlp", "inductor", capture={"stages": True, "code": False, "trace": False})
    assert run.one("result")["status"] == "ok", run
    return run.stage("post_fusion")


def test_mlp_kernels_bytes_and_flops_by_hand(mlp_stage):
    """demo:mlp: x[32,64] -> fc1 64->256 -> gelu -> fc2 256->256 -> relu + x -> LayerNorm -> head 256->10."""
    groups = {g["id"]: g for g in mlp_stage["groups"]}
    addmms = sorted((g for g in groups.values() if g["kind"] == "extern_kernel"), key=lambda g: g["id"])
    assert len(addmms) == 3
    fc1, fc2, head = (next(g for g in addmms if g["provenance"] == [name]) for name in ("addmm", "addmm_1", "addmm_2"))
    # fc1: reads bias[256], x[32,64], W^T[64,256]; writes [32,256]. 2*32*64*256 FLOPs.
    assert fc1["cost"]["bytes_read"] == (256 + 32 * 64 + 64 * 256) * F32
    assert fc1["cost"]["bytes_written"] == 32 * 256 * F32
    assert fc1["cost"]["flops"] == fc1["cost"]["flops_matrix"] == 2 * 32 * 64 * 256
    assert fc2["cost"]["bytes"] == (256 + 32 * 256 + 256 * 256 + 32 * 256) * F32
    assert fc2["cost"]["flops"] == 2 * 32 * 256 * 256
    assert head["cost"]["flops"] == 2 * 32 * 256 * 10
    for g in addmms:  # an extern op is its own eager op: the same bytes
        assert g["cost"]["eager_bytes"] == g["cost"]["bytes"]
        assert g["cost"]["bytes_source"] == "inductor_buffers" and g["cost"]["dtype"] == "float32"
    gelu = next(g for g in groups.values() if g["name"].startswith("cpp_fused_gelu"))
    # Reads fc1's output, writes gelu's: [32,256] each. Eager gelu is one op doing the same,
    # although the post-grad graph holds it as five pieces (mul, erf, add, mul, mul).
    assert gelu["cost"]["bytes"] == 2 * 32 * 256 * F32
    assert gelu["cost"]["eager_bytes"] == 2 * 32 * 256 * F32
    assert gelu["cost"]["flops_matrix"] == 0 and gelu["cost"]["flops_pointwise"] == 5 * 32 * 256
    for g in groups.values():
        assert g["cost"]["unknown_reason"] is None, g


def test_mlp_fusion_moves_fewer_bytes_than_eager(mlp_stage):
    cost = mlp_stage["cost"]
    # relu + add + layer_norm in eager each read and write [32,256]; fused they read two inputs once.
    assert cost["bytes"] == sum(g["cost"]["bytes"] for g in mlp_stage["groups"])
    assert cost["bytes"] < cost["eager_bytes"]
    assert cost["unknown_reason"] is None


def test_mlp_matrix_flops_agree_with_flop_counter(mlp_stage):
    expected = _eager_flops("demo:mlp")
    assert expected == 2 * 32 * (64 * 256 + 256 * 256 + 256 * 10)
    assert abs(mlp_stage["cost"]["flops_matrix"] - expected) <= 0.02 * expected


def test_cnn_convolution_flops_count_once_in_the_kernel_that_computes_them():
    run = run_model("demo:cnn", "inductor", capture={"stages": True, "code": False, "trace": False})
    assert run.one("result")["status"] == "ok", run
    stage = run.stage("post_fusion")
    expected = _eager_flops("demo:cnn")
    assert abs(stage["cost"]["flops_matrix"] - expected) <= 0.02 * expected
    kernels_total = sum(g["cost"]["flops_matrix"] for g in stage["groups"])
    assert kernels_total == stage["cost"]["flops_matrix"]  # no convolution counted twice
    for g in stage["groups"]:
        if g["kind"] == "kernel":
            assert g["cost"]["flops_matrix"] == 0, g
    conv1 = next(g for g in stage["groups"] if g["kind"] == "extern_kernel" and g["provenance"] == ["convolution"])
    # conv1: 3 -> 16 channels, 3x3, 4x32x32 outputs: 2 * 4*16*32*32 * 3*3*3 FLOPs.
    assert conv1["cost"]["flops"] == 2 * 4 * 16 * 32 * 32 * 27


def test_roofs_measure_within_their_budget():
    start = time.perf_counter()
    measured = roofs.measure(torch.device("cpu"), budget_s=2.0)
    assert time.perf_counter() - start < 2.0 + 1.0  # the last repetition may end past the budget
    assert measured["bandwidth_gbs"] > 0 and measured["gflops"]["float32"] > 0
    assert measured["threads"] == torch.get_num_threads()
    assert "STREAM" in measured["method"] and measured["measured_at"]


def test_traced_run_reports_roofs_measured_then_cached(tmp_path):
    env = {"FUSESCOPE_CACHE": str(tmp_path)}
    capture = {"stages": False, "code": False, "trace": True}
    first = run_model("demo:mlp", "eager", env=env, capture=capture).one("result")
    assert first["status"] == "ok"
    assert first["roofs"]["cache"] == "miss" and first["roofs"]["bandwidth_gbs"] > 0
    assert first["roofs"]["seconds"] <= roofs.BUDGET_S + 1.0
    skipped = run_model("demo:mlp", "eager", env=env, capture={**capture, "roofs": "skip"}).one("result")
    assert skipped["roofs"] == {"error": "skipped: the request said capture.roofs = skip (--no-roofs)"}
    again = run_model("demo:mlp", "eager", env=env, capture=capture).one("result")
    assert again["roofs"]["cache"] == "hit"
    assert again["roofs"]["bandwidth_gbs"] == first["roofs"]["bandwidth_gbs"]
    untraced = run_model("demo:mlp", "eager", env=env, capture={"stages": False, "code": False}).one("result")
    assert untraced["roofs"] is None


def test_unknown_roofs_mode_is_a_bad_request():
    from conftest import run_request
    run = run_worker(run_request("demo:mlp", "eager", capture={"trace": True, "roofs": "sometimes"}))
    error = run.one("error")
    assert error["code"] == "bad_request" and "capture.roofs" in error["message"]


def test_transformer_flops_agree_with_flop_counter_through_sdpa():
    """Inductor turns demo:transformer's hand-written attention into SDPA's CPU kernel, which
    flop_counter has no entry for; counted with the flash-attention formula, the total still agrees
    with FlopCounterMode on the eager model (its two matmuls), and no kernel is left uncounted."""
    run = run_model("demo:transformer", "inductor", capture={"stages": True, "code": False, "trace": False})
    assert run.one("result")["status"] == "ok", run
    stage = run.stage("post_fusion")
    expected = _eager_flops("demo:transformer")
    assert abs(stage["cost"]["flops_matrix"] - expected) <= 0.02 * expected
    sdpa = [g for g in stage["groups"] if "scaled_dot_product" in g["name"]]
    assert sdpa and all(g["cost"]["flops_matrix"] > 0 for g in sdpa), sdpa
    assert all(g["cost"]["unknown_reason"] is None for g in stage["groups"]), stage["groups"]
