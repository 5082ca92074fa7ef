"""`workload.precision` int8_*: quantized variants through torchao (docs/quantization.md).

The model is quantized once, after the fp32 eager reference is taken, into a copy; the request's
backend compiles and runs the copy, while every eager figure (the interleaved timing, the peak
memory, the reference outputs) stays the fp32 eager model's. So a quantized row's speedup is over
fp32 eager, and its accuracy is judged against fp32 eager outputs by the quantization rule
(accuracy.py, `rule: "quantized"`).

- int8_weight_only: torchao Int8WeightOnlyConfig: Linear weights int8 per channel, activations
  stay floating point (the weight is dequantized in the kernel).
- int8_dynamic: torchao Int8DynamicActivationInt8WeightConfig: Linear weights int8, activations
  quantized per token at run time, int8 x int8 matmuls (aten._int_mm).
- int8_static: PT2E with torchao's X86InductorQuantizer: torch.export, prepare_pt2e, calibration on
  the model file's calibration_inputs() (else its example inputs), convert_pt2e; Linear and
  convolution layers with activation scales fixed by the calibration. Inductor lowers the
  quantize/dequantize patterns to oneDNN int8 kernels (onednn.qlinear_pointwise) only with
  freezing on, so the worker sets inductor option freezing=true when the request leaves it unset,
  and says so in the record's notes.

The record (`quantization` in the result): mode, library and version, quantize_s (the
quantization and, for int8_static, the export and calibration: apart from compile_s), quantized_modules,
skipped_modules (each with its reason), weight_bytes (the quantized model's parameters, buffers
and constants, tensor subclasses counted by their inner tensors; for PT2E's GraphModule only what
its graph reads) and fp32_weight_bytes.
"""
import copy
import platform
import sys

import torch

from .errors import BACKEND_UNAVAILABLE, BAD_REQUEST, WorkerError, describe

MODES = ("int8_weight_only", "int8_dynamic", "int8_static")
TORCHAO_PIN = "0.18.0"  # plugins/worker/requirements.lock
# The quantization rule (accuracy.py): per floating output, cosine similarity with fp32 eager at
# least COSINE_MIN and relative L2 error at most REL_ERROR_MAX (SQNR >= 20 dB).
COSINE_MIN = 0.99
REL_ERROR_MAX = 0.1
# Compilers whose callable is the module torch.compile is given (pipelines.py): the others refuse.
COMPILERS = ("torch_compile",)


def is_quantized(precision: str | None) -> bool:
    return precision in MODES


def _torchao():
    """(module, None), or (None, why it cannot be imported)."""
    try:
        import torchao
    except Exception as exc:  # ImportError, or a torchao built for another torch
        return None, (f"torchao is not importable in {sys.executable} ({describe(exc)}); install the "
                      f"pinned release: pip install torchao=={TORCHAO_PIN}")
    return torchao, None


def unavailable_reason(mode: str, device: torch.device) -> str | None:
    """Why this worker cannot run `mode` on `device`, or None."""
    torchao, why = _torchao()
    if torchao is None:
        return why
    if mode == "int8_static":
        if device.type != "cpu":
            return (f"int8_static quantizes with torchao's X86InductorQuantizer (PT2E), which targets x86 "
                    f"CPUs; on {device.type} use int8_dynamic or int8_weight_only")
        machine = platform.machine().lower()
        if machine not in ("x86_64", "amd64", "i686", "x86"):
            return f"int8_static needs an x86 CPU (torchao's X86InductorQuantizer); this machine is {machine}"
        if not torch.backends.mkldnn.is_available():
            return f"int8_static needs oneDNN (torch.backends.mkldnn), which torch {torch.__version__} lacks here"
        try:
            torch.ops.onednn.qlinear_pointwise  # noqa: B018 -- the kernel Inductor lowers to
        except (AttributeError, RuntimeError):
            return f"torch {torch.__version__} has no oneDNN int8 kernel torch.ops.onednn.qlinear_pointwise"
    if mode == "int8_dynamic" and not hasattr(torch, "_int_mm"):
        return f"int8_dynamic needs torch._int_mm, which torch {torch.__version__} lacks"
    return None


def refusal(mode: str, workload: str, compiler: str, backend: str, shapes_requested: bool):
    """A WorkerError for a request this worker does not quantize, before the model loads; None when
    it does (the device is checked by unavailable_reason)."""
    if workload != "inference":
        return WorkerError(BAD_REQUEST, f"precision {mode} quantizes an inference model: training a quantized "
                           "model needs quantization-aware training, which FuseScope does not run", backend=backend)
    if compiler not in COMPILERS:
        what = ("backend mixed compiles submodules of the fp32 model" if compiler == "mixed"
                else f"{backend} compiles an fp32 torch.export program with TVM Relax")
        return WorkerError(BACKEND_UNAVAILABLE, f"{backend}: precision {mode} is not supported: {what}; the int8 "
                           "precisions run through torch.compile backends (docs/quantization.md)", backend=backend)
    if shapes_requested:
        return WorkerError(BAD_REQUEST, f"precision {mode} does not combine with workload.shapes in this worker: "
                           "a shape list recompiles the model per shape, and the quantized copy is "
                           "calibrated and compiled for the example inputs' shapes", backend=backend)
    return None


# -- sizes ----------------------------------------------------------------------------------
def _leaves(t: torch.Tensor):
    """The plain tensors holding `t`'s data: a torchao tensor subclass by its inner tensors."""
    flatten = getattr(type(t), "__tensor_flatten__", None)
    if flatten is not None and type(t) not in (torch.Tensor, torch.nn.Parameter):
        names, _ = t.__tensor_flatten__()
        for name in names:
            inner = getattr(t, name)
            if isinstance(inner, torch.Tensor):
                yield from _leaves(inner)
        return
    yield t


def _bytes(tensors) -> int:
    seen, total = set(), 0
    for tensor in tensors:
        for leaf in _leaves(tensor):
            try:
                key = (leaf.untyped_storage().data_ptr(), leaf.storage_offset(), tuple(leaf.shape), leaf.dtype)
            except Exception:  # a tensor without storage (meta, fake): counted by its size
                key = id(leaf)
            if key in seen:
                continue
            seen.add(key)
            total += leaf.numel() * leaf.element_size()
    return total


def weight_bytes(module: torch.nn.Module) -> int:
    """Bytes of the parameters, buffers and (for a GraphModule) tensor constants of `module`."""
    graph = getattr(module, "graph", None)
    if graph is None:
        return _bytes([t for _, t in module.named_parameters()] + [t for _, t in module.named_buffers()])
    # A GraphModule (PT2E's convert) still holds the fp32 weights it replaced: count what its graph
    # reads, the get_attr constants and the parameters of the submodules it calls.
    tensors = []
    for node in graph.nodes:
        if node.op not in ("get_attr", "call_module"):
            continue
        value = module
        for part in str(node.target).split("."):
            value = getattr(value, part, None)
        if isinstance(value, torch.Tensor):
            tensors.append(value)
        elif isinstance(value, torch.nn.Module):
            tensors += list(value.parameters()) + list(value.buffers())
    return _bytes(tensors)


# -- which layers --------------------------------------------------------------------------
def _is_plain(t) -> bool:
    return type(t) in (torch.Tensor, torch.nn.Parameter)


def _candidates(module: torch.nn.Module) -> dict:
    """Layers with a matrix-like weight (Linear, convolutions, embeddings): what int8 could quantize."""
    found = {}
    for name, sub in module.named_modules():
        weight = getattr(sub, "weight", None)
        if name and isinstance(weight, torch.Tensor) and weight.dim() >= 2:
            found[name] = type(sub).__name__
    return found


def _tensor_subclass_split(original: torch.nn.Module, quantized: torch.nn.Module, mode: str):
    """quantized_modules, skipped_modules of a torchao quantize_ (weights swapped for subclasses)."""
    done, skipped = [], []
    layers = dict(quantized.named_modules())
    for name, kind in _candidates(original).items():
        weight = getattr(layers.get(name), "weight", None)
        if isinstance(weight, torch.Tensor) and not _is_plain(weight):
            done.append(name)
        elif kind != "Linear":
            skipped.append({"module": name, "reason": f"{kind}: torchao's {mode} config quantizes nn.Linear "
                            "layers only"})
        else:
            skipped.append({"module": name, "reason": "torchao's quantize_ left this Linear in floating point "
                            "(its weight shape or dtype is not one the config handles)"})
    return done, skipped


def _pt2e_split(original: torch.nn.Module, converted):
    """quantized_modules, skipped_modules of a PT2E convert: a layer is quantized when a weight of
    one of its ops in the converted graph comes from a dequantize node."""
    quantized = set()
    for node in converted.graph.nodes:
        if node.op != "call_function" or len(node.args) < 2:
            continue
        weight = node.args[1]
        target = str(getattr(weight, "target", ""))
        if "dequantize" not in target:
            continue
        stack = node.meta.get("nn_module_stack") or {}
        if stack:
            path = list(stack.values())[-1][0]
            quantized.add(_plain_path(path))
    done, skipped = [], []
    for name, kind in _candidates(original).items():
        if name in quantized:
            done.append(name)
        else:
            skipped.append({"module": name, "reason": f"{kind}: the X86 Inductor quantizer annotated no "
                            "quantized op for it (it quantizes Linear and convolution patterns)"})
    return done, skipped


def _plain_path(path: str) -> str:
    """nn_module_stack paths as the model names them (`L['self'].a` or `a` -> `a`)."""
    for prefix in ("L['self'].", "L__self__.", "L__self___"):
        if path.startswith(prefix):
            path = path[len(prefix):]
    return path


# -- quantize ------------------------------------------------------------------------------
def _calibration_sets(loaded, device: torch.device) -> tuple[list, str]:
    """Input sets (args, kwargs) to calibrate int8_static on, and where they came from."""
    from torch.utils import _pytree as pytree

    from .models.pyfile import as_call
    make = getattr(loaded, "calibration", None)
    if make is None:
        return [(tuple(loaded.args), dict(loaded.kwargs))], "the example inputs"
    # A calibration problem fails the int8_static row only (backend_unavailable, naming the file):
    # a model_* code would stop every other row of the comparison, which never calibrates.
    where = f"precision int8_static is unavailable: model file {loaded.file}: calibration_inputs()"
    try:
        sets = list(make())
    except Exception as exc:
        raise WorkerError(BACKEND_UNAVAILABLE, f"{where} raised {describe(exc)}", file=loaded.file) from exc
    if not sets:
        raise WorkerError(BACKEND_UNAVAILABLE, f"{where} returned no input sets", file=loaded.file)
    move = lambda v: v.to(device) if isinstance(v, torch.Tensor) else v  # noqa: E731
    out = []
    for i, inputs in enumerate(sets):
        call = as_call(inputs)
        if call is None:
            raise WorkerError(BACKEND_UNAVAILABLE, f"{where}: set {i} is {type(inputs).__name__}, expected a "
                              "tuple/list of arguments, a dict of keyword arguments or a tensor", file=loaded.file)
        args, kwargs = call
        out.append((tuple(pytree.tree_map(move, list(args))), pytree.tree_map(move, kwargs)))
    return out, f"{len(out)} input sets of calibration_inputs()"


def freezing_context(mode: str, backend: str, options: dict):
    """For int8_static under Inductor with freezing on: Inductor's global freezing flag, set for the
    whole run. torch 2.13 compiles a PT2E graph with options={"freezing": True} alone only to fail
    in its fake-tensor pass on onednn.qlinear_prepack (UnsupportedOperatorException), while the
    same compile under torch._inductor.config.patch(freezing=True) succeeds (docs/quantization.md)."""
    import contextlib
    if mode != "int8_static" or backend != "inductor" or not (options.get("inductor") or {}).get("freezing"):
        return contextlib.nullcontext()
    from torch._inductor import config
    return config.patch(freezing=True)


def quantize(loaded, mode: str, device: torch.device, options: dict, backend: str):
    """(the quantized copy of loaded.module, the `quantization` record). The fp32 module is untouched."""
    import time

    import torchao
    start = time.perf_counter()
    record = {"mode": mode, "library": "torchao", "version": torchao.__version__,
              "quantized_modules": [], "skipped_modules": [], "weight_bytes": None,
              "fp32_weight_bytes": weight_bytes(loaded.module), "notes": []}
    where = f"{backend}: torchao {mode} of {loaded.source}"
    try:
        if mode == "int8_static":
            model = _pt2e(loaded, device, record)
            record["quantized_modules"], record["skipped_modules"] = _pt2e_split(loaded.module, model)
            if backend == "inductor":
                inductor = options["inductor"] = dict(options.get("inductor") or {})  # never a shared default
                if "freezing" not in inductor:
                    inductor["freezing"] = True
                    record["notes"].append("inductor option freezing=true set by the worker: Inductor lowers "
                                           "PT2E's quantize/dequantize patterns to oneDNN int8 kernels only when "
                                           "frozen")
        else:
            from torchao.quantization import Int8DynamicActivationInt8WeightConfig, Int8WeightOnlyConfig, quantize_
            config = Int8WeightOnlyConfig() if mode == "int8_weight_only" else Int8DynamicActivationInt8WeightConfig()
            model = copy.deepcopy(loaded.module)
            quantize_(model, config)
            record["quantized_modules"], record["skipped_modules"] = _tensor_subclass_split(loaded.module, model, mode)
    except WorkerError:
        raise
    except Exception as exc:
        raise WorkerError(BACKEND_UNAVAILABLE, f"{where} failed: {describe(exc)}", file=loaded.file,
                          backend=backend) from exc
    record["quantize_s"] = time.perf_counter() - start  # apart from compile_s, as the user pays it
    record["weight_bytes"] = weight_bytes(model)
    if not record["quantized_modules"]:
        raise WorkerError(BACKEND_UNAVAILABLE, f"{where} quantized no layer: "
                          + ("; ".join(f"{s['module']}: {s['reason']}" for s in record["skipped_modules"][:3])
                             or "the model has no Linear or convolution layer"),
                          file=loaded.file, backend=backend)
    return model, record


def has_vnni() -> bool:
    """Whether this CPU has VNNI (AVX512-VNNI, AVX-VNNI or AMX int8): x86 int8 kernels without it
    multiply u8 x s8 through a 16-bit intermediate that saturates at full 8-bit activation range."""
    try:
        if torch.cpu._is_vnni_supported():  # torch checks avx512_vnni only
            return True
    except Exception:
        pass
    try:
        with open("/proc/cpuinfo") as f:
            flags = set(f.read().split())
    except OSError:
        return False
    return bool(flags & {"avx512_vnni", "avx_vnni", "amx_int8"})


def _pt2e(loaded, device: torch.device, record: dict):
    import torchao.quantization.pt2e.quantizer.x86_inductor_quantizer as xiq
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    exported = torch.export.export(copy.deepcopy(loaded.module), tuple(loaded.args), dict(loaded.kwargs))
    quantizer = xiq.X86InductorQuantizer()
    # torchao's own advice (get_default_x86_inductor_quantization_config): reduce_range on CPUs
    # without VNNI, else the int8 kernels saturate and lose accuracy (seen: cosine 0.99, max_rel 1254
    # on an AVX2-only AMD EPYC).
    reduce_range = not has_vnni()
    if reduce_range:
        record["notes"].append("reduce_range=true: this CPU has no VNNI, so activations are quantized to 7 bits "
                               "(0-127), as torchao advises: x86 int8 kernels without VNNI saturate u8 x s8 "
                               "products at the full 8-bit range")
    quantizer.set_global(xiq.get_default_x86_inductor_quantization_config(reduce_range=reduce_range))
    prepared = prepare_pt2e(exported.module(), quantizer)
    sets, source = _calibration_sets(loaded, device)
    for args, kwargs in sets:
        try:
            prepared(*args, **kwargs)
        except Exception as exc:  # e.g. a set of another shape: the export fixed the example inputs' shapes
            raise WorkerError(BACKEND_UNAVAILABLE, f"precision int8_static is unavailable: calibrating "
                              f"{loaded.source} on {source} raised {describe(exc)} (calibration sets must have the "
                              "example inputs' shapes)", file=loaded.file) from exc
    record["calibration"] = source
    return convert_pt2e(prepared)
