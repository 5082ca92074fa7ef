"""Bytes and FLOPs of each kernel after fusion, and the bytes the same nodes moved in eager
(docs/roofline.md, "Accounting").

- A kernel's bytes: Inductor's own per-buffer access sizes of each scheduler node
  (`get_read_write_buffer_accesses`, the numbers its benchmark and bandwidth estimates use: the
  smaller of the elements the loops touch and the buffer's size, times the dtype's size), joined
  over the kernel's nodes: a buffer read from outside the kernel counts once, a buffer written and
  kept (not removed as kernel-local once code was generated) counts once, a buffer made and used
  inside the kernel counts nothing. bytes_source "inductor_buffers".
- FLOPs: per post-grad ATen node the kernel came from (its provenance): matrix ops (mm, addmm,
  bmm, convolution, attention...) by torch.utils.flop_counter's formulas; pointwise ops one FLOP
  per output element; reductions (and pooling) one per input element; views, copies, indexing
  and other data movement none; any other op has no count (flops None, with the reason), never a
  guess. SDPA's CPU kernel (_scaled_dot_product_flash_attention_for_cpu), absent from
  flop_counter, is counted with flop_counter's formula for the flash-attention op it mirrors.
  The two parts stay apart (flops_matrix, flops_pointwise). A matrix op counts only in the
  extern or template kernel that computes it: a generated kernel whose provenance names one
  (cpp_fused_convolution_0, a layout copy of the convolution's input) does not compute it.
- Eager bytes of the same nodes: the eager ATen ops they came from, each reading its tensor
  inputs and writing its tensor outputs once, views counting nothing. Post-grad nodes carry the
  eager op they were decomposed from (meta `original_aten`) and the traced node it was
  (`from_node`); the nodes sharing both are one eager op, whose inputs are what its pieces read
  from outside it and whose outputs are what is used outside it (gelu's five pieces are one op
  reading and writing one tensor). An eager op whose pieces landed in k kernels gives each
  kernel 1/k of its bytes; the stage's total counts it once.

A number that cannot be computed (no shapes, a symbolic size, a custom op) is None with the
reason; nothing is estimated silently.
"""
import operator

import torch
import torch.fx

operator_getitem = operator.getitem

REDUCTIONS = {"sum", "mean", "amax", "amin", "max", "min", "prod", "var", "var_mean", "std", "std_mean",
              "argmax", "argmin", "logsumexp", "any", "all", "norm", "linalg_vector_norm", "_softmax",
              "_log_softmax", "cumsum", "cumprod", "max_pool2d_with_indices", "_low_memory_max_pool_with_offsets",
              "_low_memory_max_pool2d_with_offsets", "avg_pool2d", "adaptive_avg_pool2d"}
# Ops that move or make data without arithmetic: no FLOPs (views are found from their schema).
DATA_MOVEMENT = {"getitem", "copy", "copy_", "_to_copy", "clone", "cat", "stack", "index", "index_select",
                 "gather", "scatter", "scatter_add", "index_put", "index_put_", "embedding", "slice_scatter",
                 "select_scatter", "as_strided_scatter", "constant_pad_nd", "full", "full_like", "zeros",
                 "zeros_like", "ones", "ones_like", "empty", "empty_strided", "empty_like", "arange", "iota",
                 "scalar_tensor", "fill", "fill_", "lift_fresh_copy", "repeat", "split_with_sizes_copy",
                 "permute_copy", "expand_copy", "_unsafe_index", "_unsafe_index_put", "flip", "roll", "tril",
                 "triu", "randn", "rand", "bernoulli", "inductor_random", "inductor_seeds", "inductor_lookup_seed",
                 "_assert_scalar", "sym_size", "sym_stride", "sym_numel", "_local_scalar_dense", "pad"}


def _sdpa_for_cpu(query, key, value, *args, **kwargs) -> int:
    """aten._scaled_dot_product_flash_attention_for_cpu (what SDPA runs on CPU): flop_counter has
    no entry for it; its FLOPs are those of the flash-attention entry it mirrors."""
    from torch.utils.flop_counter import sdpa_flop_count
    return sdpa_flop_count(query.shape, key.shape, value.shape)


EXTRA_FORMULAS = {"_scaled_dot_product_flash_attention_for_cpu": _sdpa_for_cpu}


def _int(value) -> int | None:
    """An int for a size or count; None when it is symbolic."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    try:
        text = str(value)
        return int(text) if text.lstrip("-").isdigit() else None
    except Exception:
        return None


def _tensors(value) -> list:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _tensors(item)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in _tensors(item)]
    return []


def _bytes_of(tensors: list) -> int | None:
    total = 0
    for t in tensors:
        n = _int(t.numel())
        if n is None:
            return None
        total += n * t.element_size()
    return total


def _val(node):
    return node.meta.get("val", node.meta.get("example_value")) if isinstance(node, torch.fx.Node) else node


def _args(node: torch.fx.Node):
    return torch.fx.node.map_arg(node.args, _val), torch.fx.node.map_arg(node.kwargs, _val)


def _packet(target):
    return getattr(target, "overloadpacket", None)


def _is_view(target) -> bool:
    schema = getattr(target, "_schema", None)
    if schema is None:
        return False
    returns = schema.returns
    return bool(returns) and all(r.alias_info is not None and not r.alias_info.is_write for r in returns)


def node_cost(node: torch.fx.Node) -> dict:
    """{flops_matrix, flops_pointwise, dtype, unknown} of one post-grad FX node."""
    out = {"flops_matrix": 0, "flops_pointwise": 0, "dtype": None, "unknown": None}
    if node.op != "call_function":
        return out
    target = node.target
    packet = _packet(target)
    name = getattr(packet, "__name__", None) or str(target)
    args, kwargs = _args(node)
    outputs = _tensors(_val(node))
    inputs = _tensors((args, kwargs))
    if outputs:
        out["dtype"] = str(outputs[0].dtype).removeprefix("torch.")
    if _val(node) is None:
        out.update(flops_matrix=None, flops_pointwise=None,
                   unknown=f"node {node.name} ({name}) has no recorded output value (shapes unknown)")
        return out
    from torch.utils.flop_counter import flop_registry
    formula = flop_registry.get(packet) if packet is not None else None
    if formula is None and name in EXTRA_FORMULAS:
        formula = EXTRA_FORMULAS[name]
    if formula is not None:
        try:
            flops = _int(formula(*args, **kwargs, out_val=_val(node)) if name not in EXTRA_FORMULAS
                         else formula(*args, **kwargs))
        except Exception as exc:
            flops, out["unknown"] = None, f"node {node.name} ({name}): flop_counter's formula raised {exc!r}"
        if flops is None and out["unknown"] is None:
            out["unknown"] = f"node {node.name} ({name}) has a symbolic size"
        out["flops_matrix"] = flops
        if inputs:
            out["dtype"] = str(inputs[0].dtype).removeprefix("torch.")
        return out
    tags = getattr(target, "tags", ()) or ()
    if torch.Tag.pointwise in tags:
        counted = outputs
    elif name in REDUCTIONS:
        counted = inputs[:1]
    elif name in DATA_MOVEMENT or _is_view(target) or target is operator_getitem:
        return out
    else:
        out.update(flops_pointwise=None,
                   unknown=f"node {node.name}: no FLOP formula for {name} (not in torch.utils.flop_counter, "
                           "not pointwise, not a reduction or data movement)")
        return out
    elements = [_int(t.numel()) for t in counted]
    if any(e is None for e in elements):
        out["flops_pointwise"] = None
        out["unknown"] = out["unknown"] or f"node {node.name} ({name}) has a symbolic size"
    else:
        out["flops_pointwise"] = sum(elements)
    return out


def _eager_key(node: torch.fx.Node) -> tuple:
    sources = node.meta.get("from_node") or []
    root = getattr(sources[0], "name", None) if sources else None
    return (root or node.name, str(node.meta.get("original_aten") or node.target))


def eager_ops(graph: torch.fx.Graph) -> dict:
    """{"of_node": post-grad node name -> eager op key, "ops": key -> {op, bytes, unknown}} over a
    post-grad graph, grouped as the module's docstring says."""
    members: dict = {}
    for node in graph.nodes:
        if node.op == "call_function":
            members.setdefault(_eager_key(node), []).append(node)
    of_node, ops = {}, {}
    for key, nodes in members.items():
        inside = set(nodes)
        of_node.update({n.name: key for n in nodes})
        originals = [n.meta.get("original_aten") or n.target for n in nodes]
        if all(_is_view(t) or t is operator_getitem for t in originals):
            ops[key] = {"op": key[1], "bytes": 0, "unknown": None}
            continue
        reads = {a: None for n in nodes for a in n.all_input_nodes if a not in inside}
        writes = [n for n in nodes if any(u not in inside for u in n.users)]
        tensors = [t for n in list(reads) + writes for t in _tensors(_val(n))]
        if any(_val(n) is None for n in list(reads) + writes):
            ops[key] = {"op": key[1], "bytes": None, "unknown": f"eager op {key[1]} ({key[0]}): shapes unknown"}
            continue
        size = _bytes_of(tensors)
        ops[key] = {"op": key[1], "bytes": size,
                    "unknown": None if size is not None else f"eager op {key[1]} ({key[0]}) has a symbolic size"}
    return {"of_node": of_node, "ops": ops}


def buffer_accesses(snode) -> dict:
    """{reads: {buffer: bytes}, writes: {buffer: bytes}, unknown} of one basic scheduler node, by
    Inductor's own accounting (needs V.graph: call from inside the scheduler's hooks)."""
    try:
        reads = snode.get_read_write_buffer_accesses(include_reads=True, include_writes=False)
        writes = snode.get_read_write_buffer_accesses(include_reads=False, include_writes=True)
        return {"reads": {k: int(v) for k, v in reads.items()}, "writes": {k: int(v) for k, v in writes.items()},
                "unknown": None}
    except Exception as exc:
        return {"reads": {}, "writes": {}, "unknown": f"Inductor's buffer sizes of {snode.get_name()} raised {exc!r}"}


def _sum(values):
    return None if any(v is None for v in values) else sum(values)


def eager_sharing(groups: list, eager: dict) -> dict:
    """Eager op key -> how many kernel groups hold a piece of it."""
    count: dict = {}
    for group in groups:
        for key in {eager["of_node"][n] for n in group.get("provenance") or [] if n in eager["of_node"]}:
            count[key] = count.get(key, 0) + 1
    return count


def _eager_bytes(names, eager: dict, sharing: dict | None) -> tuple:
    """(bytes, unknown reasons) of the eager ops the post-grad nodes `names` came from."""
    keys = dict.fromkeys(eager["of_node"][n] for n in names if n in eager["of_node"])
    ops = [(key, eager["ops"][key]) for key in keys]
    unknown = [op["unknown"] for _, op in ops if op["unknown"]]
    if unknown:
        return None, unknown
    return sum(op["bytes"] / (sharing.get(key, 1) if sharing else 1) for key, op in ops), []


def group_cost(group: dict, accesses: dict, origin_costs: dict, eager: dict, sharing: dict,
               removed: set) -> dict:
    """The `cost` of one kernel group (graph-schema.json): its nodes' accesses joined as the
    module's docstring says, its provenance nodes' FLOPs and their eager ops' bytes."""
    unknown = []
    reads, writes = {}, {}
    for node in group["nodes"]:
        access = accesses.get(node)
        if access is None:
            unknown.append(f"no buffer sizes recorded for {node}")
            continue
        if access["unknown"]:
            unknown.append(access["unknown"])
        for name, size in access["reads"].items():
            reads[name] = max(reads.get(name, 0), size)
        for name, size in access["writes"].items():
            writes[name] = max(writes.get(name, 0), size)
    known_bytes = not unknown and bool(group["nodes"])
    if not group["nodes"]:
        unknown.append("the kernel matched no scheduler nodes")
    read = sum(size for name, size in reads.items() if name not in writes)
    written = sum(size for name, size in writes.items() if name not in removed)
    provenance = list(dict.fromkeys(group.get("provenance") or []))
    costs = [origin_costs[name] for name in provenance if name in origin_costs]
    missing = [name for name in provenance if name not in origin_costs]
    if missing:
        unknown.append(f"provenance node(s) {', '.join(missing[:3])} not in the post-grad graph")
    unknown += [c["unknown"] for c in costs if c["unknown"]]
    computes_matrix = group.get("kind") in ("extern_kernel", "template")
    matrix = _sum([c["flops_matrix"] for c in costs]) if computes_matrix else 0
    pointwise = _sum([c["flops_pointwise"] for c in costs])
    eager_bytes, eager_unknown = _eager_bytes(provenance, eager, sharing)
    unknown += eager_unknown
    dtypes = ([c["dtype"] for c in costs if c["flops_matrix"] and computes_matrix]
              or [c["dtype"] for c in costs if c["dtype"]])
    return {"bytes": read + written if known_bytes else None,
            "bytes_read": read if known_bytes else None, "bytes_written": written if known_bytes else None,
            "bytes_source": "inductor_buffers",
            "flops": None if matrix is None or pointwise is None or missing else matrix + pointwise,
            "flops_matrix": matrix, "flops_pointwise": pointwise,
            "eager_bytes": None if missing or eager_bytes is None else round(eager_bytes),
            "dtype": dtypes[0] if dtypes else None,
            "unknown_reason": "; ".join(dict.fromkeys(unknown)) or None}


def stage_cost(groups: list, origin_costs: dict, eager: dict) -> dict:
    """The post-fusion stage's totals per call: every kernel's bytes, and the eager bytes and
    FLOPs of the nodes they came from, each eager op and node once."""
    kernels = [g for g in groups if g.get("cost")]
    names = list(dict.fromkeys(n for g in kernels for n in g.get("provenance") or []))
    costs = [origin_costs[n] for n in names if n in origin_costs]
    unknown = [g["id"] for g in kernels if g["cost"]["bytes"] is None]
    eager_bytes, _ = _eager_bytes(names, eager, None)
    return {"bytes": _sum([g["cost"]["bytes"] for g in kernels]),
            "eager_bytes": None if eager_bytes is None else round(eager_bytes),
            "flops_matrix": _sum([c["flops_matrix"] for c in costs]),
            "flops_pointwise": _sum([c["flops_pointwise"] for c in costs]),
            "unknown_reason": f"bytes unknown for kernel(s) {', '.join(unknown[:5])}" if unknown else None}
