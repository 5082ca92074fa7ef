"""The stage objects of graph-schema.json: names, titles, IR levels, and the two shapes a stage
takes (captured, or unsupported with the reason)."""

STAGES = {
    "dynamo_fx": ("Dynamo FX graph", "fx"),
    "aot_forward": ("AOTAutograd forward graph", "aten"),
    "post_grad": ("Inductor post-grad graph", "aten"),
    "pre_fusion": ("Inductor scheduler nodes before fusion", "scheduler"),
    "post_fusion": ("Inductor kernels after fusion", "scheduler"),
}
ORDER = list(STAGES)
# Training (workload.mode = training): the backward graph AOTAutograd builds for a Dynamo graph
# and Inductor's stages of that graph. Sent after the forward stages, with "pass": "backward".
BACKWARD_STAGES = {
    "aot_backward": ("AOTAutograd backward graph", "aten"),
    "post_grad_backward": ("Inductor post-grad graph (backward)", "aten"),
    "pre_fusion_backward": ("Inductor scheduler nodes before fusion (backward)", "scheduler"),
    "post_fusion_backward": ("Inductor kernels after fusion (backward)", "scheduler"),
}
BACKWARD_ORDER = list(BACKWARD_STAGES)
STAGES.update(BACKWARD_STAGES)


def fusion_position(name: str, backend_fuses: bool) -> str:
    if not backend_fuses:
        return "none"
    return "after" if name in ("post_fusion", "post_fusion_backward") else "before"


def make(name: str, graph: int, *, backend_fuses: bool, nodes: list, edges: list,
         groups: list | None = None, status: str = "ok", reason: str | None = None, **extra) -> dict:
    label, level = STAGES[name]
    stage = {"name": name, "graph": graph, "label": label, "level": level,
             "fusion": fusion_position(name, backend_fuses), "status": status, "reason": reason,
             "nodes": nodes, "edges": edges, "groups": groups or []}
    stage.update(extra)
    return stage


def unsupported(name: str, graph: int, reason: str, *, backend_fuses: bool) -> dict:
    return make(name, graph, backend_fuses=backend_fuses, nodes=[], edges=[], status="unsupported",
                reason=reason)


def failed(name: str, graph: int, reason: str, *, backend_fuses: bool) -> dict:
    return make(name, graph, backend_fuses=backend_fuses, nodes=[], edges=[], status="failed", reason=reason)
