"""The worker on another torch release (docs/worker.md, "Supported torch"): a stage whose Inductor
hook this torch lacks is unsupported with the missing API and the release named, never a failed
compile, and the other hooks are still installed."""
import torch

from fusescope_worker.capture import inductor_hooks


def test_every_hook_is_there_on_the_tested_release():
    assert inductor_hooks.missing_hooks() == {}


def test_a_missing_config_hook_names_the_api_and_the_release(monkeypatch):
    monkeypatch.setattr(inductor_hooks, "_has", lambda key: key != "_pre_fusion_custom_pass")
    missing = inductor_hooks.missing_hooks()
    assert missing == {
        "pre_fusion": f"torch {torch.__version__} has no torch._inductor.config._pre_fusion_custom_pass"}
    patch = inductor_hooks.config_patch(recorder=None, trace_dir="/nonexistent")
    assert "_pre_fusion_custom_pass" not in patch
    assert {"post_grad_custom_pre_pass", "post_grad_custom_post_pass", "_post_fusion_custom_pass"} <= set(patch)


def test_no_scheduler_pass_class_leaves_both_scheduler_stages_unsupported(monkeypatch):
    monkeypatch.setattr(inductor_hooks, "CustomSchedulerPass", None)
    missing = inductor_hooks.missing_hooks()
    assert set(missing) == {"pre_fusion", "post_fusion"}
    for reason in missing.values():
        assert reason == f"torch {torch.__version__} has no torch._inductor.custom_graph_pass.CustomSchedulerPass"
