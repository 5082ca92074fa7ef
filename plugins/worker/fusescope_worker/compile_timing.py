"""Compile time as a user pays it, and where it goes (docs/measurement.md "Compile time").

One backend is compiled once, plus a warm recompile (compile_with_capture), each after
torch._dynamo.reset():

1. **timed** (`compile_s`): the compile the report's stages, code and kernel names come from, and
   whose compiled model is measured, first in the process, in the worker's own empty cache with
   the caches on, as a user's first compile. Its first call is the user's first call; the
   capture's cost (FuseScope's hooks, Inductor's output code and provenance) is inside it and
   measured against a plain torch.compile first call in alternating pairs (docs/measurement.md).
2. **warm** (`warm_compile_s`): the same compile again with Inductor's in-memory caches cleared
   (torch._inductor.utils.clear_caches(), as torch's fresh_cache() does) and the on-disk cache
   the timed compile filled: the FX graph cache and AOTAutograd cache hit, as in a second
   process started on the same machine. It runs after everything else.

With options.cache = warm (the user's own cache, which may already hold the graphs: a hit skips
every hook), the timed compile is plain, and a third, **capture** compile (`capture_s`) with the
FX graph and AOTAutograd caches off supplies the stages and the measured model.

`compile_breakdown` splits the timed first call into phases from torch's own compile timers:
every `dynamo_timed` region (the events tlparse shows from TORCH_TRACE's chromium events)
reports its start and end to the chromium event logger, which we wrap while the first call
runs. Each region's time minus that of the regions nested in it goes to the region's phase; the
phases therefore add up to the time covered by torch's timers, and the rest of the first call
is `first_run` (outside every timer once compiling began: the compiled code's first execution)
and `unaccounted` (before the first timer started).
"""
import contextlib
import threading
import time

import torch

# Phases in report order (docs/measurement.md lists what each holds).
PHASES = ("dynamo_tracing", "dynamo_guards", "aot_autograd", "backend_compile", "inductor_graph_passes",
          "inductor_lowering", "inductor_scheduling", "code_generation", "kernel_compilation", "autotuning",
          "compile_cache", "other_timers", "first_run", "unaccounted")

_EXACT = {
    "dynamo": "dynamo_tracing", "entire_frame_compile": "dynamo_tracing", "bytecode_tracing": "dynamo_tracing",
    "gc": "dynamo_tracing", "fullgraph_capture": "dynamo_tracing", "insert_deferred_runtime_asserts": "dynamo_tracing",
    "build_guards": "dynamo_guards",
    "backend_compile": "backend_compile",
    "create_aot_dispatcher_function": "aot_autograd", "aot_collect_metadata": "aot_autograd",
    "aot_trace_joint_graph": "aot_autograd", "backward._backward_impl": "aot_autograd",
    "additional_fake_tensor_prop": "inductor_graph_passes",
    "compile_fx.<locals>.fw_compiler_base": "inductor_lowering", "compile_fx.<locals>.bw_compiler": "inductor_lowering",
    "inductor_compile": "inductor_lowering", "fx_codegen_and_compile": "inductor_lowering",
    "compile_fx_inner": "inductor_lowering", "GraphLowering.run": "inductor_lowering",
    "inductor_import": "inductor_lowering",
    "Scheduler.__init__": "inductor_scheduling", "Scheduler.fused_nodes": "inductor_scheduling",
    "Scheduler.codegen": "code_generation", "GraphLowering.codegen": "code_generation",
    "GraphLowering.codegen_subgraph": "code_generation", "GraphLowering.compile_to_fn": "code_generation",
    "GraphLowering.compile_to_module": "code_generation", "code_gen": "code_generation",
    "PythonWrapperCodegen.generate": "code_generation", "CppWrapperCpu.generate": "code_generation",
    "CppWrapperGpu.generate": "code_generation", "generate_kernel_code_from_nodes": "code_generation",
    "compile_file": "kernel_compilation", "async_compile.wait": "kernel_compilation",
    "PyCodeCache.load_by_key_path": "kernel_compilation", "reload_kernel_in_parent": "kernel_compilation",
    "inductor_codecache_torch_key": "compile_cache",
}


def phase_of(name: str) -> str | None:
    """The phase of a torch timer, or None when it belongs to the phase of the timer around it."""
    if name in _EXACT:
        return _EXACT[name]
    lower = name.lower()
    if "autotun" in lower or "bench" in lower or "select_algorithm" in lower:
        return "autotuning"
    if "cache" in lower or "bundler" in lower or "compiledartifact.load" in lower:
        return "compile_cache"
    if lower.startswith("pass.") or "_passes" in lower:
        return "inductor_graph_passes"
    if lower.startswith("compile_attempt") or lower.startswith("bytecode_hooks"):
        return "dynamo_tracing"
    if "compile_file" in lower or "precompile" in lower or "fatbin" in lower or "aoti_" in lower:
        return "kernel_compilation"
    if "guard" in lower:
        return "dynamo_guards"
    if lower.startswith("scheduler."):
        return "inductor_scheduling"
    if "codegen" in lower or "generate" in lower or "code_gen" in lower:
        return "code_generation"
    if lower.startswith("graphlowering"):
        return "inductor_lowering"
    if lower.startswith("aot") or "aot_" in lower:
        return "aot_autograd"
    return None


class TimerEvents:
    """Begin/end of torch's compile timers on this thread while active (a context manager).

    dynamo_timed calls get_chromium_event_logger().log_event_start/end around every timed
    region; the logger is one object per process, so wrapping its two methods sees them all.
    Timers on other threads (Inductor's compile workers) run in parallel with the main thread's
    wait for them, which is timed there, so they are not counted."""

    def __init__(self):
        self.events: list[tuple[str, str, int, str | None]] = []  # (B|E, name, time_ns, compile_id)
        self._logger = None

    def __enter__(self):
        from torch._dynamo.utils import get_chromium_event_logger
        logger = get_chromium_event_logger()
        thread = threading.get_ident()
        start, end = logger.log_event_start, logger.log_event_end
        events = self.events

        def log_event_start(event_name, time_ns, *args, **kwargs):
            if threading.get_ident() == thread:
                events.append(("B", event_name, time_ns, _compile_id()))
            return start(event_name, time_ns, *args, **kwargs)

        def log_event_end(event_name, time_ns, *args, **kwargs):
            if threading.get_ident() == thread:
                events.append(("E", event_name, time_ns, None))
            return end(event_name, time_ns, *args, **kwargs)
        logger.log_event_start, logger.log_event_end = log_event_start, log_event_end
        self._logger = logger
        return self

    def __exit__(self, *exc):
        if self._logger is not None:
            # the instance attributes hid the class's methods; removing them restores those
            for name in ("log_event_start", "log_event_end"):
                self._logger.__dict__.pop(name, None)
            self._logger = None
        return False


def _compile_id() -> str | None:
    try:
        cid = torch._guards.CompileContext.current_compile_id()
    except Exception:
        return None
    return str(cid) if cid is not None else None


def breakdown(events, call_start_ns: int, call_end_ns: int) -> tuple[dict, list]:
    """({phase: seconds} over the whole first call, [{compile_id, phases, total_s}] per Dynamo
    compile) from TimerEvents.events taken during a call that ran from call_start_ns to
    call_end_ns (time.time_ns clock, the one dynamo_timed uses)."""
    totals: dict[str, int] = {}
    per_id: dict[str, dict] = {}
    stack: list[list] = []  # [name, start, nested_ns, phase, compile_id]
    covered = 0
    first_start = None
    for kind, name, t, cid in events:
        if kind == "B":
            parent_phase = stack[-1][3] if stack else None
            parent_id = stack[-1][4] if stack else None
            stack.append([name, t, 0, phase_of(name) or parent_phase or "other_timers", cid or parent_id])
            if first_start is None:
                first_start = t
            continue
        # an end without its begin (a timer opened before recording started) is skipped
        match = next((i for i in range(len(stack) - 1, -1, -1) if stack[i][0] == name), None)
        if match is None:
            continue
        del stack[match + 1:]  # inner timers left open (an exception) end with their parent
        name, start, nested, phase, compile_id = stack.pop()
        duration = max(t - start, 0)
        own = max(duration - nested, 0)
        if stack:
            stack[-1][2] += duration
            if stack[-1][4] is None:  # Dynamo's outermost timer starts before the compile id exists
                stack[-1][4] = compile_id
        else:
            covered += duration
        totals[phase] = totals.get(phase, 0) + own
        if compile_id is not None:
            phases = per_id.setdefault(compile_id, {})
            phases[phase] = phases.get(phase, 0) + own
    call_ns = max(call_end_ns - call_start_ns, 0)
    before = max((first_start - call_start_ns) if first_start is not None else call_ns, 0)
    seconds = {phase: totals[phase] / 1e9 for phase in _in_order(totals) if totals[phase]}
    seconds["first_run"] = max(call_ns - before - covered, 0) / 1e9
    seconds["unaccounted"] = min(before, call_ns) / 1e9
    graphs = [{"compile_id": cid, "phases": {p: phases[p] / 1e9 for p in _in_order(phases) if phases[p]},
               "total_s": sum(phases.values()) / 1e9} for cid, phases in per_id.items()]
    return seconds, graphs


def _in_order(phases: dict) -> list[str]:
    """Phase names in PHASES order, any other after them by name."""
    return [p for p in PHASES if p in phases] + sorted(set(phases) - set(PHASES))


class FirstCall:
    """Times one first call (perf_counter for the number, time_ns for the timers' clock) and
    records torch's compile timers meanwhile."""

    def __init__(self):
        self.seconds = None
        self.phases = None
        self.graphs = None

    @contextlib.contextmanager
    def timed(self, sync):
        events = TimerEvents()
        with events:
            wall_start, start = time.time_ns(), time.perf_counter()
            yield self
            sync()
            self.seconds = time.perf_counter() - start
            wall_end = wall_start + int(self.seconds * 1e9)
        self.phases, self.graphs = breakdown(events.events, wall_start, wall_end)


def fresh_state() -> None:
    """What a new worker process would start from, file-system caches aside: Dynamo's caches
    and counters (torch._dynamo.reset) and Inductor's in-memory caches of loaded code."""
    torch._dynamo.reset()
    try:
        from torch._dynamo.utils import counters
        counters.clear()
    except Exception:
        pass
    try:
        from torch._inductor.utils import clear_caches
        clear_caches()
    except Exception:  # no Inductor in this torch: nothing of it to clear
        pass


def capture_config_patch() -> dict:
    """Caches that would skip the stage hooks, off for the capturing compile."""
    return {"fx_graph_cache": False}


@contextlib.contextmanager
def capture_caches_off():
    """The FX graph cache (Inductor) and AOTAutograd cache off: a hit skips every compiler pass."""
    with contextlib.ExitStack() as stack:
        try:
            from torch._inductor import config as inductor_config
            stack.enter_context(inductor_config.patch(capture_config_patch()))
        except Exception:
            pass
        try:
            import torch._functorch.config as functorch_config
            if hasattr(functorch_config, "enable_autograd_cache"):
                stack.enter_context(functorch_config.patch(enable_autograd_cache=False))
        except Exception:
            pass
        yield


def plain_compiles(sync, make_plain, call, kinds=("timed", "warm")) -> dict:
    """Compiles (1) timed and (2) warm of the module docstring, those of `kinds`. `make_plain()`
    returns the model compiled with the plain backend (after fresh_state), `call(model)` runs its
    first call and raises the run's WorkerError on failure. Returns the result fields."""
    fields = {}
    for kind in kinds:
        fresh_state()
        model = make_plain()
        first = FirstCall()
        with first.timed(sync):
            call(model)
        del model
        if kind == "timed":
            fields.update(compile_s=first.seconds, first_call_s=first.seconds, compile_breakdown=first.phases,
                          compile_breakdown_graphs=first.graphs)
        else:
            fields["warm_compile_s"] = first.seconds
    fresh_state()
    return fields


# -- the compile set-up every compiler shares ---------------------------------------------
def capturing_backend(name: str, options: dict, session, label: str | None = None, error_backend: str | None = None):
    """The CapturingBackend torch.compile gets (capture/backend_wrapper.py); options the backend
    rejects (an unknown key in options.inductor) are a bad_request naming it (`label`: the
    backend as the user wrote it, with its part)."""
    from .capture.backend_wrapper import CapturingBackend
    from .errors import BAD_REQUEST, WorkerError, describe
    try:
        return CapturingBackend(name, options, session)
    except Exception as exc:
        raise WorkerError(BAD_REQUEST, f"options for backend {label or name} rejected: {describe(exc)}",
                          backend=error_backend or name) from exc


def apply_dynamo_config(options: dict, backend: str) -> None:
    """Sets the entry's torch._dynamo.config options (`dynamo.NAME=VALUE`, docs/cli.md) for this
    worker's one run, before anything compiles. A name torch does not have, or a value of another
    type than the option's, is a bad_request naming it."""
    from .errors import BAD_REQUEST, WorkerError
    config = torch._dynamo.config
    for name, value in options.items():
        if name.startswith("_") or not hasattr(config, name):
            raise WorkerError(BAD_REQUEST, f"backend {backend}: dynamo.{name}: torch._dynamo.config has no option "
                              f"'{name}' (torch {torch.__version__})", backend=backend)
        current = getattr(config, name)
        if isinstance(current, bool):
            same = isinstance(value, bool)
        elif isinstance(current, (int, float)):
            same = isinstance(value, (int, float)) and not isinstance(value, bool)
        else:
            same = current is None or isinstance(value, type(current))
        if not same:
            raise WorkerError(BAD_REQUEST, f"backend {backend}: dynamo.{name} takes a {type(current).__name__} "
                              f"(torch's default is {current!r}), not {value!r}", backend=backend)
        setattr(config, name, value)


def compile_module(module, backend, options: dict):
    """torch.compile of `module` with a backend object and the request's fullgraph and dynamic.

    torch.compile(backend="inductor") asks its backend for its compiler config while it builds the
    compiled model (torch._dynamo.optimize calls backend.get_compiler_config()), and that imports
    Inductor's compile_fx before the first call. A backend object is wrapped in a
    _TorchCompileWrapper, which has no get_compiler_config, so without the call below our first
    call paid that import instead: 0.8 s of a 4.5 s compile of bench/fidelity's small MLP
    (docs/measurement.md, "Compile time"). Asking here puts it where plain torch.compile puts it."""
    compiled = torch.compile(module, backend=backend, fullgraph=options["fullgraph"], dynamic=options["dynamic"])
    get_config = getattr(backend, "get_compiler_config", None)
    if get_config is not None:
        get_config()
    return compiled


def enter_inductor_capture(stack, backends_used, sessions: list, recorder, trace_dir: str, wants_trace: bool) -> None:
    """For a capturing compile that runs Inductor (one of `backends_used`): its stage hooks
    reporting to `recorder` (a session, or a router over several) when a session wants stages
    or code, and the kernel profiling a trace needs (capture/inductor_hooks.py, tracing/)."""
    if "inductor" not in backends_used:
        return
    from torch._inductor import config as inductor_config
    if any(s.stages_wanted or s.code_wanted for s in sessions):
        from .capture import inductor_hooks
        missing = inductor_hooks.missing_hooks()
        for session in sessions:
            session.unsupported_hooks = missing
        stack.enter_context(inductor_config.patch(inductor_hooks.config_patch(recorder, trace_dir)))
    if wants_trace:
        from .tracing import profiler
        stack.enter_context(inductor_config.patch(profiler.kernel_profile_patch()))


def separate_capture_reason(run, backends_used) -> str | None:
    """Why this run's stages cannot come from its timed compile, or None: they do."""
    if run.scratch.cache == "warm":
        return ("options.cache = warm: a hit in the user's compile cache skips every capture hook, so the "
                "stages come from a second compile with the caches off")
    if run.wants_trace and "inductor" in backends_used:
        from .tracing import profiler
        if profiler.kernel_profile_patch():
            return ("--trace on CPU: Inductor's kernel profiling (cpp.enable_kernel_profile) changes every "
                    "kernel's source, so a compile with it is not the user's; the stages and the traced model "
                    "come from a second compile")
    return None


def compile_with_capture(run, stack, plain, capture_compile, backends_used):
    """The compiles of one backend; returns the model that is measured (docs/measurement.md,
    "Compile time").

    `plain(kinds)` runs the plain compiles of `kinds` ("timed", "warm") and returns their result
    fields (plain_compiles); `capture_compile(timed)` compiles with capture and runs the first
    call, recording compile_s and its breakdown when `timed`, capture_s otherwise.

    **One compile** (the default: the worker's own, empty cache): the capturing compile is the
    timed one, with the caches on as in a user's compile; the warm compile runs after everything
    else (run.defer_warm_compile), since it resets Dynamo and with it the measured model.
    **Two** (options.cache = warm, or --trace of Inductor on CPU: separate_capture_reason;
    `backends_used` are the backend families the run compiles with): the plain timed and warm compiles,
    then the capturing one with the caches off. A plain compile that fails is not the end there:
    the capturing compile runs anyway, so the stages the backend reached before failing are sent
    (docs/worker.md), and its error is the run's; should the capturing compile succeed where the
    plain one failed, the plain failure stands."""
    from .errors import BAD_REQUEST
    why = separate_capture_reason(run, backends_used)
    run.record(capture_from="second_compile" if why else "timed_compile", capture_from_reason=why)
    if why is None:
        run.progress("compile", 0.0, f"compiling with {run.backend} (first call, timed, capturing its stages)")
        fresh_state()
        compiled = capture_compile(True)
        run.defer_warm_compile(lambda: plain(("warm",)))
        return compiled
    run.progress("compile", 0.0, f"compiling with {run.backend} (first call, timed without capture)")
    failure = None
    try:
        run.record(**plain(("timed", "warm")))
    except Exception as exc:  # the first call's WorkerError; bad options are refused outright
        if getattr(exc, "code", None) == BAD_REQUEST:
            raise
        failure = exc
        fresh_state()
    stack.enter_context(capture_caches_off())
    compiled = capture_compile(False)
    if failure is not None:
        raise failure
    return compiled
