"""Stage capture in training mode: the backward graphs as well as the forward ones.

With parameters that need gradients, AOTAutograd traces a joint graph for each Dynamo graph and
partitions it into a forward and a backward graph. The forward graph is compiled while the
backend handles the Dynamo graph (the forward stages of session.py). The backward graph is
compiled lazily, the first time autograd runs it (torch/_functorch/_aot_autograd/
runtime_wrappers.py, "Backward graph lazy lowering"), i.e. inside the first loss.backward(), long
after the capturing backend returned; with dynamic shapes that save symbolic sizes for the
backward it is compiled right after the forward graph instead.

Telling the backward compile apart and finding its Dynamo graph:
- torch._functorch._aot_autograd.logging_utils.graph_being_compiled is ["<aot id>_backward"]
  while AOTAutograd's backward compiler runs (track_graph_compiling), "<id>_forward" or
  "<id>_inference" for the forward; Inductor's hooks run inside that compiler.
- The lazy compile runs under compile_context(saved_compile_context): CompileContext's compile
  id is the one of the Dynamo frame whose graph is being differentiated, which begin_graph
  recorded for each graph.

Stages: aot_backward (aot_eager: the graph its bw_compiler receives; Inductor:
post_grad_custom_pre_pass in the backward compile), post_grad_backward, pre_fusion_backward and
post_fusion_backward (the same Inductor hooks), each with "pass": "backward". They are sent
when the backward compile has finished: after the training step that triggered it
(finish_backward), or with the forward stages when it happened during the forward compile.
"""
import contextlib
import sys
import traceback

from ..errors import describe
from . import fx_stage, scheduler_stage, stages
from .post_fusion import FusionSnapshot, finish
from .session import CaptureSession, _cache_hits, _debug_dir

BACKWARD = "backward"
EXPECTED_BACKWARD = {"inductor": stages.BACKWARD_ORDER, "aot_eager": ["aot_backward"]}
FORWARD_OF = {"aot_backward": "aot_forward", "post_grad_backward": "post_grad",
              "pre_fusion_backward": "pre_fusion", "post_fusion_backward": "post_fusion"}
NOT_APPLICABLE_BACKWARD = {
    "eager": "the eager backend runs the Dynamo graph as Python: autograd records the backward op by op, "
             "there is no backward graph",
    "aot_eager": "aot_eager runs the AOTAutograd backward graph as Python: no Inductor passes, no fusion",
}


def aot_graph_kind() -> str | None:
    """forward, backward or inference while AOTAutograd compiles a graph, else None."""
    try:
        from torch._functorch._aot_autograd import logging_utils
    except ImportError:
        return None
    for name in list(getattr(logging_utils, "graph_being_compiled", None) or []):
        kind = str(name).rpartition("_")[2]
        if kind in ("forward", "backward", "inference"):
            return kind
    return None


def _compile_id():
    try:
        from torch._guards import CompileContext
        return CompileContext.current_compile_id()
    except Exception:
        return None


def lazy_compile_scope(backend: str):
    """Context for a backward call that may compile the backward lazily. Inductor writes its
    kernel provenance file only inside torch._inductor.debug.reset_provenance_globals(), which
    compile_fx enters around the forward compile but nothing enters around the lazy backward
    compile (torch 2.13): entering it here gives the backward's kernels their names."""
    if backend != "inductor":
        return contextlib.nullcontext()
    try:
        from torch._inductor.debug import reset_provenance_globals
    except ImportError:
        return contextlib.nullcontext()
    return reset_provenance_globals()


class BackwardRecord:
    """What was captured of one Dynamo graph's backward."""

    def __init__(self):
        self.seen = False            # a backward compile of this graph started
        self.forward_kind = None     # "forward" (a backward exists) or "inference", from AOTAutograd
        self.aot_names: set[str] = set()
        self.sent: set[str] = set()
        self.pending: list = []
        self.fusion: list[FusionSnapshot] = []
        self.debug_dirs: list = []
        self.done = False            # stages captured so far were sent
        self.reported = False        # stages never captured were reported as unsupported / failed


def backward_names(stage: dict, code: dict | None, graph: int, part: int) -> tuple[dict, dict | None]:
    """post_fusion.finish() builds a forward post_fusion stage: name it for the backward."""
    stage.update(name="post_fusion_backward", label=stages.STAGES["post_fusion_backward"][0],
                 fusion=stages.fusion_position("post_fusion_backward", True), **{"pass": BACKWARD})
    old = None
    if code is not None:
        old = code["name"]
        base, _, ext = old.partition(".")
        suffix = "" if (graph, part) == (0, 0) else f".{graph}" + (f".{part}" if part else "")
        code.update(name=f"{base}_backward{suffix}.py", stage="post_fusion_backward")
    for group in stage.get("groups", []):
        if old is not None and group.get("code") == old:
            group["code"] = code["name"]
    return stage, code


class TrainingCaptureSession(CaptureSession):
    @property
    def backward_expected(self) -> list[str]:
        return EXPECTED_BACKWARD.get(self.backend, [])

    # -- forward side: remember what each Dynamo graph is -------------------------------------
    def begin_graph(self, gm):
        record = super().begin_graph(gm)
        record.compile_id = _compile_id()
        record.backward = BackwardRecord()
        return record

    def end_graph(self, record, *, restarted: bool = False, error: BaseException | None = None):
        super().end_graph(record, restarted=restarted, error=error)
        backward = getattr(record, "backward", None)
        if not restarted and backward is not None and backward.seen:
            # the backward was compiled together with the forward (dynamic shapes)
            self._finish(record, error)

    def _note_forward_kind(self) -> None:
        record = self.current
        kind = aot_graph_kind()
        if record is not None and kind in ("forward", "inference") and hasattr(record, "backward"):
            record.backward.forward_kind = kind

    def on_aot_forward(self, gm) -> None:
        self._note_forward_kind()
        super().on_aot_forward(gm)

    def on_fx_stage(self, name: str, graph) -> None:
        if aot_graph_kind() == BACKWARD:
            self._on_backward_fx(name + "_backward" if name != "aot_forward" else "aot_backward", graph)
            return
        self._note_forward_kind()
        super().on_fx_stage(name, graph)

    def on_scheduler_stage(self, name: str, snodes) -> None:
        if aot_graph_kind() == BACKWARD:
            self._on_backward_scheduler(name, snodes)
            return
        super().on_scheduler_stage(name, snodes)

    # -- backward side -----------------------------------------------------------------------
    def _record_for_backward(self):
        if self.current is not None and hasattr(self.current, "backward"):
            return self.current
        compile_id = _compile_id()
        for record in reversed(self.graphs):
            if compile_id is not None and getattr(record, "compile_id", None) == compile_id:
                return record
        return None

    def _send_backward(self, record, stage: dict) -> None:
        record.backward.sent.add(stage["name"])
        if self.stages_wanted:
            record.backward.pending.append((stages.BACKWARD_ORDER.index(stage["name"]), "stage", {"stage": stage}))

    def _make(self, name: str, record, **fields) -> dict:
        return stages.make(name, record.index, backend_fuses=self.fuses, **{"pass": BACKWARD}, **fields)

    def _guarded_backward(self, name: str, record, build) -> None:
        if not self.stages_wanted:
            return
        try:
            self._send_backward(record, build())
        except Exception as exc:
            traceback.print_exc(file=sys.stderr)
            self._send_backward(record, self._make(name, record, nodes=[], edges=[], status="failed",
                                                   reason=f"capturing {name} failed: {describe(exc)}"))

    def on_aot_backward(self, gm) -> None:
        """aot_eager's backward compiler (backend_wrapper.py)."""
        self._on_backward_fx("aot_backward", gm.graph)

    def _on_backward_fx(self, name: str, graph) -> None:
        record = self._record_for_backward()
        if record is None or name in record.backward.sent:
            return
        with self.overhead():
            record.backward.seen = True

            def build():
                if name == "aot_backward":
                    origins = fx_stage.origins_in_earlier_graph(graph, record.dynamo_names)
                else:
                    origins = fx_stage.origins_in_same_graph(graph, record.backward.aot_names)
                nodes, edges = fx_stage.nodes_and_edges(graph, origins)
                if name == "aot_backward":
                    record.backward.aot_names = {n["id"] for n in nodes}
                return self._make(name, record, nodes=nodes, edges=edges)
            self._guarded_backward(name, record, build)

    def _on_backward_scheduler(self, name: str, snodes) -> None:
        record = self._record_for_backward()
        if record is None:
            return
        with self.overhead():
            from torch._inductor.virtualized import V
            record.backward.seen = True
            if name == "pre_fusion":
                record.backward.debug_dirs.append(_debug_dir(V))
                part = len(record.backward.debug_dirs) - 1

                def build():
                    nodes, edges = scheduler_stage.nodes_and_edges(snodes)
                    extra = {"part": part} if part else {}
                    return self._make("pre_fusion_backward", record, nodes=nodes, edges=edges, **extra)
                self._guarded_backward("pre_fusion_backward", record, build)
                return
            try:
                debug_dir = record.backward.debug_dirs[-1] if record.backward.debug_dirs else _debug_dir(V)
                record.backward.fusion.append(FusionSnapshot(snodes, debug_dir, V.graph))
            except Exception as exc:
                traceback.print_exc(file=sys.stderr)
                self._send_backward(record, self._make("post_fusion_backward", record, nodes=[], edges=[],
                                                       status="failed", reason=f"capturing post_fusion_backward "
                                                       f"failed: {describe(exc)}"))

    def _finish(self, record, error: BaseException | None = None) -> None:
        """Assemble post_fusion_backward (code exists now) and send what was captured."""
        state = record.backward
        with self.overhead():
            for part, snapshot in enumerate(state.fusion if error is None else []):
                try:
                    stage, code = backward_names(*finish(snapshot, record.index, part, self.code_wanted),
                                                 record.index, part)
                except Exception as exc:
                    traceback.print_exc(file=sys.stderr)
                    stage, code = self._make("post_fusion_backward", record, nodes=[], edges=[], status="failed",
                                             reason=f"capturing post_fusion_backward failed: {describe(exc)}"), None
                self._send_backward(record, stage)
                if code is not None:
                    state.pending.append((stages.BACKWARD_ORDER.index("post_fusion_backward") + 0.5, "code", code))
            state.fusion.clear()
            if error is not None:
                self._report_backward(record, error)
            self._flush_backward(record)
            state.done = True

    def _flush_backward(self, record) -> None:
        for _, kind, fields in sorted(record.backward.pending, key=lambda item: item[0]):
            self.channel.send(kind, **fields)
            if kind == "stage":
                self.on_capture(f"captured {fields['stage']['name']} of graph {record.index}")
        record.backward.pending.clear()

    def finish_backward(self, error: BaseException | None = None, *, final: bool = True) -> None:
        """After a training step: send the backward stages compiled during it; with `final`,
        report the backward stages of every graph that has none (unsupported, with the reason,
        or failed when `error` stopped the compile)."""
        for record in list(self.graphs):
            state = getattr(record, "backward", None)
            if state is None:
                continue
            if state.seen and state.fusion or state.pending:
                self._finish(record, error)
            if final and not state.reported:
                with self.overhead():
                    self._report_backward(record, error)
                    self._flush_backward(record)

    def _report_backward(self, record, error: BaseException | None) -> None:
        state = record.backward
        state.reported = True
        expected = self.backward_expected
        cached = _cache_hits() > record.cache_hits_before
        for name in stages.BACKWARD_ORDER:
            if name in state.sent:
                continue
            if name in expected and error is not None and state.forward_kind != "inference":
                self._send_backward(record, self._make(name, record, nodes=[], edges=[], status="failed",
                                                       reason=f"not reached: {describe(error)}"))
                continue
            if name not in expected:
                reason = NOT_APPLICABLE_BACKWARD.get(self.backend) or (
                    f"FuseScope captures AOTAutograd and Inductor stages for aot_eager and inductor only; "
                    f"backend {self.backend} compiles the Dynamo graph its own way")
            elif state.forward_kind == "inference":
                reason = (f"AOTAutograd compiled graph {record.index} for inference: none of its outputs needs a "
                          "gradient, so it has no backward graph")
            elif FORWARD_OF[name] in self.unsupported_hooks:
                reason = f"unsupported in this torch: {self.unsupported_hooks[FORWARD_OF[name]]}"
            elif cached:
                reason = ("served from the compile cache (options.cache = warm), so no compiler pass ran "
                          "for this graph")
            elif not state.seen:
                reason = f"the backward of graph {record.index} was not compiled during the training steps"
            else:
                reason = f"the {self.backend} backend never handed this backward graph to the {FORWARD_OF[name]} hook"
            self._send_backward(record, self._make(name, record, nodes=[], edges=[], status="unsupported",
                                                   reason=reason))
