"""The driver every workload of a `run` request runs (pipelines.py): load, eager reference, compile
with stage capture (through the request's compiler), measure, memory, trace, accuracy, result
(docs/protocol.md, docs/measurement.md). A workload (run.Run: inference, training.TrainingRun)
subclasses Workload and defines its phases; compilers report through record(), use_session()
and record_graphs()."""
import contextlib

import torch

from . import accuracy, devices, mixed, modules, notes, placement, precision, quantize, roofs, shapes
from .capture import graph_breaks
from .compile_timing import capturing_backend
from .errors import COMPILE_FAILED, MODEL_ERRORS, MODEL_FAILED, RUN_FAILED, ModelExit, WorkerError, describe, internal
from .models import load_model

SHAPES_START = 0.6  # with a shape list, the phases before it share [0, 0.6) of the progress
PHASES = {"load": (0.0, 0.10), "reference": (0.10, 0.15), "compile": (0.15, 0.55), "capture": (0.15, 0.55),
          "measure": (0.55, 0.85), "memory": (0.85, 0.90), "trace": (0.90, 0.95), "accuracy": (0.95, 0.98),
          "warm_compile": (0.98, 1.0),
          "shapes": (SHAPES_START, 1.0)}


# Steady-state iterations traced, apart from the timed samples.
TRACE_ITERATIONS = 5


class Workload:
    """One run of a workload with the request's compiler (pipelines.Compiler), which builds the
    measured callable."""
    WORKLOAD = ""

    def __init__(self, request, channel, scratch, compiler):
        self.request = request
        self.channel = channel
        self.scratch = scratch
        self.compiler = compiler
        self.backend = request.backend
        self.loaded = None
        self.session = None
        self.eager_differs = None  # where two eager calls disagreed (eager_reference)
        self.quantized = None  # the int8 copy the compiler compiles (quantize.py), else None
        self.warm_compile = None  # the warm recompile, run after everything else (compile_timing.py)
        self.result = {"backend": self.backend, "status": "failed", "model": request.model, "device": request.device,
                       "compile_s": None, "compile_capture_overhead_s": None, "first_call_s": None,
                       "capture_s": None, "warm_compile_s": None, "compile_breakdown": None,
                       "capture_from": None, "capture_from_reason": None,  # compile_timing.py
                       "compile_breakdown_graphs": None,  # compile_timing.py
                       "eager_first_call_s": None, "peak_memory_bytes": None, "eager_peak_memory_bytes": None,
                       "memory_method": None, "accuracy": None, "graphs": None, "graph_breaks": None,
                       "break_reasons": [], "recompiles": None, "runs": None, "cache": None, "trace": None,
                       "roofs": None,  # roofs.py: with a trace only
                       "options": request.options,
                       "workload": request.workload, "training": None,
                       "shapes": None, "assign": None, "parts": None,  # shapes.py, mixed.py
                       "notes": [],  # notes.py
                       "placement": None, "warnings": [],  # placement.py; machine_check.py
                       "quantization": None}  # quantize.py

    # -- what a compiler reports (pipelines.py) ------------------------------------------------
    def record(self, **fields) -> None:
        """Result fields a compiler measured (compile times, its graphs, its memory figures)."""
        self.result.update(fields)

    def defer_warm_compile(self, compile_warm) -> None:
        """The warm recompile (compile_timing.compile_with_capture), run by run_warm_compile()
        once the measured model is no longer needed: it resets Dynamo, and the model with it."""
        self.warm_compile = compile_warm

    def run_warm_compile(self) -> None:
        if self.warm_compile is None:
            return
        compile_warm, self.warm_compile = self.warm_compile, None
        self.progress("warm_compile", 0.0, f"compiling with {self.backend} again, caches warm")
        session = self.session
        try:
            self.record(**compile_warm())
        except Exception as exc:  # the timed compile worked: a failing recompile is not the run's error
            self.result["warnings"].append({"code": "warm_compile_failed",
                                            "message": f"the warm recompile raised {describe(exc)}; "
                                                       "warm_compile_s is not measured"})
        finally:
            self.session = session

    def use_session(self, session) -> None:
        """The capture session whose graphs, recompiles and compile error the run reports."""
        self.session = session

    def progress(self, phase: str, within: float, message: str) -> None:
        start, end = PHASES[phase]
        if phase != "shapes" and shapes.requested(self.request):
            start, end = start * SHAPES_START, end * SHAPES_START
        self.channel.progress(phase, start + (end - start) * within, message)

    def _call(self, fn, code: str, what: str):
        """Run fn, turning an exception into the protocol error for `what` failing."""
        try:
            return fn()
        except WorkerError:
            raise
        except ModelExit as exc:  # sys.exit() in forward, eager or compiled: the model's doing
            raise WorkerError(MODEL_FAILED, f"model {self.loaded.source}: {exc}", file=self.loaded.file) from exc
        except Exception as exc:
            # A model that fails in eager is not the backend's fault: no backend named then.
            raise WorkerError(code, f"{what} raised {describe(exc)}", file=self.loaded.file,
                              backend=None if code == MODEL_FAILED else self.backend) from exc

    def load(self, device: torch.device):
        self.progress("load", 0.0, f"loading {self.request.model}")
        loaded = load_model(self.request.model, self.request.inputs)
        self.loaded = loaded.to(device)
        submodules, total = modules.describe(loaded.module)  # the tree mixed runs assign to
        self.channel.send("model", name=self.request.model, source=loaded.source, **{"class": loaded.class_name},
                          parameters=loaded.parameter_count(), inputs=loaded.input_description(), notes=loaded.notes,
                          modules=submodules, modules_total=total)

    @property
    def compile_target(self) -> torch.nn.Module:
        """The module the compiler compiles: the quantized copy under an int8 precision, else the
        loaded model itself (eager figures always run the loaded fp32 model)."""
        return self.quantized if self.quantized is not None else self.loaded.module

    def check_quantization(self, device: torch.device) -> None:
        """Before the model loads: an int8 precision this request or machine cannot run."""
        mode = precision.of(self.request)
        if not quantize.is_quantized(mode):
            return
        error = quantize.refusal(mode, self.WORKLOAD, self.compiler.name, self.backend, shapes.requested(self.request))
        if error is not None:
            raise error
        why = quantize.unavailable_reason(mode, device)
        if why is not None:
            from .errors import BACKEND_UNAVAILABLE
            raise WorkerError(BACKEND_UNAVAILABLE, f"precision {mode} is unavailable: {why}", backend=self.backend)

    def quantize(self, device: torch.device, stack: contextlib.ExitStack) -> None:
        """The int8 copy of the model, after the fp32 eager reference (quantize.py)."""
        mode = precision.of(self.request)
        if not quantize.is_quantized(mode):
            return
        self.progress("reference", 1.0, f"quantizing a copy of the model ({mode}, torchao)")
        self.quantized, self.result["quantization"] = quantize.quantize(self.loaded, mode, device,
                                                                        self.request.options, self.backend)
        stack.enter_context(quantize.freezing_context(mode, self.backend, self.request.options))

    def _backend(self, session):
        return capturing_backend(self.backend, self.request.options, session)

    def cudagraph_watch(self, stack, device: torch.device):
        """Watches CUDA-graph skips when the options ask for CUDA graphs (notes.py)."""
        if not notes.wants_cudagraphs(self.backend, self.request.options):
            return None
        mode = self.request.options.get("mode")
        what = f"{self.backend}@{mode}" if mode else f"{self.backend} with triton.cudagraphs"
        return stack.enter_context(notes.CudagraphWatch(device.type, what))

    def _first_call_error(self, exc: Exception) -> WorkerError:
        from torch._dynamo.exc import TorchDynamoException
        if isinstance(exc, ModelExit):
            return WorkerError(MODEL_FAILED, f"model {self.loaded.source}: {exc}", file=self.loaded.file)
        inner = self.session.compile_error
        if inner is not None or isinstance(exc, TorchDynamoException):
            cause = inner if inner is not None and inner is not exc else exc
            return WorkerError(COMPILE_FAILED, f"backend {self.backend} failed to compile {self.request.model}: "
                               f"{describe(cause)}", file=self.loaded.file, backend=self.backend)
        return WorkerError(RUN_FAILED, f"{self.request.model} compiled with {self.backend} raised when run: "
                           f"{describe(exc)}", file=self.loaded.file, backend=self.backend)

    def record_graphs(self) -> None:
        count, reasons = graph_breaks.summary(self.session.graphs)
        self.result.update(graphs=len(self.session.graphs), graph_breaks=count, break_reasons=reasons,
                           recompiles=self.session.compiles_after_first_call)

    @property
    def wants_trace(self) -> bool:
        return bool(self.request.capture.get("trace", False))

    def trace(self, call, device: torch.device, sync) -> None:
        """Kernels of a few iterations of `call` (one compiled call or step), taken apart from the
        timed samples (docs/protocol.md)."""
        if device.type == "cuda":
            from .tracing import cuda_trace as tracer
        else:
            from .tracing import profiler as tracer
        ok, why = tracer.available() if device.type == "cuda" else (True, "")
        if not ok:
            # No trace is not a failed run: the latency, memory and stages stand on their own.
            self.result["trace"] = {"source": tracer.SOURCE, "error": why}
            self.channel.progress("trace", PHASES["trace"][1], f"no trace: {why}")
            return
        mode = self.request.capture.get("roofs") or "cached"
        if mode != "skip":
            self.progress("trace", 0.0, "the machine's roofs: " + ("from the cache, or measured (at most "
                                                                 f"{roofs.BUDGET_S:g} s)" if mode == "cached"
                                                                 else f"measuring (at most {roofs.BUDGET_S:g} s)"))
        self.result["roofs"] = roofs.for_run(mode, device)
        self.progress("trace", 0.1, f"tracing {TRACE_ITERATIONS} iterations ({tracer.SOURCE})")
        try:
            self.result["trace"] = tracer.record(call, sync, self.channel, TRACE_ITERATIONS)
        except WorkerError:
            raise
        except Exception as exc:
            self.result["trace"] = {"source": tracer.SOURCE, "error": f"tracing failed: {describe(exc)}"}

    # -- the phases each workload defines (what one call is, how it is timed and checked) -----
    def eager_reference(self, sync):
        """The eager outputs (and fp64 ones, or None) the compiled ones are compared with."""
        raise NotImplementedError

    def compile(self, stack: contextlib.ExitStack, sync):
        """The torch.compile compiler's compiles (compile_timing.compile_with_capture); the
        callable that is measured."""
        raise NotImplementedError

    def measure_latency(self, compiled, sync) -> None:
        raise NotImplementedError

    def measure_memory(self, compiled, device: torch.device) -> None:
        raise NotImplementedError

    def record_trace(self, compiled, device: torch.device, sync) -> None:
        """Through trace(call, ...) with the workload's compiled call."""
        raise NotImplementedError

    def check_accuracy(self, compiled, eager_out, fp64_out) -> None:
        raise NotImplementedError

    # -- driver ---------------------------------------------------------------------------
    def check_workload(self) -> None:
        """Request checks of the workload itself, before the model loads (none for inference)."""

    def execute(self) -> str | None:
        """Run and send the result; the error code when the run failed."""
        try:
            with contextlib.ExitStack() as stack, torch.no_grad():
                # First: CPU affinity and threads, before the model loads (placement.py).
                self.result["placement"] = placement.apply(self.request.placement)
                if self.request.options.get("cache") == "warm":
                    self.scratch.use_warm_cache()
                self.result["cache"] = self.scratch.cache
                device = devices.resolve(self.request.device, self.backend)
                shapes.check_request(self.request)
                mixed.check_request(self.request)  # workload.assign: torch.compile backends, backend "mixed"
                compiler = self.compiler
                compiler.check(self.request)  # backend_unavailable with the reason
                sync = devices.synchronizer(device)
                refusal = compiler.precision_refusal(precision.of(self.request))
                if refusal is not None:
                    raise refusal.error(self.backend)
                stack.enter_context(precision.autocast(self.request, device, self.backend))
                self.check_quantization(device)
                refusal = compiler.refusal(self.WORKLOAD)  # a pair this worker does not run (pipelines.py)
                if refusal is not None:
                    raise refusal.error(self.backend)
                self.check_workload()
                self.load(device)
                eager_out, fp64_out = self.eager_reference(sync)
                self.quantize(device, stack)
                watch = compiler.watch_cudagraphs(self, stack, device)  # CUDA-graph skips (notes.py)
                compiled = compiler.compile(self, stack, sync)
                self.measure_latency(compiled, sync)
                compiler.measure_memory(self, compiled, device)
                if self.wants_trace:
                    compiler.record_trace(self, compiled, device, sync)
                self.check_accuracy(compiled, eager_out, fp64_out)
                if watch is not None:
                    watch.stop()
                    self.result["notes"] += watch.notes()
                self.record_graphs()
                compiler.finish(self)
                self.run_warm_compile()  # resets Dynamo: after the last use of `compiled`
                if shapes.requested(self.request):  # after the main result is complete (shapes.py)
                    self.result["shapes"] = shapes.run_phase(self, device, sync, compiler.shape_factory(self),
                                                            compiler.shapes_error)
                self.result["status"] = "ok"
        except WorkerError as error:
            self._fail(error)
        except Exception as exc:
            self._fail(internal(exc, backend=self.backend))
        self.channel.send("result", **self.result)
        return self.result.get("error", {}).get("code")

    def _fail(self, error: WorkerError) -> None:
        if error.backend is None and error.code not in MODEL_ERRORS:
            error.backend = self.backend
        fields = error.fields()
        self.channel.error(fields)
        if error.code in (COMPILE_FAILED, RUN_FAILED) and self.result.get("accuracy") is None:
            # the backend's own failure, named as the harness names it (accuracy.py)
            self.result["accuracy"] = accuracy.failed_to_run(error.message, error.__cause__,
                                                             precision.of(self.request))
        self.result["status"] = "failed"
        self.result["error"] = fields
