"""The inference workload of a `run` request: a forward under no_grad, timed against eager and
compared with its outputs (workload.py drives it; docs/protocol.md, docs/measurement.md)."""
import contextlib
import time

import torch

from . import (
    accuracy,
    accuracy_bisect,
    measure,
    memory,
    precision,  # workload.precision: autocast and tolerances (precision.py)
    quantize,
    reference,
    shapes,
)
from .capture.session import CaptureSession
from .compile_timing import FirstCall, compile_module, compile_with_capture, enter_inductor_capture, plain_compiles
from .errors import MODEL_FAILED, RUN_FAILED
from .machine_probe import MachineWatch
from .workload import PHASES, Workload


class Run(Workload):
    """The inference workload."""
    WORKLOAD = "inference"

    # -- phases ---------------------------------------------------------------------------
    def eager_reference(self, sync):
        self.progress("reference", 0.0, "running eager for the reference outputs")
        what = f"model {self.loaded.source}: forward"
        start = time.perf_counter()
        outputs = self._call(lambda: self.loaded(), MODEL_FAILED, what)
        sync()
        self.result["eager_first_call_s"] = time.perf_counter() - start
        eager_out = reference.detached(outputs)
        # As the harness: eager run twice must agree before a backend is judged against it.
        again = reference.detached(self._call(lambda: self.loaded(), MODEL_FAILED, what))
        self.eager_differs = accuracy.eager_runs_differ(eager_out, again)
        del again
        if self.request.workload["precision"] in quantize.MODES:
            return eager_out, None  # the quantization rule compares with fp32 eager only (accuracy.py)
        self.progress("reference", 0.5, "fp64 reference")
        fp64_out, why_not = reference.fp64_outputs(self.loaded)
        if why_not:
            self.channel.progress("reference", PHASES["reference"][1], f"no fp64 reference: {why_not}")
        return eager_out, fp64_out

    def compile(self, stack: contextlib.ExitStack, sync):
        """The capturing compile, timed, whose model is measured, and a warm recompile after
        everything else; with options.cache = warm, plain timed and warm compiles, then the
        capturing one (compile_timing.py, docs/measurement.md "Compile time")."""
        def make_plain():
            self.session = shapes.quiet_session(self.backend)
            return compile_module(self.compile_target, self._backend(self.session), self.request.options)

        def call(model):
            try:
                self.loaded(model)
            except Exception as exc:
                raise self._first_call_error(exc) from exc
        return compile_with_capture(self, stack, lambda kinds: plain_compiles(sync, make_plain, call, kinds),
                                    lambda timed: self._capture_compile(stack, sync, timed),
                                    {self.backend})

    def _capture_compile(self, stack: contextlib.ExitStack, sync, timed: bool):
        options, capture = self.request.options, self.request.capture
        self.progress("compile", 0.5 if not timed else 0.0,
                      f"compiling with {self.backend}, capturing its stages"
                      + (" (first call, timed)" if timed else " (a second compile)"))
        session = CaptureSession(self.channel, self.backend, stages_wanted=bool(capture.get("stages", True)),
                                 code_wanted=bool(capture.get("code", True)),
                                 on_capture=lambda message: self.progress("capture", 0.5, message),
                                 cache=self.scratch.cache)
        session.keep_graphs = accuracy_bisect.budget_of(self.request) is not None  # accuracy_bisect.py
        self.session = session
        enter_inductor_capture(stack, {self.backend}, [session], session, self.scratch.trace_dir, self.wants_trace)
        compiled = compile_module(self.compile_target, self._backend(session), options)
        first = FirstCall()
        try:
            with first.timed(sync):
                self.loaded(compiled)
        except Exception as exc:
            raise self._first_call_error(exc) from exc
        finally:
            self.record_graphs()
        session.first_call_done = True
        self.result["compile_capture_overhead_s"] = session.overhead_ns / 1e9
        if timed:
            self.result.update(compile_s=first.seconds, first_call_s=first.seconds, compile_breakdown=first.phases,
                               compile_breakdown_graphs=first.graphs)
        else:
            self.result["capture_s"] = first.seconds
        return compiled

    def measure_latency(self, compiled, sync) -> None:
        settings = self.request.measure
        self.progress("measure", 0.0, f"warm-up {settings['warmup']} + interleaved timing")
        what_eager = f"model {self.loaded.source}: forward"
        what_compiled = f"{self.request.model} compiled with {self.backend}"
        eager = lambda: self._call(lambda: self.loaded(), MODEL_FAILED, what_eager)  # noqa: E731
        fast = lambda: self._call(lambda: self.loaded(compiled), RUN_FAILED, what_compiled)  # noqa: E731
        watch = MachineWatch()
        self.result["runs"] = measure.interleaved(eager, fast, settings, sync, self.channel,
                                                  lambda f, m: self.progress("measure", f, m), watch)
        self.result["warnings"] += watch.warnings()
        self.result["measure"] = measure.outcome(self.result["runs"])

    def measure_memory(self, compiled, device: torch.device) -> None:
        self.progress("memory", 0.0, "peak memory of one eager call")
        eager_peak, method = memory.peak_bytes(lambda: self.loaded(), device)
        self.progress("memory", 0.5, "peak memory of one compiled call")
        peak, _ = memory.peak_bytes(
            lambda: self._call(lambda: self.loaded(compiled), RUN_FAILED, f"{self.backend} compiled model"), device)
        self.result.update(eager_peak_memory_bytes=eager_peak, peak_memory_bytes=peak, memory_method=method)

    def record_trace(self, compiled, device: torch.device, sync) -> None:
        self.trace(lambda: self._call(lambda: self.loaded(compiled), RUN_FAILED,
                                      f"{self.request.model} compiled with {self.backend}"), device, sync)

    def check_accuracy(self, compiled, eager_out, fp64_out) -> None:
        if self.eager_differs:  # nothing to compare with (accuracy.py)
            self.result["accuracy"] = accuracy.eager_differs(self.eager_differs, precision.of(self.request))
            return
        self.progress("accuracy", 0.0, "comparing compiled outputs with eager")
        outputs = self._call(lambda: reference.detached(self.loaded(compiled)), RUN_FAILED,
                             f"{self.request.model} compiled with {self.backend}")
        self.result["accuracy"] = accuracy.compare(eager_out, outputs, fp64_out,
                                                   **precision.accuracy_options(self.request))
        accuracy_bisect.after_accuracy(self)  # on request, when it failed (accuracy_bisect.py)
