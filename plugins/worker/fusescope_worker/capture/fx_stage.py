"""FX graphs (Dynamo, AOTAutograd, Inductor post-grad) as stage nodes and edges."""
import torch.fx

from . import categories
from .node_info import module_of, op_name, shapes_and_dtypes, source_of


def node_entry(node: torch.fx.Node, origins: list[str]) -> dict:
    op = op_name(node)
    module, module_type = module_of(node)
    shapes, dtypes = shapes_and_dtypes(node)
    return {"id": node.name, "name": node.name, "op": op, "kind": node.op,
            "category": categories.for_fx_kind(node.op) or categories.for_op(op, node.target),
            "shapes": shapes, "dtypes": dtypes, "module": module, "module_type": module_type,
            "source": source_of(node.meta.get("stack_trace")), "group": None, "origins": origins}


def nodes_and_edges(graph: torch.fx.Graph, origins=lambda node: []) -> tuple[list, list]:
    nodes, edges = [], []
    for node in graph.nodes:
        nodes.append(node_entry(node, origins(node)))
        edges.extend({"src": source.name, "dst": node.name} for source in node.all_input_nodes)
    return nodes, edges


def traced_origins(node: torch.fx.Node, candidates: set[str], accept) -> list[str]:
    """Names in `candidates` that `node` derives from, following torch's provenance records
    (node.meta['from_node'], a chain of NodeSource written by FX passes and by AOTAutograd)."""
    found, seen = [], set()
    queue = list(node.meta.get("from_node") or [])
    while queue:
        source = queue.pop(0)
        key = (getattr(source, "name", None), getattr(source, "graph_id", None))
        if key in seen:
            continue
        seen.add(key)
        if key[0] in candidates and accept(source):
            if key[0] not in found:
                found.append(key[0])
            continue
        queue.extend(getattr(source, "from_node", None) or [])
    return found


def origins_in_earlier_graph(graph: torch.fx.Graph, earlier_names: set[str]):
    """Origins for a graph traced from an earlier one (AOTAutograd from Dynamo): sources recorded
    inside `graph` itself are rewrites by its own passes, so they are followed, not matched."""
    own = id(graph)
    return lambda node: traced_origins(node, earlier_names, lambda s: getattr(s, "graph_id", None) != own)


def origins_in_same_graph(graph: torch.fx.Graph, earlier_names: set[str]):
    """Origins for a later snapshot of the same graph (post-grad after AOT): a node that was there
    before is its own origin; a node a pass created points at the nodes it replaced."""
    own = id(graph)

    def origins(node):
        if node.name in earlier_names:
            return [node.name]
        return traced_origins(node, earlier_names, lambda s: getattr(s, "graph_id", None) == own)
    return origins
