"""The `export_torchscript` request (docs/libtorch.md): turn a model into files the LibTorch
family runs in-process. Loads the model as `run` does, scripts it (torch.jit.script, falling
back to torch.jit.trace with the example inputs), saves the TorchScript module, the example
inputs and the eager reference outputs, and returns the loaded model: the worker then answers
the runner's eager calls (eager_server.py), so eager and compiled samples are interleaved.
"""
import os
import time

import torch
from torch.utils import _pytree as pytree

from . import accuracy, memory, placement
from .deployment import eager_model_bytes
from .errors import BAD_REQUEST, COMPILE_FAILED, MODEL_FAILED, WorkerError, describe
from .models import load_model
from .request import _placement


class _TensorData(torch.nn.Module):
    """A scripted holder that C++ reads with torch::jit::load(path).attr(...)."""

    inputs: list[torch.Tensor]
    kwarg_names: list[str]
    kwarg_values: list[torch.Tensor]
    outputs: list[torch.Tensor]

    def __init__(self, inputs, kwarg_names, kwarg_values, outputs):
        super().__init__()
        self.inputs = inputs
        self.kwarg_names = kwarg_names
        self.kwarg_values = kwarg_values
        self.outputs = outputs

    def forward(self) -> list[torch.Tensor]:
        return self.outputs


def _tensors_only(values, what: str, file) -> list[torch.Tensor]:
    out = []
    for value in values:
        if not isinstance(value, torch.Tensor):
            raise WorkerError(BAD_REQUEST, f"{what}: the LibTorch backends take tensor inputs only, "
                              f"got {type(value).__name__}", file=file)
        out.append(value.detach().clone())
    return out


def _script(module, args, kwargs):
    """torch.jit.script first (keeps control flow); torch.jit.trace with the example inputs if
    scripting fails. Returns (scripted, method, why_script_failed)."""
    try:
        return torch.jit.script(module), "script", None
    except Exception as exc:  # scripting rejects much valid Python: tracing is the fallback
        why = describe(exc)
    if kwargs:
        traced = torch.jit.trace(module, example_kwarg_inputs=kwargs)
    else:
        traced = torch.jit.trace(module, args, check_trace=False)
    return traced, "trace", why


def load_announced(model: str, request: dict, channel):
    """Load the model and send the `model` message, as a run does."""
    channel.progress("load", 0.0, f"loading {model}")
    loaded = load_model(model, request.get("inputs"))
    channel.send("model", name=model, source=loaded.source, **{"class": loaded.class_name},
                 parameters=loaded.parameter_count(), inputs=loaded.input_description(), notes=loaded.notes)
    return loaded


def apply_placement(request: dict) -> dict:
    """The request's threads and pin, checked and applied as a run applies them (placement.py),
    so eager is timed as the LibTorch runner will time the compiled model. What is in effect goes
    to the reply's `placement`."""
    return placement.apply(_placement(request))


def eager_reference(loaded, channel):
    """Two eager calls (under the caller's no_grad): (first-call seconds, output leaves, the tensor
    leaves of the first cloned as the reference the C++ side compares with, where the second
    call differs from the first or None: accuracy.py's eager_two_runs_differ)."""
    channel.progress("reference", 0.05, "running eager for the reference outputs")
    start = time.perf_counter()
    try:
        outputs = loaded()
    except Exception as exc:
        raise WorkerError(MODEL_FAILED, f"model {loaded.source}: forward raised {describe(exc)}",
                          file=loaded.file) from exc
    eager_first_call = time.perf_counter() - start
    leaves = pytree.tree_leaves(outputs)
    reference = [leaf.detach().clone() for leaf in leaves if isinstance(leaf, torch.Tensor)]
    try:
        differs = accuracy.eager_runs_differ(outputs, loaded())
    except Exception as exc:
        raise WorkerError(MODEL_FAILED, f"model {loaded.source}: forward raised {describe(exc)} on its second call",
                          file=loaded.file) from exc
    return eager_first_call, leaves, reference, differs


def export(request: dict, channel):
    model, out_dir = request.get("model"), request.get("out_dir")
    if not isinstance(model, str) or not model or not isinstance(out_dir, str) or not out_dir:
        raise WorkerError(BAD_REQUEST, "export_torchscript needs non-empty string fields 'model' and 'out_dir'")
    if request.get("device", "cpu") != "cpu":
        raise WorkerError(BAD_REQUEST, "export_torchscript: the LibTorch backends run on the CPU only")
    placed = apply_placement(request)
    loaded = load_announced(model, request, channel)
    with torch.no_grad():
        eager_first_call, leaves, reference, differs = eager_reference(loaded, channel)
        channel.progress("compile", 0.1, "scripting the model for TorchScript")
        try:
            scripted, method, why = _script(loaded.module, loaded.args, loaded.kwargs)
        except Exception as exc:
            raise WorkerError(COMPILE_FAILED, f"{model}: neither torch.jit.script nor torch.jit.trace "
                              f"accepted the model: {describe(exc)}", file=loaded.file) from exc
        os.makedirs(out_dir, exist_ok=True)
        model_path = os.path.join(out_dir, "model.pt")
        data_path = os.path.join(out_dir, "data.pt")
        scripted.save(model_path)
        names = list(loaded.kwargs)
        data = _TensorData(_tensors_only(loaded.args, "positional inputs", loaded.file), names,
                           _tensors_only([loaded.kwargs[n] for n in names], "keyword inputs", loaded.file),
                           reference)
        torch.jit.script(data).save(data_path)
        # Eager's peak the same way every run measures it (memory.py), for the C++ side's compare.
        eager_peak, _ = memory.peak_bytes(lambda: loaded(), torch.device("cpu"))
    channel.send("torchscript_exported", model_path=model_path, data_path=data_path, method=method,
                 eager_peak_memory_bytes=eager_peak, script_error=why, eager_first_call_s=eager_first_call,
                 dropped_outputs=len(leaves) - len(reference), eager_runs_differ=differs, placement=placed,
                 eager_model_bytes=eager_model_bytes(loaded.module))
    return loaded
