"""The post-fusion stage and the generated code, assembled once Inductor has generated code
for a graph (kernel names exist only then)."""
import os

from . import costs, inductor_artifacts, scheduler_stage, stages
from .kernel_matching import kernel_groups


class FusionSnapshot:
    """What the post-fusion hook saw, kept until code generation has finished."""

    def __init__(self, snodes, debug_dir: str | None, graph_lowering):
        self.nodes, self.edges = scheduler_stage.nodes_and_edges(snodes)
        self.structure = scheduler_stage.fused_structure(snodes)
        # Bytes and FLOPs (costs.py): Inductor's buffer sizes need V.graph, alive only now.
        basics = scheduler_stage.basic_nodes(snodes)
        self.accesses = {b.get_name(): costs.buffer_accesses(b) for b in basics}
        origins = {o.name: o for b in basics for o in scheduler_stage.origins_of(b)}
        self.origin_costs = {name: costs.node_cost(node) for name, node in origins.items()}
        graph = next(iter(origins.values())).graph if origins else None
        self.eager = costs.eager_ops(graph) if graph is not None else {"of_node": {}, "ops": {}}
        self.removed_buffers: set = set()
        self.debug_dir = debug_dir
        # The GraphLowering object: after codegen its scheduler.nodes is the list in the order
        # code was generated (reordering passes run after the post-fusion hook).
        self.graph_lowering = graph_lowering

    def generated_order(self) -> list[dict]:
        scheduler = getattr(self.graph_lowering, "scheduler", None)
        final = getattr(scheduler, "nodes", None)
        # Buffers code generation kept inside kernels (never written to memory), final only now.
        self.removed_buffers = set(getattr(self.graph_lowering, "removed_buffers", None) or ())
        self.graph_lowering = None  # release Inductor's graph as soon as we are done with it
        if not final:
            return self.structure
        return scheduler_stage.fused_structure(final)


def code_name(graph: int, part: int) -> str:
    base, ext = os.path.splitext(inductor_artifacts.OUTPUT_CODE)
    suffix = "" if (graph, part) == (0, 0) else f".{graph}" + (f".{part}" if part else "")
    return f"{base}{suffix}{ext}"


def finish(snapshot: FusionSnapshot, graph: int, part: int, want_code: bool) -> tuple[dict, dict | None]:
    """(post_fusion stage, code message fields or None)."""
    text = inductor_artifacts.output_code(snapshot.debug_dir)
    name = code_name(graph, part) if text is not None else None
    mapping, why_not = inductor_artifacts.kernel_provenance(snapshot.debug_dir)
    producer = {buf.strip(): node["id"] for node in snapshot.nodes for buf in node["name"].split(",") if buf.strip()}
    warnings = []
    if mapping is None:
        groups, node_group = [], {}
        warnings.append(f"no kernel names: {why_not}")
    else:
        groups, node_group, warnings = kernel_groups(snapshot.generated_order(), mapping, producer, name)
    for node in snapshot.nodes:
        node["group"] = node_group.get(node["id"])
    sharing = costs.eager_sharing(groups, snapshot.eager)
    for group in groups:
        group["cost"] = costs.group_cost(group, snapshot.accesses, snapshot.origin_costs, snapshot.eager, sharing,
                                         snapshot.removed_buffers)
    if text is not None:
        for group in groups:
            if group["kind"] == "kernel" and group["name"] not in text:
                warnings.append(f"kernel {group['name']} does not occur in {name}")
    extra = {"part": part} if part else {}
    stage = stages.make("post_fusion", graph, backend_fuses=True, nodes=snapshot.nodes, edges=snapshot.edges,
                        groups=groups, kernels=sum(g["kind"] == "kernel" for g in groups),
                        cost=costs.stage_cost(groups, snapshot.origin_costs, snapshot.eager) if groups else None,
                        warnings=warnings, **extra)
    code = None
    if want_code and text is not None:
        code = {"name": name, "language": "python", "text": text, "stage": "post_fusion", "graph": graph}
    return stage, code
