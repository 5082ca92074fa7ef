"""Inductor scheduler nodes (the list config._pre_fusion_custom_pass and _post_fusion_custom_pass
receive) as stage nodes and edges, plus the fused structure after fusion.

A node is one basic scheduler node: id is its operation name (op3), name its buffer names
(buf3), origins the post-grad FX nodes Inductor records in `node.origins`. Edges follow the
buffers each node reads (`read_writes.reads`).
"""
from . import categories
from .node_info import dim, dtype_name, module_of, source_of


def kind_of(snode) -> str:
    if type(snode).__name__ == "NopKernelSchedulerNode":
        return "nop"
    if snode.is_template():
        return "template"
    if snode.is_extern():
        return "extern_kernel"
    return "scheduler_node"


def _ir_name(ir) -> str:
    data = getattr(ir, "data", None)
    inner = type(data).__name__ if type(ir).__name__ == "ComputedBuffer" and data is not None else None
    return f"{type(ir).__name__}({inner})" if inner else type(ir).__name__


def origins_of(snode) -> list:
    ir = getattr(snode, "node", None)
    return list(getattr(ir, "origins", None) or [])


def _op(snode, kind: str, origins: list) -> str:
    ir = snode.node
    if kind == "nop":
        return "nop"
    if type(ir).__name__ == "MultiOutput":
        return "MultiOutput"
    if kind in ("extern_kernel", "template"):
        overload = getattr(ir, "op_overload", None)
        return str(overload) if overload is not None else (getattr(ir, "python_kernel_name", None) or _ir_name(ir))
    ops = []
    for origin in origins:
        target = origin.target
        name = str(getattr(target, "overloadpacket", target)) if origin.op == "call_function" else None
        if name and name not in ops:
            ops.append(name)
    return ", ".join(ops) or _ir_name(ir)


def _category(snode, kind: str, op: str) -> str:
    if kind == "nop":
        return "view"
    if kind == "template":
        return "matmul"
    if kind == "extern_kernel":
        family = categories.for_op(op)
        return family if family in ("matmul", "conv", "attention", "norm") else "extern"
    return "reduction" if snode.is_reduction() else "pointwise"


def _shapes(snode) -> tuple[list, list]:
    shapes, dtypes = [], []
    for buf in snode.get_outputs():
        layout = getattr(buf.node, "layout", None)
        size, dtype = getattr(layout, "size", None), getattr(layout, "dtype", None)
        if size is not None and dtype is not None:
            shapes.append([dim(s) for s in size])
            dtypes.append(dtype_name(dtype))
    return shapes, dtypes


def _representative(snode, origins: list):
    """The FX node whose module and source line stand for this scheduler node: the one Inductor
    says it computes exactly (origin_node), else the first origin with module information."""
    origin_node = getattr(snode.node, "origin_node", None)
    if origin_node is not None:
        return origin_node
    with_module = [o for o in origins if o.meta.get("nn_module_stack")]
    return (with_module or origins or [None])[0]


def node_entry(snode) -> dict:
    kind = kind_of(snode)
    origins = origins_of(snode)
    op = _op(snode, kind, origins)
    shapes, dtypes = _shapes(snode)
    rep = _representative(snode, origins)
    module, module_type = module_of(rep) if rep is not None else ("", "")
    return {"id": snode.get_name(), "name": ", ".join(snode.get_buffer_names()), "op": op, "kind": kind,
            "category": _category(snode, kind, op), "ir": _ir_name(snode.node), "shapes": shapes,
            "dtypes": dtypes, "module": module, "module_type": module_type,
            "source": source_of(rep.meta.get("stack_trace")) if rep is not None else None,
            "group": None, "origins": [o.name for o in origins]}


def basic_nodes(snodes) -> list:
    return [basic for snode in snodes for basic in snode.get_nodes()]


def nodes_and_edges(snodes) -> tuple[list, list]:
    basics = basic_nodes(snodes)
    producer = {buf: b.get_name() for b in basics for buf in b.get_buffer_names()}
    nodes, edges, seen = [], [], set()
    for b in basics:
        nodes.append(node_entry(b))
        for dep in b.read_writes.reads:
            src = producer.get(dep.name)
            if src is not None and src != b.get_name() and (src, b.get_name()) not in seen:
                seen.add((src, b.get_name()))
                edges.append({"src": src, "dst": b.get_name()})
    return nodes, edges


def fused_structure(snodes) -> list[dict]:
    """What fusion produced: one entry per top-level scheduler node after fusion."""
    structure = []
    for snode in snodes:
        parts = snode.get_nodes()
        origins = {o.name for part in parts for o in origins_of(part)}
        ir = getattr(snode, "node", None)
        origin_node = getattr(ir, "origin_node", None)
        structure.append({"name": snode.get_name(), "kind": kind_of(snode), "nodes": [p.get_name() for p in parts],
                          "origins": origins, "origin_node": origin_node.name if origin_node is not None else None,
                          "multi_output": type(ir).__name__ == "MultiOutput",
                          "reads": sorted({dep.name for part in parts for dep in part.read_writes.reads})})
    return structure
