"""Worker pipelines: a `run` request is one workload run with one compiler (docs/architecture.md,
"Worker pipelines").

- A **workload** (request `workload.mode`) decides what one call of the model is and how it is
  measured: `inference` (run.Run: a forward under no_grad) or `training` (training.TrainingRun:
  a forward, a synthetic loss, backward and an optimizer step).
- A **compiler** (chosen by the request's `backend`) turns the loaded model into the callable
  that is measured: `torch_compile` (every torch.compile backend), `mixed` (per-submodule
  backends, mixed.py), `tvm` (TVM Relax, tvm_relax/). The LibTorch family's artefacts are built
  by their own request types (`export_torchscript`, `export_aoti`), inference only: the
  LibTorch runner refuses training before it asks the worker for them.

Each compiler is a small object with one interface (Compiler below); the workload driver calls
only that interface, and a compiler reports what it measured through the workload's explicit
methods (Run.record, Run.use_session, Run.record_graphs), never by writing into it. A pair the
worker cannot run is a Refusal: an error code from errors.py and its message, sent before the
model loads. This module imports the workloads and the compilers; they never import it.
"""
from dataclasses import dataclass

from . import backends, memory, mixed, precision, quantize
from .errors import BACKEND_UNAVAILABLE, BAD_REQUEST, WorkerError
from .run import Run
from .training import TrainingRun

WORKLOADS = ("inference", "training")

TVM_REASON = ("FuseScope's TVM path compiles an inference program (torch.export -> Relax -> the Relax VM): "
              "it has no backward graph and produces no gradients")


@dataclass(frozen=True)
class Refusal:
    """Why a workload x compiler pair does not run: the protocol code and the message."""
    code: str
    message: str

    def error(self, backend: str) -> WorkerError:
        return WorkerError(self.code, self.message, backend=backend)


class Compiler:
    """One way of compiling the loaded model. The workload driver (Run.execute) calls, in order:
    check(request) before the model loads; compile(run, stack, sync) for the callable it then
    measures (workload-specific for torch.compile: run.compile); measure_memory and record_trace
    after the timed samples; finish(run) after accuracy; shape_factory(run) for workload.shapes."""
    name = ""
    refusals: dict = {}  # workload -> Refusal

    def refusal(self, workload: str) -> Refusal | None:
        return self.refusals.get(workload)

    def precision_refusal(self, precision: str) -> Refusal | None:
        """Why this compiler cannot run under the request's autocast precision (precision.py)."""
        return None

    def check(self, request) -> None:
        backends.check(request.backend, request.device)

    def compile(self, run, stack, sync):
        raise NotImplementedError

    def measure_memory(self, run, compiled, device) -> None:
        run.measure_memory(compiled, device)

    def record_trace(self, run, compiled, device, sync) -> None:
        run.record_trace(compiled, device, sync)

    def watch_cudagraphs(self, run, stack, device):
        return None

    def finish(self, run) -> None:
        pass

    shapes_error = None  # why workload.shapes cannot run with this compiler

    def shape_factory(self, run):
        """make(dynamic) -> (model, tracker) for shapes.run_phase; None for the plain one."""
        return None


class TorchCompile(Compiler):
    name = "torch_compile"

    def compile(self, run, stack, sync):
        return run.compile(stack, sync)

    def watch_cudagraphs(self, run, stack, device):
        return run.cudagraph_watch(stack, device)


class Mixed(Compiler):
    name = "mixed"
    refusals = {"training": Refusal(BAD_REQUEST, "workload.mode \"training\" does not combine with backend "
                                    "\"mixed\" (workload.assign) in this worker")}

    def check(self, request) -> None:
        pass  # mixed.check_request checked every assigned backend

    def compile(self, run, stack, sync):
        return mixed.compile(run, stack, sync)

    def finish(self, run) -> None:
        mixed.finish(run)

    def shape_factory(self, run):
        return mixed.shape_factory(run)


class TvmRelax(Compiler):
    name = "tvm"
    refusals = {"training": Refusal(BACKEND_UNAVAILABLE, f"tvm: training mode is not supported: {TVM_REASON}")}
    shapes_error = "shape lists compile with torch.compile; tvm runs through TVM Relax (docs/tvm.md)"

    def precision_refusal(self, precision: str) -> Refusal | None:
        if precision == "fp32" or quantize.is_quantized(precision):
            return None  # an int8 precision is refused by quantize.refusal, with its own reason
        return Refusal(BACKEND_UNAVAILABLE, f"tvm: precision {precision} is not supported: FuseScope's TVM path "
                       "compiles an fp32 torch.export program with TVM Relax, and TVM does not apply "
                       "torch.autocast, so eager under autocast and TVM would not compute the same thing")

    def compile(self, run, stack, sync):
        from .tvm_relax import backend
        return backend.compile(run, sync)

    def measure_memory(self, run, compiled, device) -> None:
        from .tvm_relax import backend
        run.progress("memory", 0.0, "peak memory of one eager call")
        eager_peak, eager_method = memory.peak_bytes(lambda: run.loaded(), device)
        run.progress("memory", 0.5, "peak Relax VM storage of one tvm call")
        run.record(**backend.memory_fields(compiled, lambda: run.loaded(compiled), eager_peak, eager_method))

    def record_trace(self, run, compiled, device, sync) -> None:
        from .tvm_relax import backend
        run.record(trace=dict(backend.NO_TRACE))


def _export_torchscript(request: dict, channel, scratch):
    from .export_torchscript import export
    return export(request, channel)


def _export_aoti(request: dict, channel, scratch):
    from .export_aoti import export
    return export(request, channel, scratch)


@dataclass(frozen=True)
class Export:
    """A LibTorch artefact request type (inference only): serve(request, channel, scratch) answers it,
    then answers the runner's eager calls on `lines` (eager_server.py) until shutdown."""
    name: str
    build: object
    workloads: tuple = ("inference",)

    def refusal(self, workload: str) -> Refusal | None:
        if workload in self.workloads:
            return None
        return Refusal(BAD_REQUEST, f"{self.name} prepares an inference artefact: the LibTorch runner runs "
                       f"inference only (workload.mode \"{workload}\")")

    def serve(self, request: dict, channel, scratch, lines) -> None:
        workload = request.get("workload")
        refusal = self.refusal((workload.get("mode") if isinstance(workload, dict) else None) or "inference")
        if refusal is not None:
            raise refusal.error(self.name)
        loaded = self.build(request, channel, scratch)
        import torch

        from . import eager_server
        with torch.no_grad():
            eager_server.serve(loaded, channel, lines)


COMPILERS = {c.name: c for c in (TorchCompile(), Mixed(), TvmRelax())}
EXPORTS = {e.name: e for e in (Export("export_torchscript", _export_torchscript), Export("export_aoti", _export_aoti))}


def compiler_for(backend: str) -> Compiler:
    """The compiler of a `run` request's backend: every name but mixed and tvm is torch.compile's."""
    return COMPILERS.get(backend, COMPILERS["torch_compile"])


def pairs() -> dict:
    """{(workload, compiler): None when it runs, else its Refusal}, every pair the worker knows."""
    table = {(w, name): c.refusal(w) for w in WORKLOADS for name, c in COMPILERS.items()}
    table.update({(w, name): export.refusal(w) for w in WORKLOADS for name, export in EXPORTS.items()})
    return table


def workload_class(mode: str):
    return TrainingRun if mode == "training" else Run


def run(request, channel, scratch) -> str | None:
    """Answer one parsed `run` request; the error code when the run failed."""
    cls = workload_class(precision.mode_of(request))
    return cls(request, channel, scratch, compiler_for(request.backend)).execute()
