"""`workload.mode = "training"` (docs/protocol.md, docs/workloads.md "Training mode").

Each timed sample is one full training step: zero the gradients, seed the RNG, forward, a
synthetic loss, backward, optimizer step. The eager series and the compiled series each own a
deep copy of the loaded model (and an optimizer over it), made before either runs, so both start
from the same weights and every step of one series does the same work as the same step of the
other. The module is compiled with torch.compile, so AOTAutograd builds the backward graph and
the backend compiles it (lazily, at the first backward, in torch 2.13).

- Loss: the mean of the squares of every floating-point output element (half-precision outputs
  upcast to float32 first). Squares, not a plain mean, so the gradient reaching each output
  (2·y/N) depends on the forward's values. A loss the model returns itself is just one more
  output in that mean: the worker never guesses which output is a loss.
- Optimizer: torch.optim.SGD(lr=1e-3), foreach implementation (falls back to the per-tensor loop
  where torch refuses foreach).
- Train mode (dropout active, batch norm on batch statistics and updating running stats) for
  both copies. torch.manual_seed(STEP_SEED) before the first step of each series (the one whose
  outputs and gradients are compared), and for Inductor config.fallback_random = True, so compiled
  random ops draw from the same generator in the same order as eager. Timed steps are not
  reseeded (torch.manual_seed costs about a millisecond on a loaded CPU, comparable to a small
  model's step); which random numbers a step draws does not change its work.
- Backward and optimizer step run outside autocast (precision.backward_context).
"""
import contextlib
import copy
import re
import time

import torch
from torch.utils import _pytree as pytree

from . import accuracy, measure, memory, precision, reference, shapes
from .capture.backward import TrainingCaptureSession, lazy_compile_scope
from .compile_timing import (
    TimerEvents,
    breakdown,
    compile_module,
    compile_with_capture,
    enter_inductor_capture,
    fresh_state,
)
from .errors import BAD_REQUEST, COMPILE_FAILED, MODEL_FAILED, MODEL_INVALID, RUN_FAILED, WorkerError, describe
from .machine_probe import MachineWatch
from .workload import PHASES, Workload

LEARNING_RATE = 1e-3
STEP_SEED = 1234
PROBE_SEEDS = (11, 12)
LOSS = "mean of squares of the float outputs"
BACKWARD_TIMER = "backward._backward_impl"  # torch's dynamo_timed key around the lazy backward compile


def _floating(outputs) -> list[torch.Tensor]:
    return [t for t in pytree.tree_leaves(outputs) if isinstance(t, torch.Tensor) and t.is_floating_point()]


def synthetic_loss(outputs) -> torch.Tensor | None:
    """Mean of squares of all floating output elements; None when there are none."""
    tensors = [t for t in _floating(outputs) if t.numel()]
    if not tensors:
        return None
    wide = [t if t.dtype in (torch.float32, torch.float64) else t.float() for t in tensors]
    total = sum(t.numel() for t in tensors)
    return sum((t * t).sum() for t in wide) / total


def make_optimizer(params: list) -> tuple[torch.optim.Optimizer, str]:
    try:
        return torch.optim.SGD(params, lr=LEARNING_RATE, foreach=True), "SGD(lr=1e-3, foreach)"
    except (RuntimeError, ValueError, TypeError):
        return torch.optim.SGD(params, lr=LEARNING_RATE, foreach=False), "SGD(lr=1e-3)"


def _trainable(module: torch.nn.Module) -> list[tuple[str, torch.nn.Parameter]]:
    return [(name, p) for name, p in module.named_parameters() if p.requires_grad]


def _set_train(module: torch.nn.Module) -> str | None:
    """module.train(); why not, when the module refuses (modules from torch.export)."""
    try:
        module.train()
    except NotImplementedError as exc:
        return describe(exc)
    return None


def _backward_timer() -> tuple[int, float]:
    from torch._dynamo.utils import compilation_time_metrics
    values = compilation_time_metrics.get(BACKWARD_TIMER, [])
    return len(values), float(sum(values))


def _in_backward_compile(exc: BaseException) -> bool:
    """Whether the exception came out of AOTAutograd's lazy backward compile."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_name in ("get_or_compile", "bw_compiler", "compile_fx_backward"):
                return True
            tb = tb.tb_next
        exc = exc.__cause__ or exc.__context__
    return False


class Series:
    """One private copy of the model and its optimizer."""

    def __init__(self, name: str, module: torch.nn.Module):
        self.name = name
        self.module = module
        self.callable = module  # the OptimizedModule for the compiled series
        self.names = [n for n, _ in _trainable(module)]
        self.optimizer, self.optimizer_name = make_optimizer([p for _, p in _trainable(module)])

    def gradients(self) -> dict:
        params = dict(self.module.named_parameters())
        return {n: (params[n].grad.detach().clone() if params[n].grad is not None else None) for n in self.names}


class Marks:
    """Times and capture overhead at the boundaries of the first compiled step."""

    def __init__(self, session, sync):
        self.session = session
        self.sync = sync
        self.points = {}

    def __call__(self, label: str) -> None:
        self.sync()
        self.points[label] = (time.perf_counter(), self.session.overhead_ns if self.session else 0, time.time_ns())

    def span(self, start: str, end: str) -> tuple[float, float]:
        (t0, o0, _), (t1, o1, _) = self.points[start], self.points[end]
        return t1 - t0, (o1 - o0) / 1e9

    def wall_ns(self, label: str) -> int:
        """The time_ns clock at a mark (the clock torch's compile timers use)."""
        return self.points[label][2]


class TrainingRun(Workload):
    """The training workload (pipelines.py): torch.compile only; mixed and tvm are refused there."""
    WORKLOAD = "training"

    def __init__(self, request, channel, scratch, compiler):
        super().__init__(request, channel, scratch, compiler)
        self.precision = precision.of(request)
        self.tolerance = precision.tolerance(self.precision, "training")
        self.device = None
        self.series: dict[str, Series] = {}
        self.first: dict[str, dict] = {}
        self.fp64 = None
        self.training = {"loss": LOSS, "optimizer": None, "batch_size": None, "parameters": None,
                         "train_mode": None, "rng": None, "compile_forward_s": None, "compile_backward_s": None,
                         "first_forward_s": None, "first_backward_s": None, "backward_compile": None,
                         "backward_compile_timer_s": None, "first_loss": None, "fp64_reference": None,
                         "gradient_accuracy": None}
        self.result["training"] = self.training

    # -- refuse what cannot train, load, make the two private copies -------------------------
    def check_workload(self) -> None:
        if self.request.workload.get("shapes"):
            raise WorkerError(BAD_REQUEST, "workload.shapes is measured in inference mode only; "
                              "drop it or use workload.mode \"inference\"", backend=self.backend)

    def load(self, device: torch.device):
        super().load(device)
        self.device = device
        loaded = self.loaded
        if not _trainable(loaded.module):
            total = sum(1 for _ in loaded.module.parameters())
            what = "has no parameters" if total == 0 else f"has {total} parameters and none requires grad"
            raise WorkerError(MODEL_INVALID, f"model {self.request.model} ({loaded.class_name}): training mode needs "
                              f"trainable parameters, and it {what}", file=loaded.file)
        why_not = None
        for name in ("eager", "compiled"):
            module = copy.deepcopy(loaded.module)
            why_not = _set_train(module) or why_not
            self.series[name] = Series(name, module)
        if why_not:
            self.channel.progress("load", 0.1, f"the model stays in its exported mode: {why_not}")
        self.training.update(
            optimizer=self.series["eager"].optimizer_name, parameters=len(self.series["eager"].names),
            train_mode=why_not is None, batch_size=self._batch_size(),
            rng=f"torch.manual_seed({STEP_SEED}) before the first (compared) step of each series"
                + ("; inductor fallback_random" if self._fallback_random() else ""))

    def _batch_size(self) -> int | None:
        for value in pytree.tree_leaves((list(self.loaded.args), self.loaded.kwargs)):
            if isinstance(value, torch.Tensor) and value.dim() > 0:
                return int(value.shape[0])
        return None

    def _fallback_random(self) -> bool:
        if self.backend != "inductor":
            return False
        return bool((self.request.options.get("inductor") or {}).get("fallback_random", True))

    # -- one step --------------------------------------------------------------------------
    def step(self, series: Series, marks: Marks | None = None, keep: bool = False,
             capture_scope: bool = True) -> dict | None:
        """One training step of `series`; with `keep`, its outputs, loss and gradients."""
        mark = marks or (lambda label: None)
        series.optimizer.zero_grad(set_to_none=True)
        if keep:  # the compared first steps draw the same random numbers; timed steps need not
            torch.manual_seed(STEP_SEED)
        with torch.enable_grad():
            mark("start")
            outputs = self.loaded(series.callable)
            mark("forward")
            loss = synthetic_loss(outputs)
            self._check_loss(series, loss)
            # the first compiled step compiles the backward: give Inductor's provenance its scope
            scope = (lazy_compile_scope(self.backend) if marks is not None and capture_scope
                     else contextlib.nullcontext())
            with precision.backward_context(self.device):
                with scope:
                    loss.backward()
                mark("backward")
                kept = None
                if keep:
                    kept = {"outputs": reference.detached(outputs), "loss": loss.item(),
                            "gradients": series.gradients()}
                series.optimizer.step()
            mark("step")
        return kept

    def _check_loss(self, series: Series, loss) -> None:
        model = f"model {self.request.model}"
        if series.name == "eager":
            if loss is None:
                raise WorkerError(MODEL_INVALID, f"{model}: training mode needs a floating-point output to build "
                                  "the loss from, and the model returns none", file=self.loaded.file)
            if not loss.requires_grad:
                raise WorkerError(MODEL_INVALID, f"{model}: no floating-point output depends on a trainable "
                                  "parameter, so a training step has nothing to differentiate", file=self.loaded.file)
        elif loss is None or not loss.requires_grad:
            raise WorkerError(RUN_FAILED, f"{self.request.model} compiled with {self.backend}: the compiled outputs "
                              "carry no autograd history although eager's do, so the backend does not support "
                              "training (it has no backward)", file=self.loaded.file, backend=self.backend)

    def _eager_step(self, **kwargs):
        return self._call(lambda: self.step(self.series["eager"], **kwargs), MODEL_FAILED,
                          f"model {self.loaded.source}: training step")

    def _compiled_step(self, **kwargs):
        return self._call(lambda: self.step(self.series["compiled"], **kwargs), RUN_FAILED,
                          f"{self.request.model} compiled with {self.backend}: training step")

    # -- phases ----------------------------------------------------------------------------
    def eager_reference(self, sync):
        self.progress("reference", 0.0, "fp64 reference step")
        self.fp64, why_not = self._fp64_step()
        self.training["fp64_reference"] = why_not is None
        if why_not:
            self.channel.progress("reference", PHASES["reference"][1], f"no fp64 reference: {why_not}")
        self.progress("reference", 0.5, "first eager training step")
        start = time.perf_counter()
        self.first["eager"] = self._eager_step(keep=True)
        sync()
        self.result["eager_first_call_s"] = time.perf_counter() - start
        return self.first["eager"]["outputs"], self.fp64["outputs"] if self.fp64 else None

    def _fp64_step(self) -> tuple[dict | None, str | None]:
        """Outputs and gradients of the first step in float64, from the same initial weights."""
        size = sum(p.numel() for p in self.loaded.module.parameters()) * 8
        if size > reference.FP64_COPY_LIMIT:
            return None, f"an fp64 copy of the parameters would take {size / 1024**3:.1f} GiB"
        to64 = lambda v: v.double() if isinstance(v, torch.Tensor) and v.is_floating_point() else v  # noqa: E731
        try:
            model = copy.deepcopy(self.loaded.module).double()
            _set_train(model)
            args = pytree.tree_map(to64, list(self.loaded.args))
            kwargs = pytree.tree_map(to64, self.loaded.kwargs)
            with torch.no_grad():
                probes = []
                for seed in PROBE_SEEDS:
                    torch.manual_seed(seed)
                    probes.append(reference.detached(model(*args, **kwargs)))
            same = all(torch.equal(a, b) for a, b in zip(_floating(probes[0]), _floating(probes[1])))
            if not same:
                return None, ("the model draws random numbers in training mode (dropout?): float64 cannot "
                              "reproduce the float32 draws, so the gradients are compared with allclose only")
            model.zero_grad(set_to_none=True)
            torch.manual_seed(STEP_SEED)
            with torch.enable_grad():
                outputs = model(*args, **kwargs)
                loss = synthetic_loss(outputs)
                if loss is None or not loss.requires_grad:
                    return None, "the float64 copy gives no differentiable loss"
                loss.backward()
            params = dict(model.named_parameters())
            names = self.series["eager"].names
            grads = {n: (params[n].grad.detach().clone() if params[n].grad is not None else None) for n in names}
            return {"outputs": reference.detached(outputs), "gradients": grads}, None
        except Exception as exc:  # a model that cannot run in float64 still gets the allclose rule
            return None, f"the model does not train in float64 ({type(exc).__name__})"

    def compile(self, stack, sync):
        """Timed and warm plain first steps, each on its own copy of the model, then the
        capturing compile of the compiled series (compile_timing.py, docs/measurement.md
        "Compile time"). A step's compile time is its forward plus its backward (the loss
        included), not the optimizer step; the breakdown covers the same window."""
        def plain(kinds):
            fields = {}
            for kind in kinds:
                fresh_state()
                self.session = shapes.quiet_session(self.backend)
                module = copy.deepcopy(self.loaded.module)
                _set_train(module)
                series = Series("timing", module)
                series.callable = compile_module(module, self._backend(self.session), self.request.options)
                marks = Marks(None, sync)
                with TimerEvents() as events, self._inductor_training_config():
                    try:
                        self.step(series, marks=marks, capture_scope=False)
                    except WorkerError:
                        raise
                    except Exception as exc:
                        raise self._step_error(exc, marks) from exc
                del series, module
                forward_s, backward_s = marks.span("start", "forward")[0], marks.span("forward", "backward")[0]
                if kind == "timed":
                    phases, graphs = breakdown(events.events, marks.wall_ns("start"), marks.wall_ns("backward"))
                    fields.update(compile_s=forward_s + backward_s, first_call_s=forward_s + backward_s,
                                  compile_breakdown=phases, compile_breakdown_graphs=graphs)
                    self.training.update(compile_forward_s=forward_s, compile_backward_s=backward_s)
                else:
                    fields["warm_compile_s"] = forward_s + backward_s
            fresh_state()
            return fields
        return compile_with_capture(self, stack, plain, lambda timed: self._capture_compile(stack, sync, timed),
                                    {self.backend})

    def _inductor_training_config(self):
        if self.backend != "inductor":
            return contextlib.nullcontext()
        from torch._inductor import config as inductor_config
        return inductor_config.patch({"fallback_random": True})

    def _capture_compile(self, stack, sync, timed: bool):
        """The capturing first step: compile_s (`timed`) or capture_s is its forward plus backward."""
        options, capture = self.request.options, self.request.capture
        self.progress("compile", 0.0 if timed else 0.5, f"compiling with {self.backend} (first training step), "
                      "capturing" + (", timed" if timed else ", a second compile"))
        session = TrainingCaptureSession(self.channel, self.backend, stages_wanted=bool(capture.get("stages", True)),
                                         code_wanted=bool(capture.get("code", True)),
                                         on_capture=lambda message: self.progress("capture", 0.5, message),
                                         cache=self.scratch.cache)
        self.session = session
        enter_inductor_capture(stack, {self.backend}, [session], session, self.scratch.trace_dir, self.wants_trace)
        stack.enter_context(self._inductor_training_config())
        series = self.series["compiled"]
        series.callable = compile_module(series.module, self._backend(session), options)
        marks = Marks(session, sync)
        timer_before = _backward_timer()
        events = TimerEvents()
        try:
            with events if timed else contextlib.nullcontext():
                self.first["compiled"] = self.step(series, marks=marks, keep=True)
        except WorkerError:
            session.finish_backward(error=None)
            raise
        except Exception as exc:
            error = self._step_error(exc, marks)
            session.finish_backward(error=exc if error.code == COMPILE_FAILED else None)
            raise error from exc
        finally:
            self.record_graphs()
        session.first_call_done = True
        session.finish_backward()
        forward_s, forward_overhead = marks.span("start", "forward")
        backward_s, backward_overhead = marks.span("forward", "backward")
        _, step_overhead = marks.span("start", "step")
        timer_after = _backward_timer()
        lazy = timer_after[0] > timer_before[0]
        with_forward = any(getattr(getattr(r, "backward", None), "seen", False) for r in session.graphs)
        self.training.update(
            first_forward_s=forward_s, first_backward_s=backward_s,
            backward_compile="lazy" if lazy else ("with_forward" if with_forward else "none"),
            backward_compile_timer_s=(timer_after[1] - timer_before[1]) if lazy else None)
        self.result["compile_capture_overhead_s"] = step_overhead
        if timed:
            phases, graphs = breakdown(events.events, marks.wall_ns("start"), marks.wall_ns("backward"))
            self.result.update(compile_s=forward_s + backward_s, first_call_s=forward_s + backward_s,
                               compile_breakdown=phases, compile_breakdown_graphs=graphs)
            self.training.update(compile_forward_s=forward_s, compile_backward_s=backward_s)
        else:
            self.result["capture_s"] = forward_s + backward_s
        return series.callable

    def _step_error(self, exc: Exception, marks: Marks) -> WorkerError:
        if "forward" not in marks.points:
            return self._first_call_error(exc)
        what = f"{self.request.model} compiled with {self.backend}"
        if _in_backward_compile(exc):
            return WorkerError(COMPILE_FAILED, f"backend {self.backend} failed to compile the backward of "
                               f"{self.request.model}: {describe(exc)}", file=self.loaded.file, backend=self.backend)
        phase = "backward" if "backward" not in marks.points else "optimizer step"
        return WorkerError(RUN_FAILED, f"{what} raised in the {phase} of the first training step: {describe(exc)}",
                           file=self.loaded.file, backend=self.backend)

    def measure_latency(self, compiled, sync) -> None:
        settings = self.request.measure
        self.progress("measure", 0.0, f"warm-up {settings['warmup']} + interleaved training steps")
        watch = MachineWatch()
        self.result["runs"] = measure.interleaved(self._eager_step, self._compiled_step, settings, sync,
                                                  self.channel, lambda f, m: self.progress("measure", f, m), watch)
        self.result["warnings"] += watch.warnings()
        self.result["measure"] = measure.outcome(self.result["runs"])

    def measure_memory(self, compiled, device: torch.device) -> None:
        self.progress("memory", 0.0, "peak memory of one eager training step")
        eager_peak, method = memory.peak_bytes(self._eager_step, device)
        self.progress("memory", 0.5, "peak memory of one compiled training step")
        peak, _ = memory.peak_bytes(self._compiled_step, device)
        self.result.update(eager_peak_memory_bytes=eager_peak, peak_memory_bytes=peak, memory_method=method)

    def record_trace(self, compiled, device: torch.device, sync) -> None:
        self.trace(self._compiled_step, device, sync)  # a traced iteration is one compiled step

    def check_accuracy(self, compiled, eager_out, fp64_out) -> None:
        self.progress("accuracy", 0.0, "first step: compiled outputs and gradients against eager")
        self.session.finish_backward()  # backward graphs compiled for recompiles while measuring
        eager, compiled_first = self.first["eager"], self.first["compiled"]
        self.result["accuracy"] = accuracy.compare(eager["outputs"], compiled_first["outputs"], fp64_out,
                                                   tolerance=self.tolerance, precision=self.precision)
        self.training["first_loss"] = {"eager": eager["loss"], "compiled": compiled_first["loss"]}
        self.training["gradient_accuracy"] = gradient_accuracy(
            self.series["eager"].names, eager["gradients"], compiled_first["gradients"],
            self.fp64["gradients"] if self.fp64 else None, self.tolerance, self.precision)


def gradient_accuracy(names: list[str], eager: dict, compiled: dict, fp64: dict | None, tol: float,
                      precision_name: str) -> dict:
    """accuracy.compare over all parameter gradients, plus the parameter whose gradient is worst:
    the largest max |c - e| / (tol + tol·|e|), the allclose criterion (> 1 fails allclose)."""
    eager_list = [eager[n] for n in names]
    compiled_list = [compiled[n] for n in names]
    fp64_list = [fp64[n] for n in names] if fp64 is not None else None
    result = accuracy.compare(eager_list, compiled_list, fp64_list, tolerance=tol, precision=precision_name)
    tol = result.get("tolerance") or tol
    worst, worst_ratio = None, -1.0
    for name, e, c in zip(names, eager_list, compiled_list):
        if e is None or c is None:
            if (e is None) != (c is None):
                worst, worst_ratio = name, float("inf")
            continue
        if e.shape != c.shape:
            worst, worst_ratio = name, float("inf")
            continue
        e64, c64 = e.double(), c.double()
        ratio = ((c64 - e64).abs() / (tol + tol * e64.abs())).max().item() if e.numel() else 0.0
        if ratio != ratio:  # NaN
            ratio = float("inf")
        if ratio > worst_ratio:
            worst, worst_ratio = name, ratio
    result["worst_parameter"] = worst
    result["worst_parameter_ratio"] = worst_ratio if worst is not None and worst_ratio != float("inf") else None
    result["parameters"] = len(names)
    if result.get("reason"):  # output[3] -> gradient of layers.0.weight (paths: output_leaves.py)
        result["reason"] = re.sub(r"\boutput\[(\d+)\]", lambda m: f"gradient of {names[int(m.group(1))]}"
                                  if int(m.group(1)) < len(names) else m.group(0), result["reason"])
    return result
