"""The `export_aoti` request (docs/libtorch.md, "AOTInductor"): build the AOTInductor package the
LibTorch family loads in-process with torch::inductor::AOTIModelPackageLoader.

Loads the model as `run` does, takes the eager reference outputs, torch.export's the model and
compiles it with torch._inductor.aoti_compile_and_package while the same Inductor hooks as the
`inductor` backend watch (capture/inductor_hooks.py), so its stages stream in the same schema:
the exported graph, the AOTAutograd and post-grad graphs, the scheduler nodes before fusion and
the kernels after. The kernels of the post_fusion stage are then checked against the C++ the
package actually contains, which is sent as `code`. The package is timed in C++, interleaved with
eager calls this worker answers after the reply (eager_server.py).

Under an int8 precision (`workload.precision`, docs/quantization.md) the package is built from
torchao's quantized copy of the model (quantize.py), after the fp32 eager reference: the reply
carries its `quantization` record, the eager figures and `eager_model_bytes` stay the fp32
model's, so the deployment view compares the int8 package with the fp32 model a user would ship.
"""
import os
import re
import time
import zipfile

import torch

from . import backends, memory, quantize
from .capture.session import CaptureSession
from .deployment import eager_model_bytes
from .errors import BACKEND_UNAVAILABLE, BAD_REQUEST, COMPILE_FAILED, WorkerError, describe
from .export_torchscript import _TensorData, _tensors_only, apply_placement, eager_reference, load_announced

BACKEND = "aot_inductor"
PACKAGE = "model.pt2"
DATA = "data.pt"
# The export graph is sent in place of Dynamo's: torch.export (non-strict by default) traces
# the module itself, at ATen level.
EXPORT_STAGE = {"name": "export", "label": "torch.export graph", "level": "aten"}


class _Buffer:
    """Holds what the capture session sends until the package exists: the post_fusion stage
    is completed with the package's own code before anything reaches the C++ side."""

    def __init__(self, channel):
        self.channel = channel
        self.messages: list[tuple[str, dict]] = []

    def send(self, type_: str, **fields) -> None:
        self.messages.append((type_, fields))

    def progress(self, phase: str, fraction: float, message: str) -> None:
        self.channel.progress(phase, fraction, message)


def _unavailable_reason() -> str | None:
    if not hasattr(torch._inductor, "aoti_compile_and_package"):
        return f"torch {torch.__version__} has no torch._inductor.aoti_compile_and_package"
    return backends._cpp_compiler_failure()


def _check_request(request: dict) -> tuple[str, str]:
    model, out_dir = request.get("model"), request.get("out_dir")
    if not isinstance(model, str) or not model or not isinstance(out_dir, str) or not out_dir:
        raise WorkerError(BAD_REQUEST, "export_aoti needs non-empty string fields 'model' and 'out_dir'")
    if request.get("device", "cpu") != "cpu":
        raise WorkerError(BAD_REQUEST, "export_aoti: FuseScope runs aot_inductor on the CPU only")
    reason = _unavailable_reason()
    if reason is not None:
        raise WorkerError(BACKEND_UNAVAILABLE, f"backend '{BACKEND}' is unavailable: {reason}", backend=BACKEND)
    return model, out_dir


def _flat_inputs(loaded, exported) -> list[torch.Tensor]:
    """The tensors in the order the package's run() takes them: (args, kwargs) flattened by the
    exported program's input spec, as torch's own AOTI Python runner does."""
    from torch.fx import _pytree as fx_pytree
    flat = fx_pytree.tree_flatten_spec((tuple(loaded.args), dict(loaded.kwargs)), exported.call_spec.in_spec)
    return _tensors_only(flat, f"inputs of {loaded.source}", loaded.file)


def _package_sources(path: str) -> dict[str, str]:
    """C++ files inside the package, by their name without the content hash (kernel.cpp,
    wrapper.cpp): the code the package's library was built from."""
    sources = {}
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            if name.endswith(".cpp"):
                base = os.path.basename(name)
                short = base.split(".", 1)[1] if base.count(".") > 1 else base
                sources[short if short not in sources else base] = archive.read(name).decode("utf-8", "replace")
    return sources


def _defined_kernels(sources: dict[str, str]) -> dict[str, str]:
    """Generated kernel name -> the package file that defines it (`extern "C" void name(`)."""
    found = {}
    for file, text in sources.items():
        for name in re.findall(r'extern\s+"C"\s+void\s+(\w+)\s*\(', text):
            if name not in found or file != "wrapper.cpp":  # a definition wins over the declaration
                found[name] = file
    return found


def _link_to_package(stage: dict, sources: dict[str, str]) -> None:
    """Point each kernel group at the package file holding its code; say in `warnings` what
    does not match between the captured kernels and the package."""
    defined = _defined_kernels(sources)
    warnings = stage.setdefault("warnings", [])
    named = set()
    for group in stage["groups"]:
        name = group.get("name") or ""
        named.add(name)
        if group["kind"] == "kernel":
            group["code"] = defined.get(name)
            if name not in defined:
                warnings.append(f"kernel {name} is not defined in the package's C++")
        else:
            group["code"] = next((f for f, text in sources.items() if name and name in text), None)
    for name, file in sorted(defined.items()):
        if name not in named:
            warnings.append(f"the package defines {name} ({file}), which no captured kernel names")


def _forward(buffer: _Buffer, channel, sources: dict[str, str]) -> list[str]:
    """Send the buffered stages (the export stage renamed, post_fusion linked to the package)
    and the package's C++ as `code`; returns the kernel names of the post_fusion stages."""
    kernels = []
    for type_, fields in buffer.messages:
        if type_ == "code":
            continue  # Inductor's trace copy; the package's own files are sent below
        if type_ == "stage":
            stage = fields["stage"]
            if stage["name"] == "dynamo_fx":
                stage.update(EXPORT_STAGE)
            elif stage["name"] == "post_fusion" and stage["status"] == "ok":
                _link_to_package(stage, sources)
                kernels += [g["name"] for g in stage["groups"] if g["kind"] == "kernel"]
        channel.send(type_, **fields)
    for name, text in sources.items():
        channel.send("code", name=name, language="cpp", text=text, stage="post_fusion", graph=0)
    return kernels


def _compile(loaded, model: str, package_path: str, channel, scratch, module=None,
             freezing: bool = False) -> tuple[dict, object]:
    """torch.export of `module` (the loaded model, or its int8 copy), then aoti_compile_and_package
    with the stage hooks on (and Inductor's freezing when asked). Returns timings and the exported
    program."""
    from torch._inductor import config as inductor_config

    from .capture import inductor_hooks
    channel.progress("compile", 0.1, "torch.export of the model")
    start = time.perf_counter()
    try:
        exported = torch.export.export(module if module is not None else loaded.module, tuple(loaded.args),
                                       dict(loaded.kwargs))
    except Exception as exc:
        raise WorkerError(COMPILE_FAILED, f"backend {BACKEND}: torch.export cannot export {model}: "
                          f"{describe(exc)}", file=loaded.file, backend=BACKEND) from exc
    export_s = time.perf_counter() - start
    buffer = _Buffer(channel)
    # The session treats the compile as the inductor backend's: it is Inductor, with the same
    # hooks and the same stages expected.
    session = CaptureSession(buffer, "inductor", stages_wanted=True, code_wanted=False,
                             on_capture=lambda message: channel.progress("capture", 0.15, message))
    session.unsupported_hooks = inductor_hooks.missing_hooks()
    channel.progress("compile", 0.12, "AOTInductor: compiling and building the package (C++)")
    start = time.perf_counter()
    record = session.begin_graph(exported.graph_module)
    try:
        patch = {**inductor_hooks.config_patch(session, scratch.trace_dir), **({"freezing": True} if freezing else {})}
        with inductor_config.patch(patch):
            path = torch._inductor.aoti_compile_and_package(exported, package_path=package_path)
    except Exception as exc:
        session.end_graph(record, error=exc)
        _forward(buffer, channel, {})
        raise WorkerError(COMPILE_FAILED, f"backend {BACKEND} failed to compile {model}: {describe(exc)}",
                          file=loaded.file, backend=BACKEND) from exc
    session.end_graph(record)
    compile_s = time.perf_counter() - start
    sources = _package_sources(path)
    kernels = _forward(buffer, channel, sources)
    overhead = session.overhead_ns / 1e9
    return {"export_s": export_s, "aoti_compile_s": max(compile_s - overhead, 0.0),
            "capture_overhead_s": overhead, "package_path": path, "kernels": kernels,
            "package_files": sorted(sources)}, exported


def _precision(request: dict) -> str:
    workload = request.get("workload")
    precision = workload.get("precision") if isinstance(workload, dict) else None
    if precision in (None, "fp32") or quantize.is_quantized(precision):
        return precision or "fp32"
    raise WorkerError(BAD_REQUEST, f"export_aoti: precision {precision!r} is not fp32 or an int8 precision "
                      "(the LibTorch runner refuses autocast precisions before it asks)", backend=BACKEND)


def _quantized_copy(loaded, precision: str):
    """The int8 copy of the model the package is built from, and its record (quantize.py); the
    reference outputs and every eager call stay the fp32 model's."""
    why = quantize.unavailable_reason(precision, torch.device("cpu"))
    if why is not None:
        raise WorkerError(BACKEND_UNAVAILABLE, f"backend '{BACKEND}': precision {precision} is unavailable: {why}",
                          backend=BACKEND)
    module, record = quantize.quantize(loaded, precision, torch.device("cpu"), {}, BACKEND)
    if precision == "int8_static":
        record["notes"].append("AOTInductor compiled with freezing=true: Inductor lowers PT2E's "
                               "quantize/dequantize patterns to oneDNN int8 kernels only when frozen")
    return module, record


def export(request: dict, channel, scratch):
    model, out_dir = _check_request(request)
    precision = _precision(request)
    placed = apply_placement(request)
    loaded = load_announced(model, request, channel)
    os.makedirs(out_dir, exist_ok=True)
    with torch.no_grad():
        eager_first_call, leaves, reference, differs = eager_reference(loaded, channel)
        module, quantization = None, None
        if quantize.is_quantized(precision):
            channel.progress("compile", 0.05, f"quantizing a copy of the model ({precision}, torchao)")
            module, quantization = _quantized_copy(loaded, precision)
        compiled, exported = _compile(loaded, model, os.path.join(out_dir, PACKAGE), channel, scratch, module,
                                      freezing=precision == "int8_static")
        data_path = os.path.join(out_dir, DATA)
        torch.jit.script(_TensorData(_flat_inputs(loaded, exported), [], [], reference)).save(data_path)
        # Eager's peak the same way every run measures it (memory.py), for the C++ side's compare.
        eager_peak, _ = memory.peak_bytes(lambda: loaded(), torch.device("cpu"))
    channel.send("aoti_exported", eager_peak_memory_bytes=eager_peak, data_path=data_path,
                 eager_first_call_s=eager_first_call, dropped_outputs=len(leaves) - len(reference),
                 eager_runs_differ=differs, placement=placed,
                 eager_model_bytes=eager_model_bytes(loaded.module),
                 **({"quantization": quantization} if quantization else {}), **compiled)
    return loaded
