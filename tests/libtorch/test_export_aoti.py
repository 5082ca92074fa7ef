"""The worker's export_aoti request (docs/libtorch.md, "AOTInductor"), run as the C++ side runs it:
a real AOTInductor compile of demo:mlp (tens of seconds on 2 cores), then the error paths."""
import re
import zipfile

import torch

from conftest import ask, export_request


def _ask(request: dict, then: tuple = ()) -> list[dict]:
    return ask(request, timeout=500, then=then)


def _request(model: str, out_dir, **extra) -> dict:
    return export_request("export_aoti", "aot_inductor", model, out_dir, **extra)


def test_mlp_package_stages_and_code_agree(tmp_path):
    messages = _ask(_request("demo:mlp", tmp_path), then=({"type": "eager_call", "untimed": 1},))
    types = [m["type"] for m in messages]
    assert types[0] == "hello" and types[-1] == "bye", types
    reply = next(m for m in messages if m["type"] == "aoti_exported")
    assert reply["aoti_compile_s"] > 0 and reply["export_s"] > 0
    assert [m["ms"] > 0 for m in messages if m["type"] == "eager_ms"] == [True]  # eager served after

    stages = {m["stage"]["name"]: m["stage"] for m in messages if m["type"] == "stage"}
    assert list(stages) == ["export", "aot_forward", "post_grad", "pre_fusion", "post_fusion"]
    assert all(s["status"] == "ok" for s in stages.values())
    after, before = stages["post_fusion"], stages["pre_fusion"]
    assert after["fusion"] == "after" and before["fusion"] == "before"
    assert after["warnings"] == []
    kernels = [g for g in after["groups"] if g["kind"] in ("kernel", "extern_kernel")]
    assert 0 < len(kernels) < len(before["nodes"])
    # Every node of the stage is in a kernel, and every generated kernel is defined in the
    # package's C++, which is sent as code.
    assert all(n["group"] for n in after["nodes"] if n["kind"] != "nop")
    code = {m["name"]: m for m in messages if m["type"] == "code"}
    assert {c["language"] for c in code.values()} == {"cpp"}
    with zipfile.ZipFile(reply["package_path"]) as archive:
        packaged = "".join(archive.read(n).decode() for n in archive.namelist() if n.endswith(".cpp"))
    for group in after["groups"]:
        if group["kind"] == "kernel":
            assert group["name"].startswith("cpp_fused_")
            definition = re.compile(r"void\s+" + group["name"] + r"\s*\(")
            assert definition.search(code[group["code"]]["text"])
            assert definition.search(packaged)

    # The package torch itself loads gives the reference outputs from the saved inputs.
    data = torch.jit.load(reply["data_path"])
    package = torch._inductor.aoti_load_package(reply["package_path"])
    with torch.no_grad():
        out = package(*data.inputs)
    assert torch.allclose(out, data.outputs[0], atol=1e-4)


def test_model_errors_keep_their_codes(tmp_path):
    error = next(m for m in _ask(_request("demo:nope", tmp_path)) if m["type"] == "error")
    assert error["code"] == "model_not_found"


def test_bad_requests_are_refused(tmp_path):
    error = next(m for m in _ask(_request("demo:mlp", tmp_path, device="cuda")) if m["type"] == "error")
    assert error["code"] == "bad_request"
    error = next(m for m in _ask(_request("demo:mlp", "")) if m["type"] == "error")
    assert error["code"] == "bad_request" and "out_dir" in error["message"]
