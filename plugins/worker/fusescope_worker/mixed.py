"""Mixed runs: `"backend": "mixed"` with `workload.assign` = {qualified submodule: backend}
(docs/protocol.md "workload", docs/workloads.md "Mixed backends").

Each assigned submodule is compiled with its own backend by `torch.compile(submodule, ...)`; the
rest of the model runs eager. The model the user gave is not touched: the compiled model is a
shallow copy of the modules on the path from the root to each assigned submodule (they share
every parameter, buffer and untouched child with the original), with the assigned submodule
replaced by its OptimizedModule. Eager timing and the accuracy reference use the original.

Capture: every part has its own CaptureSession (its backend decides which stages exist), but the
graph list is shared, so graph indices are unique over the whole run and the C++ side, which
keys stages by name and graph, keeps them apart. Each stage and code message of a part also
carries `module` (the part's name), `backend` and `mode`; node `module` paths are made relative to
the root (Dynamo sees the part as `L['self']`, so `attn.qkv` inside `blocks.0` becomes
`blocks.0.attn.qkv`).

Per-part compile time: forward pre/post hooks on each part's OptimizedModule (outside Dynamo)
time the part's invocations during the whole model's first compiled call, with a device
synchronize on both ends, and subtract the capture overhead its session spent meanwhile: the
same definition as the whole run's compile_s (Dynamo tracing + the backend's compile + one run
of the part). The hooks count graph breaks too, and are removed after that first call.

Dynamo keys its cache by code object: parts of the same class (blocks.0 and blocks.1) share one
`forward`, so the second part is a recompile of the first's frame (a BACKEND_MATCH guard failure).
More than recompile_limit such parts would silently run eager; the limit is raised by the number
of parts for the mixed compile so every part compiles.
"""
import copy
import time

import torch
import torch._dynamo

from . import backends, shapes
from .capture.session import CaptureSession
from .compile_timing import (
    FirstCall,
    capturing_backend,
    compile_module,
    compile_with_capture,
    enter_inductor_capture,
    plain_compiles,
)
from .errors import BAD_REQUEST, COMPILE_FAILED, RUN_FAILED, WorkerError, describe
from .modules import top_level

# Names FuseScope runs that are not torch.compile backends.
NOT_TORCH_COMPILE = {
    "tvm": "run by FuseScope through TVM Relax (torch.export)",
    "torchscript": "a LibTorch in-process backend (TorchScript)",
    "torchscript_nnc": "a LibTorch in-process backend (TorchScript + NNC)",
    "aot_inductor": "ahead-of-time compilation of an exported program (LibTorch)",
    "mixed": "the assignment itself",
}


class Part:
    def __init__(self, name: str, label: str, backend: str, mode: str | None):
        self.name = name
        self.label = label          # as assigned: inductor@max-autotune
        self.backend = backend
        self.mode = mode
        self.session = None
        self.timing = False
        self.calls = 0
        self.first_call_ns = 0
        self.overhead_ns = 0
        self.graph_breaks = 0
        self._enter = None

    def entry(self) -> dict:
        graphs = getattr(self.session, "part_graphs", None)
        called = self.calls > 0
        first = self.first_call_ns / 1e9 if called else None
        entry = {"module": self.name, "backend": self.backend, "mode": self.mode, "graphs": graphs,
                 "graph_breaks": self.graph_breaks if called else None,
                 "compile_s": max(first - self.overhead_ns / 1e9, 0.0) if called else None,
                 "first_call_s": first, "compile_capture_overhead_s": self.overhead_ns / 1e9 if called else None,
                 "calls": self.calls}
        if not called:
            entry["note"] = "not called during the first compiled call: nothing compiled, no compile time"
        return entry


# -- the request ----------------------------------------------------------------------------
def _assign(request) -> dict | None:
    return request.workload.get("assign")


def split_backend(value: str) -> tuple[str, str | None]:
    """`inductor@max-autotune` -> ("inductor", "max-autotune")."""
    name, _, mode = value.partition("@")
    return name.strip(), (mode.strip() or None)


def check_request(request) -> None:
    """Request-level checks (before the model loads): shape of `assign`, and every backend a
    registered, available torch.compile backend. bad_request / backend_unavailable."""
    assign = _assign(request)
    if request.backend != "mixed":
        if assign:
            raise WorkerError(BAD_REQUEST, "request field 'workload.assign' needs \"backend\": \"mixed\" "
                              f"(got \"{request.backend}\")", backend=request.backend)
        return
    if not isinstance(assign, dict) or not assign:
        raise WorkerError(BAD_REQUEST, "backend \"mixed\" needs 'workload.assign': an object "
                          "{\"submodule\": \"backend\", ...} with at least one entry", backend="mixed")
    known = None
    for name, value in assign.items():
        if not isinstance(value, str) or not value.strip():
            raise WorkerError(BAD_REQUEST, f"workload.assign['{name}'] must be a backend name (string)",
                              backend="mixed")
        backend, mode = split_backend(value)
        if backend in NOT_TORCH_COMPILE:
            raise WorkerError(BAD_REQUEST, f"workload.assign['{name}'] = '{value}': {backend} is not a "
                              f"torch.compile backend ({NOT_TORCH_COMPILE[backend]}); assign torch.compile "
                              "backends only",
                              backend="mixed")
        known = known or backends.names()
        if backend not in known:
            raise WorkerError(BAD_REQUEST, f"workload.assign['{name}'] = '{value}': '{backend}' is not a "
                              f"torch.compile backend (torch {torch.__version__} knows: {', '.join(known)})",
                              backend="mixed")
        if mode is not None and backend != "inductor":
            raise WorkerError(BAD_REQUEST, f"workload.assign['{name}'] = '{value}': a mode (@{mode}) "
                              "applies to inductor only", backend="mixed")
        if mode is not None:
            modes = _inductor_modes()
            if modes and mode not in modes:
                raise WorkerError(BAD_REQUEST, f"workload.assign['{name}'] = '{value}': unknown inductor mode "
                                  f"'{mode}' (known: {', '.join(modes)})", backend="mixed")
        backends.check(backend, request.device)  # backend_unavailable with the reason


def _inductor_modes() -> list[str]:
    try:
        from torch._inductor import list_mode_options
        return list(list_mode_options())
    except Exception:
        return []


def resolve(assign: dict, module: torch.nn.Module) -> list[Part]:
    """Parts for the model; bad_request for names the model lacks and for overlapping names."""
    named = {name for name, _ in module.named_modules(remove_duplicate=False) if name}
    for name in assign:
        if name not in named:
            tops = top_level(module)
            raise WorkerError(BAD_REQUEST, f"workload.assign: the model has no submodule '{name}' "
                              f"(top-level submodules: {', '.join(tops) or 'none'})", backend="mixed")
    modules = dict(module.named_modules(remove_duplicate=False))
    for name in assign:
        if type(modules[name]).forward is torch.nn.Module.forward:  # ModuleList, ModuleDict: never called
            children = [f"{name}.{child}" for child, _ in modules[name].named_children()]
            raise WorkerError(BAD_REQUEST, f"workload.assign: '{name}' is a {type(modules[name]).__name__}, a "
                              f"container the model iterates but never calls; assign its elements "
                              f"({', '.join(children[:8]) or 'none'})", backend="mixed")
    names = sorted(assign)
    for outer in names:
        for inner in names:
            if inner != outer and inner.startswith(outer + "."):
                raise WorkerError(BAD_REQUEST, f"workload.assign: '{outer}' and '{inner}' overlap ('{inner}' is "
                                  f"inside '{outer}'); assign one of them", backend="mixed")
    parts = []
    for name, value in assign.items():  # request order
        backend, mode = split_backend(value)
        parts.append(Part(name, value, backend, mode))
    return parts


# -- building the mixed model -------------------------------------------------------------
def _shallow(module: torch.nn.Module) -> torch.nn.Module:
    clone = copy.copy(module)
    clone._modules = module._modules.copy()
    return clone


def build(root: torch.nn.Module, parts: list[Part], wrap) -> torch.nn.Module:
    """A copy of `root` in which each part's submodule is replaced by wrap(part, submodule)."""
    new_root = _shallow(root)
    cloned = {id(new_root)}
    for part in parts:
        path = part.name.split(".")
        parent = new_root
        for key in path[:-1]:
            child = parent._modules[key]
            if id(child) not in cloned:
                child = _shallow(child)
                cloned.add(id(child))
                parent._modules[key] = child
            parent = child
        parent._modules[path[-1]] = wrap(part, parent._modules[path[-1]])
    return new_root


def _part_options(options: dict, part: Part, dynamic) -> dict:
    return {**options, "mode": part.mode, "dynamic": dynamic,
            "inductor": options.get("inductor") if part.backend == "inductor" else {}}


class PartSession(CaptureSession):
    """A part's capture session: its own backend's stages, indices from the shared graph list,
    and every stage and code message labelled with the part."""

    def __init__(self, channel, part: Part, graphs: list, **kwargs):
        super().__init__(channel, part.backend, **kwargs)
        self.graphs = graphs
        self.part = part
        self.part_graphs = 0

    def begin_graph(self, gm):
        record = super().begin_graph(gm)
        self.part_graphs += 1
        return record

    def end_graph(self, record, *, restarted: bool = False, error=None):
        if restarted:
            self.part_graphs -= 1
        super().end_graph(record, restarted=restarted, error=error)

    def _flush(self, record):
        labels = {"module": self.part.name, "backend": self.part.backend, "mode": self.part.mode}
        for _, kind, fields in record.pending:
            if kind == "stage":
                stage = fields["stage"]
                stage.update(labels)
                for node in stage.get("nodes", []):
                    inner = node.get("module") or ""
                    if inner:  # a parameter placeholder carries its module too
                        node["module"] = f"{self.part.name}.{inner}"
                    elif node.get("kind") not in ("placeholder", "output"):
                        node["module"] = self.part.name  # an op in the part's own forward
            else:
                fields.update(labels)
        super()._flush(record)


class Router:
    """Inductor's hooks report to one recorder; this one hands them to the part compiling now."""

    def __init__(self, sessions):
        self.sessions = sessions

    def _active(self):
        return next((s for s in self.sessions if s.current is not None), None)

    def on_fx_stage(self, name, graph):
        session = self._active()
        if session is not None:
            session.on_fx_stage(name, graph)

    def on_scheduler_stage(self, name, nodes):
        session = self._active()
        if session is not None:
            session.on_scheduler_stage(name, nodes)


class MixedSession:
    """What run.py reads from a session, summed over the parts."""

    def __init__(self, parts: list[Part], graphs: list):
        self.parts = parts
        self.graphs = graphs

    @property
    def compiles_after_first_call(self) -> int:
        return sum(p.session.compiles_after_first_call for p in self.parts)

    @property
    def compile_error(self):
        return next((p.session.compile_error for p in self.parts if p.session.compile_error is not None), None)

    @property
    def overhead_ns(self) -> int:
        return sum(p.session.overhead_ns for p in self.parts)


def _break_count() -> int:
    from torch._dynamo.utils import counters
    return sum(counters["graph_break"].values())


def _install_timing(part: Part, module: torch.nn.Module, sync) -> list:
    def pre(_module, _args):
        if part.timing:
            sync()
            part._enter = (time.perf_counter_ns(), part.session.overhead_ns, _break_count())

    def post(_module, _args, _output):
        if part.timing and part._enter is not None:
            sync()
            start, overhead, breaks = part._enter
            part.first_call_ns += time.perf_counter_ns() - start
            part.overhead_ns += part.session.overhead_ns - overhead
            part.graph_breaks += _break_count() - breaks
            part.calls += 1
            part._enter = None
    return [module.register_forward_pre_hook(pre), module.register_forward_hook(post)]


def _wrap(part: Part, submodule, options: dict, sync, hooks: list):
    backend = capturing_backend(part.backend, _part_options(options, part, options["dynamic"]), part.session,
                                label=f"{part.label} (part {part.name})", error_backend="mixed")
    compiled = compile_module(submodule, backend, options)
    hooks.extend(_install_timing(part, compiled, sync))
    return compiled


def _first_call(run, parts: list[Part], hooks: list, model) -> None:
    """The mixed model's first call with the parts' timing hooks on, removed afterwards."""
    for part in parts:
        part.timing = True
    try:
        run.loaded(model)
    except Exception as exc:
        raise _first_call_error(run, parts, exc) from exc
    finally:
        for part in parts:
            part.timing = False
        for handle in hooks:
            handle.remove()


def compile(run, stack, sync):
    """Timed and warm plain compiles of the mixed model, then the capturing one, measured
    (compile_timing.py); records the result's compile times, assign and parts (per-part times are
    the timed compile's) through run.record()."""
    request, options = run.request, run.request.options
    assign = _assign(request)
    parts = resolve(assign, run.loaded.module)
    run.progress("compile", 0.0, "compiling " + ", ".join(f"{p.name} with {p.label}" for p in parts)
                 + " (first call; the rest eager)")
    stack.enter_context(torch._dynamo.config.patch(recompile_limit=_recompile_limit() + len(parts)))
    run.record(assign=dict(assign), parts=None)
    timed_parts: list[dict] = []
    captured: list[dict] = []  # the capturing compile's parts
    plain = {}

    def make_plain():
        plain["parts"] = resolve(assign, run.loaded.module)
        plain["hooks"] = []
        for part in plain["parts"]:
            part.session = shapes.quiet_session(part.backend)
        run.use_session(MixedSession(plain["parts"], []))
        return build(run.loaded.module, plain["parts"], lambda part, sub: _wrap(part, sub, options, sync,
                                                                                 plain["hooks"]))

    def call(model):
        _first_call(run, plain["parts"], plain["hooks"], model)
        if not timed_parts:
            timed_parts.extend(p.entry() for p in plain["parts"])
    compiled = compile_with_capture(run, stack, lambda kinds: plain_compiles(sync, make_plain, call, kinds),
                                    lambda timed: _capture_compile(run, stack, sync, parts, captured, timed),
                                    {p.backend for p in parts})
    if not timed_parts:  # one compile: the capturing compile was the timed one
        return compiled
    timed = {entry["module"]: entry for entry in timed_parts}
    run.record(parts=[{**entry, **{key: timed[entry["module"]][key] for key in ("compile_s", "first_call_s")}}
                      if entry["module"] in timed else entry for entry in captured])
    return compiled


def _capture_compile(run, stack, sync, parts: list[Part], captured: list, timed: bool):
    capture = run.request.capture
    graphs: list = []
    stages_wanted, code_wanted = bool(capture.get("stages", True)), bool(capture.get("code", True))
    for part in parts:
        part.session = PartSession(run.channel, part, graphs, stages_wanted=stages_wanted, code_wanted=code_wanted,
                                   on_capture=lambda message: run.progress("capture", 0.5, message),
                                   cache=run.scratch.cache)
    sessions = [p.session for p in parts]
    enter_inductor_capture(stack, {p.backend for p in parts}, sessions, Router(sessions), run.scratch.trace_dir,
                           run.wants_trace)
    session = MixedSession(parts, graphs)
    run.use_session(session)
    hooks = []
    model = build(run.loaded.module, parts, lambda part, sub: _wrap(part, sub, run.request.options, sync, hooks))
    first = FirstCall()
    try:
        with first.timed(sync):
            _first_call(run, parts, hooks, model)
    finally:
        run.record_graphs()
        captured[:] = [p.entry() for p in parts]
        run.record(parts=list(captured))  # a failed first call reports the parts as they stand
    for part_session in sessions:
        part_session.first_call_done = True
    run.record(compile_capture_overhead_s=session.overhead_ns / 1e9)
    if timed:
        run.record(compile_s=first.seconds, first_call_s=first.seconds, compile_breakdown=first.phases,
                   compile_breakdown_graphs=first.graphs)
    else:
        run.record(capture_s=first.seconds)
    return model


def _recompile_limit() -> int:
    return shapes.recompile_limit() or 8


def _first_call_error(run, parts: list[Part], exc: Exception) -> WorkerError:
    from torch._dynamo.exc import TorchDynamoException
    failing = next((p for p in parts if p.session.compile_error is not None), None)
    if failing is None and isinstance(exc, TorchDynamoException):
        failing = next((p for p in parts if p._enter is not None), None)
    if failing is not None or isinstance(exc, TorchDynamoException):
        inner = failing.session.compile_error if failing is not None else None
        cause = inner if inner is not None else exc
        where = f"part {failing.name} with {failing.label}" if failing is not None else "a part"
        return WorkerError(COMPILE_FAILED, f"mixed: compiling {where} of {run.request.model} failed: "
                           f"{describe(cause)}", file=run.loaded.file, backend="mixed")
    return WorkerError(RUN_FAILED, f"{run.request.model} with mixed backends raised when run: {describe(exc)}",
                       file=run.loaded.file, backend="mixed")


def finish(run) -> None:
    """Parts' graph counts as of the end of the run (recompiles while measuring included), so
    they add up to result.graphs."""
    by_name = {p.name: p for p in run.session.parts}
    run.record(parts=[{**entry, "graphs": by_name[entry["module"]].session.part_graphs}
                      for entry in run.result["parts"]])


# -- shape lists on a mixed model ---------------------------------------------------------
def shape_factory(run):
    """make(dynamic) -> (model, tracker) for shapes.run_phase."""
    assign = _assign(run.request)
    options = run.request.options

    def make(dynamic: bool):
        tracker = shapes.Tracker()
        parts = resolve(assign, run.loaded.module)

        def wrap(part, submodule):
            backend = shapes.TrackingBackend(part.backend, _part_options(options, part, dynamic),
                                             shapes.quiet_session(part.backend), tracker)
            return compile_module(submodule, backend, {**options, "dynamic": dynamic})
        return build(run.loaded.module, parts, wrap), tracker
    return make
