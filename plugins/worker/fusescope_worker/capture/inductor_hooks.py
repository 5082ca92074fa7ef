"""Inductor's own extension points, used to watch its graphs without changing them.

- post_grad_custom_pre_pass: the AOTAutograd forward graph as Inductor received it (after the
  joint-graph passes AOTAutograd runs for Inductor, before any post-grad pass; Inductor only
  removes dead code and reorders for locality before this hook).
- post_grad_custom_post_pass: the graph after Inductor's post-grad passes, the one it lowers.
- _pre_fusion_custom_pass / _post_fusion_custom_pass: the scheduler node list before and after
  fusion (torch/_inductor/scheduler.py calls them with the list and uses what they return).

The passes are CustomGraphPass / CustomSchedulerPass subclasses with a uuid(), so Inductor's
FX graph cache keeps working: a plain callable would make it bypass the cache and change what
we measure. The trace settings make Inductor write output_code.py and its kernel provenance
mapping into our scratch directory.
"""
import torch
from torch._inductor import config
from torch._inductor.custom_graph_pass import CustomGraphPass, get_hash_for_files

try:
    from torch._inductor.custom_graph_pass import CustomSchedulerPass
except ImportError:  # older torch: the scheduler hooks take plain callables only
    CustomSchedulerPass = None

_FILES = (__file__,)
_recorder = None  # the CaptureSession that receives what the passes see


class StageGraphPass(CustomGraphPass):
    def __init__(self, stage: str):
        self.stage = stage

    def __call__(self, graph) -> None:
        if _recorder is not None:
            _recorder.on_fx_stage(self.stage, graph)

    def uuid(self):
        return get_hash_for_files(_FILES, self.stage)


if CustomSchedulerPass is not None:
    class StageSchedulerPass(CustomSchedulerPass):
        def __init__(self, stage: str):
            self.stage = stage

        def __call__(self, nodes):
            if _recorder is not None:
                _recorder.on_scheduler_stage(self.stage, nodes)
            return nodes

        def uuid(self):
            return get_hash_for_files(_FILES, self.stage)


def _has(key: str) -> bool:
    owner, _, name = key.rpartition(".")
    return hasattr(getattr(config, owner) if owner else config, name)


HOOKS = {"aot_forward": "post_grad_custom_pre_pass", "post_grad": "post_grad_custom_post_pass",
         "pre_fusion": "_pre_fusion_custom_pass", "post_fusion": "_post_fusion_custom_pass"}


def missing_hooks() -> dict[str, str]:
    """Stage -> why this torch cannot capture it, naming the missing API and the torch release."""
    release = f"torch {torch.__version__}"
    missing = {stage: f"{release} has no torch._inductor.config.{key}" for stage, key in HOOKS.items()
               if not _has(key)}
    if CustomSchedulerPass is None:
        for stage in ("pre_fusion", "post_fusion"):
            missing.setdefault(stage, f"{release} has no torch._inductor.custom_graph_pass.CustomSchedulerPass")
    return missing


def config_patch(recorder, trace_dir: str) -> dict:
    """Settings for torch._inductor.config.patch() while the recorder is active."""
    global _recorder
    _recorder = recorder
    missing = missing_hooks()
    patch = {}
    for stage, key in HOOKS.items():
        if stage not in missing:
            patch[key] = StageSchedulerPass(stage) if stage.endswith("fusion") else StageGraphPass(stage)
    trace = {"trace.enabled": True, "trace.debug_dir": trace_dir, "trace.fx_graph": False,
             "trace.fx_graph_transformed": False, "trace.ir_pre_fusion": False, "trace.ir_post_fusion": False,
             "trace.output_code": True, "trace.provenance_tracking_level": 1}
    patch.update({key: value for key, value in trace.items() if _has(key)})
    return patch
