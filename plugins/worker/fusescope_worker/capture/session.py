"""Collects the stages of one compile and sends them graph by graph.

The capturing backend opens a GraphRecord per Dynamo graph; Inductor's hooks and the
aot_eager forward compiler report into the open record. A graph's stages are sent when the
backend has finished that graph: Dynamo may abandon a graph halfway (RestartAnalysis, e.g.
with dynamic shapes) and trace it again, and the protocol cannot take a stage back. Time spent
here is summed as capture overhead, so it can be taken out of the compile time.
"""
import copy
import sys
import time
import traceback
from contextlib import contextmanager

from torch._dynamo import utils as dynamo_utils
from torch._dynamo.utils import counters

from ..errors import describe
from . import fx_stage, scheduler_stage, stages
from .post_fusion import FusionSnapshot, finish

EXPECTED = {"inductor": stages.ORDER, "aot_eager": ["dynamo_fx", "aot_forward"]}
NOT_APPLICABLE = {
    "eager": "the eager backend runs the Dynamo graph as Python: no AOTAutograd, no Inductor",
    "aot_eager": "aot_eager runs the AOTAutograd graph as Python: no Inductor passes, no fusion",
}


def _cache_hits() -> int:
    return counters["inductor"]["fxgraph_cache_hit"] + counters["aot_autograd"]["autograd_cache_hit"]


class GraphRecord:
    def __init__(self, index: int, dynamo_names: set[str]):
        self.index = index
        self.dynamo_names = dynamo_names
        self.aot_names: set[str] = set()
        self.sent: set[str] = set()
        self.fusion: list[FusionSnapshot] = []
        self.debug_dirs: list[str | None] = []
        self.cache_hits_before = _cache_hits()
        self.pending: list[tuple[float, str, dict]] = []  # (order, message type, fields)
        self.bisect_graph = None  # (graph copy, first inputs) when the bisect is asked for
        self.kept_stages: list[dict] = []
        self.stages: dict[str, dict] = {}  # name -> the stage sent (copy_from_identical)
        self.signature = None  # what makes two graphs one cache entry (signature())


class CaptureSession:
    def __init__(self, channel, backend: str, *, stages_wanted: bool, code_wanted: bool, on_capture=None,
                 cache: str = "cold"):
        self.channel = channel
        self.backend = backend
        self.stages_wanted = stages_wanted
        self.code_wanted = code_wanted
        self.on_capture = on_capture or (lambda message: None)
        self.graphs: list[GraphRecord] = []
        self.current: GraphRecord | None = None
        self.overhead_ns = 0
        self.unsupported_hooks: dict[str, str] = {}
        self.first_call_done = False
        self.compiles_after_first_call = 0
        self.compile_error: BaseException | None = None
        self.keep_graphs = False  # graphs, inputs and stages kept for the accuracy bisect
        self.cache = cache  # the worker's compile cache: "cold" (its own, empty) or "warm" (the user's)

    @property
    def fuses(self) -> bool:
        return self.backend == "inductor"

    @contextmanager
    def overhead(self):
        start = time.perf_counter_ns()
        try:
            yield
        finally:
            self.overhead_ns += time.perf_counter_ns() - start

    def _send(self, record: GraphRecord, stage: dict) -> None:
        record.sent.add(stage["name"])
        record.stages[stage["name"]] = stage
        if self.keep_graphs:  # the accuracy bisect maps a node to its kernel (accuracy_bisect.py)
            record.kept_stages.append(stage)
        if self.stages_wanted:
            record.pending.append((stages.ORDER.index(stage["name"]), "stage", {"stage": stage}))

    def _flush(self, record: GraphRecord) -> None:
        for _, kind, fields in sorted(record.pending, key=lambda item: item[0]):
            self.channel.send(kind, **fields)
            if kind == "stage" and not self.first_call_done:  # later: a recompile while measuring
                self.on_capture(f"captured {fields['stage']['name']} of graph {record.index}")
        record.pending.clear()

    def _guarded(self, name: str, record: GraphRecord, build) -> None:
        """Build and send a stage; a failure in our own capture code never breaks the compile."""
        if not self.stages_wanted:
            return
        try:
            self._send(record, build())
        except Exception as exc:
            traceback.print_exc(file=sys.stderr)
            self._send(record, stages.failed(name, record.index, f"capturing {name} failed: {describe(exc)}",
                                             backend_fuses=self.fuses))

    # -- called by the capturing backend -------------------------------------------------
    def begin_graph(self, gm) -> GraphRecord:
        with self.overhead():
            if self.first_call_done:
                self.compiles_after_first_call += 1
            record = GraphRecord(len(self.graphs), {n.name for n in gm.graph.nodes})
            if self.stages_wanted:
                record.signature = (id(self), signature(gm.graph))  # a mixed run's parts share the list
            # Where graph breaks sit among the graphs (graph_breaks.summary): the break that
            # ended this graph, if any, and how many breaks Dynamo had recorded before it.
            record.break_reason = getattr(gm, "compile_subgraph_reason", None)
            record.reasons_before = len(getattr(dynamo_utils, "graph_break_reasons", []))
            self.graphs.append(record)
            self.current = record

            def build():
                nodes, edges = fx_stage.nodes_and_edges(gm.graph)
                return stages.make("dynamo_fx", record.index, backend_fuses=self.fuses, nodes=nodes, edges=edges)
            self._guarded("dynamo_fx", record, build)
            return record

    def end_graph(self, record: GraphRecord, *, restarted: bool = False, error: BaseException | None = None):
        """The backend is done with the graph: it compiled it, raised `error`, or Dynamo
        abandoned it to trace again (`restarted`: the graph and its stages are dropped)."""
        with self.overhead():
            self.current = None
            if restarted:
                self.graphs.remove(record)
                self.compiles_after_first_call -= int(self.first_call_done)
                return
            for part, snapshot in enumerate(record.fusion if error is None else []):
                try:
                    stage, code = finish(snapshot, record.index, part, self.code_wanted)
                except Exception as exc:
                    traceback.print_exc(file=sys.stderr)
                    stage, code = stages.failed("post_fusion", record.index, f"capturing post_fusion failed: "
                                                f"{describe(exc)}", backend_fuses=True), None
                self._send(record, stage)
                if code is not None:
                    record.pending.append((stages.ORDER.index("post_fusion") + 0.5, "code", code))
            record.fusion.clear()
            self._report_missing(record, error)
            self._flush(record)

    def _report_missing(self, record: GraphRecord, error: BaseException | None) -> None:
        expected = EXPECTED.get(self.backend, ["dynamo_fx"])
        cached = _cache_hits() > record.cache_hits_before
        for name in stages.ORDER:
            if name in record.sent:
                continue
            if name in expected and error is not None:
                self._send(record, stages.failed(name, record.index, f"not reached: the backend raised "
                                                 f"{describe(error)} first", backend_fuses=self.fuses))
                continue
            if name not in expected:
                reason = NOT_APPLICABLE.get(self.backend) or (
                    f"FuseScope captures AOTAutograd and Inductor stages for aot_eager and inductor only; "
                    f"backend {self.backend} compiles the Dynamo graph its own way")
            elif name in self.unsupported_hooks:
                reason = f"unsupported in this torch: {self.unsupported_hooks[name]}"
            elif cached and self.cache == "cold":
                copied = self._copy_from_identical(record, name)
                if copied is not None:
                    self._send(record, copied)
                    continue
                reason = ("served from Inductor's compile cache, filled by an identical graph compiled earlier "
                          "in this run, so no compiler pass ran for this graph")
            elif cached:
                reason = ("served from the compile cache (options.cache = warm), so no compiler pass ran "
                          "for this graph")
            else:
                reason = f"the {self.backend} backend never handed this graph to the {name} hook"
            self._send(record, stages.unsupported(name, record.index, reason, backend_fuses=self.fuses))

    def _copy_from_identical(self, record: GraphRecord, name: str) -> dict | None:
        """The stage `name` of the earlier graph of this compile that is the same graph as
        `record` (signature()), for a graph Inductor's caches served: the timed compile runs with
        the caches on, as a user's does, and an identical graph compiled earlier in the same run
        is a hit there too, so none of the hooks sees it. None when there is no such graph."""
        if record.signature is None:
            return None
        for earlier in self.graphs:
            if earlier is record or earlier.signature != record.signature:
                continue
            stage = earlier.stages.get(name)
            if stage is None or stage.get("status") != "ok":
                continue
            stage = _renamed(copy.deepcopy(stage), earlier.stages.get("dynamo_fx"), record.stages.get("dynamo_fx"))
            stage["graph"] = record.index
            stage["copied_from_graph"] = earlier.index
            stage["reason"] = (f"copied from graph {earlier.index}: Inductor's compile cache served this graph, "
                               f"identical to graph {earlier.index} compiled earlier in this run, so no compiler "
                               "pass ran for it")
            return stage
        return None

    # -- called from inside the backend -------------------------------------------------
    def on_aot_forward(self, gm) -> None:
        record = self.current
        if record is None:
            return
        with self.overhead():
            def build():
                origins = fx_stage.origins_in_earlier_graph(gm.graph, record.dynamo_names)
                nodes, edges = fx_stage.nodes_and_edges(gm.graph, origins)
                record.aot_names = {n["id"] for n in nodes}
                return stages.make("aot_forward", record.index, backend_fuses=self.fuses, nodes=nodes, edges=edges)
            self._guarded("aot_forward", record, build)

    def on_fx_stage(self, name: str, graph) -> None:
        record = self.current
        if record is None or name in record.sent:
            return
        with self.overhead():
            def build():
                if name == "aot_forward":
                    origins = fx_stage.origins_in_earlier_graph(graph, record.dynamo_names)
                else:
                    origins = fx_stage.origins_in_same_graph(graph, record.aot_names)
                nodes, edges = fx_stage.nodes_and_edges(graph, origins)
                if name == "aot_forward":
                    record.aot_names = {n["id"] for n in nodes}
                return stages.make(name, record.index, backend_fuses=self.fuses, nodes=nodes, edges=edges)
            self._guarded(name, record, build)

    def on_scheduler_stage(self, name: str, snodes) -> None:
        record = self.current
        if record is None:
            return
        with self.overhead():
            from torch._inductor.virtualized import V
            if name == "pre_fusion":
                record.debug_dirs.append(_debug_dir(V))
                part = len(record.debug_dirs) - 1

                def build():
                    nodes, edges = scheduler_stage.nodes_and_edges(snodes)
                    extra = {"part": part} if part else {}
                    return stages.make("pre_fusion", record.index, backend_fuses=True, nodes=nodes, edges=edges,
                                       **extra)
                self._guarded("pre_fusion", record, build)
                return
            try:
                debug_dir = record.debug_dirs[-1] if record.debug_dirs else _debug_dir(V)
                record.fusion.append(FusionSnapshot(snodes, debug_dir, V.graph))
            except Exception as exc:
                traceback.print_exc(file=sys.stderr)
                self._send(record, stages.failed("post_fusion", record.index, f"capturing post_fusion failed: "
                                                 f"{describe(exc)}", backend_fuses=True))


def signature(graph) -> tuple:
    """The Dynamo graph's structure: each node's op, target, inputs by position, constants and
    tensor shapes and dtypes, without names. Repeated blocks give graphs with different names
    and the same structure, and so the same AOTAutograd graph and Inductor cache key."""
    import torch.fx
    order = list(graph.nodes)
    index = {node: i for i, node in enumerate(order)}

    def meta(node):
        value = node.meta.get("example_value")
        shape = getattr(value, "shape", None)
        return (tuple(str(d) for d in shape), str(getattr(value, "dtype", ""))) if shape is not None else None

    def arguments(node):
        return repr(torch.fx.node.map_arg((node.args, node.kwargs), lambda arg: ("node", index[arg])))
    return tuple((n.op, str(n.target) if n.op in ("call_function", "call_method") else "", arguments(n), meta(n))
                 for n in order)


def _renamed(stage: dict, earlier: dict | None, this: dict | None) -> dict:
    """A stage copied from an identical earlier graph, its origins and module paths moved onto
    this graph's Dynamo nodes by position (same structure, so the same order)."""
    names, modules = {}, {}
    if earlier is not None and this is not None:
        for old, new in zip(earlier.get("nodes", []), this.get("nodes", [])):
            names[old["id"]] = new["id"]
            if old.get("module") and new.get("module"):
                modules.setdefault(old["module"], new["module"])
    dynamo_origins = stage.get("name") == "aot_forward"  # later stages' origins are AOTAutograd names
    for node in stage.get("nodes", []):
        if dynamo_origins:
            node["origins"] = [names.get(origin, origin) for origin in node.get("origins") or []]
        if node.get("module") in modules:
            node["module"] = modules[node["module"]]
    return stage


def _debug_dir(V) -> str | None:
    """The directory Inductor's DebugContext writes this graph's trace files to."""
    import os
    try:
        return os.path.dirname(V.debug.filename("output_code.py"))
    except (AssertionError, AttributeError):
        return None
