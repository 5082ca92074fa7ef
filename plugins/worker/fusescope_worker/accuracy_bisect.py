"""Accuracy bisect: the first FX node where a backend's values leave eager's (docs/accuracy.md).

Runs on request only (capture.bisect_budget_s, `fusescope-cli compare --bisect`, the GUI's
"Bisect accuracy failures"), and only when the accuracy check failed (fail_accuracy or
nonfinite).

Method "intermediate_outputs": for each Dynamo graph the backend received, in compile order, a
copy of that graph returns the value of every node that produces a tensor; that copy is compiled
with the same backend and options, run on the inputs the graph was first called with, and each
node's value is compared with the same node run eagerly (torch.fx.Interpreter) under the rule of
the accuracy check (accuracy.compare: same tolerance, fp64 reference when the graph runs in
float64). The first node in graph order that fails is where the backend diverges: a node after
it that differs only because its input differs comes later in the order. One compile per graph;
the budget is checked before each compile (one compile is not interrupted).

The node is then named as the capture saw it: its op, module (nn_module_stack) and source line
(stack_trace), and the kernel(s) of the *measured* compile that contain it, following the
provenance the stages record: Dynamo node -> AOTAutograd nodes (origins) -> post-grad nodes
(origins) -> post-fusion kernel groups (Inductor's provenance records).
"""
import time

import torch
import torch.fx

from . import accuracy
from .capture.backend_wrapper import _delegate, keep_graph
from .capture.node_info import module_of, op_name, source_of
from .errors import describe

METHOD = "intermediate_outputs"
DEFAULT_BUDGET_S = 120.0
FAILED = ("fail_accuracy", "nonfinite")


def budget_of(request) -> float | None:
    """Seconds the bisect may take, or None when it was not asked for."""
    value = (getattr(request, "capture", None) or {}).get("bisect_budget_s")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return None
    return float(value)


keep = keep_graph  # the capturing backend keeps each graph for the bisect (capture/backend_wrapper.py)


class _Recorder(torch.fx.Interpreter):
    """Runs a graph eagerly and keeps each node's tensor value, cloned (a later in-place op
    cannot change it)."""

    def __init__(self, gm):
        super().__init__(gm)
        self.values = {}

    def run_node(self, n):
        value = super().run_node(n)
        if isinstance(value, torch.Tensor) and n.op not in ("placeholder", "get_attr", "output"):
            self.values[n.name] = value.detach().clone()
        return value


def _eager_values(gm, inputs) -> dict:
    recorder = _Recorder(gm)
    recorder.run(*inputs)
    return recorder.values


def _fp64_values(gm, inputs) -> dict:
    """The same in float64 (floating inputs and parameters); {} when the graph cannot run so."""
    try:
        doubled = [t.double() if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in inputs]
        with torch.autocast("cpu", enabled=False):
            return _eager_values(gm, doubled)
    except Exception:  # a graph that does not run in fp64 gets the allclose rule alone
        return {}


def probe_module(gm, names: list[str]) -> torch.fx.GraphModule:
    """A copy of gm whose output is the tuple of the values of the nodes `names`."""
    graph = torch.fx.Graph()
    env = {}
    for node in gm.graph.nodes:
        if node.op == "output":
            continue
        env[node] = graph.node_copy(node, lambda n: env[n])
    graph.output(tuple(env[n] for n in gm.graph.nodes if n.name in set(names)))
    return torch.fx.GraphModule(gm, graph)


def _call(compiled, inputs):
    """As Dynamo calls what a backend returned: unboxed (a `_boxed_call` flag is AOTAutograd's
    inner convention, not the backend's)."""
    return compiled(*inputs)


def _finite_pattern_equal(e: torch.Tensor, c: torch.Tensor) -> bool:
    return bool(torch.equal(torch.isnan(e), torch.isnan(c)) and torch.equal(torch.isinf(e) & (e > 0),
                                                                          torch.isinf(c) & (c > 0))
                and torch.equal(torch.isinf(e) & (e < 0), torch.isinf(c) & (c < 0)))


def node_verdict(eager: torch.Tensor, compiled, fp64, options: dict) -> dict:
    """accuracy.compare on one node's value. Non-finite values at the same places on both sides
    (an attention mask's -inf) are not a divergence: then the finite values are compared."""
    if (isinstance(compiled, torch.Tensor) and eager.is_floating_point() and compiled.shape == eager.shape
            and compiled.dtype == eager.dtype and not bool(torch.isfinite(eager).all())):
        compiled = compiled.detach().cpu()
        if _finite_pattern_equal(eager.cpu(), compiled):
            keep_mask = torch.isfinite(eager.cpu())
            eager, compiled = eager.cpu()[keep_mask], compiled[keep_mask]
            if isinstance(fp64, torch.Tensor) and fp64.shape == keep_mask.shape:
                fp64 = fp64.cpu()[keep_mask]
    return accuracy.compare(eager, compiled, fp64, **options)


def first_diverging(gm, inputs, compile_fn, options: dict) -> tuple[dict | None, int]:
    """(the first diverging node of gm as {node, verdict}, or None; compiles made)."""
    eager = _eager_values(gm, inputs)
    names = [n.name for n in gm.graph.nodes if n.name in eager]
    if not names:
        return None, 0
    fp64 = _fp64_values(gm, inputs)
    compiled = compile_fn(probe_module(gm, names), list(inputs))
    outputs = _call(compiled, inputs)
    for name, value in zip(names, outputs):
        verdict = node_verdict(eager[name], value, fp64.get(name), options)
        if verdict["status"] in FAILED:
            node = next(n for n in gm.graph.nodes if n.name == name)
            return {"node": node, "verdict": verdict}, 1
    return None, 1


def _origins(stage: dict | None) -> list[dict]:
    return stage["nodes"] if stage and isinstance(stage.get("nodes"), list) else []


def kernels_of(stages: list[dict], node_name: str) -> list[str]:
    """The post-fusion kernels (group names) that contain a Dynamo node, through the origins the
    stages record. Empty when the backend has no such stages (or they were not captured)."""
    by_name = {}
    for stage in stages:
        by_name.setdefault(stage.get("name"), []).append(stage)
    aot = {n["id"] for s in by_name.get("aot_forward", []) for n in _origins(s)
           if node_name in (n.get("origins") or [])}
    post = {n["id"] for s in by_name.get("post_grad", []) for n in _origins(s)
            if aot & set(n.get("origins") or [])} or aot
    kernels = []
    for stage in by_name.get("post_fusion", []):
        for group in sorted(stage.get("groups") or [], key=lambda g: g.get("handle") or 0):
            if post & set(group.get("provenance") or []) and group["name"] not in kernels:
                kernels.append(group["name"])
    return kernels


def describe_node(node, graph_index: int, verdict: dict, stages: list[dict]) -> dict:
    module, module_type = module_of(node)
    source = source_of(node.meta.get("stack_trace")) or {}
    kernels = kernels_of(stages, node.name)
    found = {"node": node.name, "graph": graph_index, "stage": "dynamo_fx", "op": op_name(node),
             "kernel": kernels[0] if kernels else None, "kernels": kernels, "module": module or None,
             "module_type": module_type or None, "file": source.get("file"), "line": source.get("line"),
             "code": source.get("code"), "max_abs": verdict.get("max_abs"), "max_rel": verdict.get("max_rel"),
             "status": verdict.get("status")}
    return {k: v for k, v in found.items() if v is not None}


def run(session, compile_fn, options: dict, budget_s: float, progress=lambda message: None) -> dict:
    """first_divergence for a compile whose graphs the session kept (keep()); `compile_fn(gm,
    inputs)` compiles a graph as the measured compile did; `options`: accuracy.compare's."""
    start, compiles = time.perf_counter(), 0
    result = {"method": METHOD, "budget_s": budget_s, "budget_exhausted": False}

    def finish(**fields):
        result.update(fields, compiles=compiles, seconds=time.perf_counter() - start)
        return result

    graphs = [r for r in getattr(session, "graphs", []) if getattr(r, "bisect_graph", None) is not None]
    if not graphs:
        return finish(reason="no FX graph of this compile was kept to bisect")
    for record in graphs:
        if time.perf_counter() - start > budget_s:
            return finish(budget_exhausted=True,
                          reason=f"the budget of {budget_s:g} s ran out before graph {record.index} was compiled")
        progress(f"bisect: graph {record.index} with every intermediate value as an output")
        gm, inputs = record.bisect_graph
        try:
            found, made = first_diverging(gm, inputs, compile_fn, options)
        except Exception as exc:
            compiles += 1
            return finish(reason=f"graph {record.index} with its intermediate values as outputs could not be "
                          f"compiled and run: {describe(exc)}")
        compiles += made
        if found is not None:
            return finish(**describe_node(found["node"], record.index, found["verdict"],
                                          getattr(record, "kept_stages", [])))
    return finish(reason="no intermediate value differed from eager with every node's value an output of its "
                  "graph: the divergence depends on how the measured compile fused the graph")


def release(session) -> None:
    """Drop the kept graphs and inputs (they hold tensors). Only a capturing session that kept
    graphs has them: other compilers' sessions (TVM's) hold graphs of another kind, left alone."""
    if not getattr(session, "keep_graphs", False):
        return
    for record in getattr(session, "graphs", None) or []:
        if hasattr(record, "bisect_graph"):
            record.bisect_graph = None
            record.kept_stages = []


def after_accuracy(run_) -> None:
    """The hook of run.py, after the accuracy check: bisect when it was asked for and the check
    failed; `accuracy.first_divergence` then holds the answer (docs/protocol.md)."""
    budget = budget_of(run_.request)
    verdict = run_.result.get("accuracy")
    session = run_.session
    try:
        if budget is None or not verdict or verdict.get("status") not in FAILED:
            return
        if not getattr(session, "keep_graphs", False):
            verdict["first_divergence"] = {
                "method": METHOD, "budget_s": budget, "budget_exhausted": False, "compiles": 0, "seconds": 0.0,
                "reason": f"the bisect covers runs of one torch.compile backend on the FX graphs Dynamo hands "
                          f"it (inductor, aot_eager, ...); {run_.backend} runs are not bisected"}
            return
        from . import precision
        delegate = _delegate(run_.backend, run_.request.options, session)
        run_.progress("accuracy", 1.0, "bisecting the accuracy failure")
        verdict["first_divergence"] = run(session, delegate, precision.accuracy_options(run_.request), budget,
                                          lambda message: run_.progress("accuracy", 1.0, message))
    finally:
        release(session)
