"""A TorchScript archive (.pt from torch.jit.save).

torch.compile in torch 2.13 refuses ScriptModules ("torch.compile does not support compiling
torch.jit.script or torch.jit.freeze models directly"), so the archive is converted to an
ExportedProgram with torch's own TorchScript converter (torch._export.converter.TS2EPConverter)
and its module() is what eager and every backend run. The scripted module is run once first,
so a bad input spec is reported against the file, not against a backend.

Inputs: the request's `inputs` spec, else a `fusescope_inputs.json` entry stored in the
archive's _extra_files (same format, see input_spec.py).
"""
import json
import os

import torch

from ..errors import MODEL_FAILED, MODEL_INVALID, WorkerError, describe
from . import LoadedModel
from .input_spec import tensors_from_spec

INPUTS_ENTRY = "fusescope_inputs.json"


def _input_spec(path: str, requested, stored: bytes | str):
    if requested is not None:
        return requested, "request"
    text = stored.decode("utf-8", errors="replace") if isinstance(stored, bytes) else stored
    if not text.strip():
        raise WorkerError(MODEL_INVALID, f"TorchScript file {path} has no input spec: pass `inputs` in the "
                          f"request or save a {INPUTS_ENTRY} entry in the archive's _extra_files", file=path)
    try:
        return json.loads(text), INPUTS_ENTRY
    except json.JSONDecodeError as exc:
        raise WorkerError(MODEL_INVALID, f"TorchScript file {path}: {INPUTS_ENTRY} is not valid JSON "
                          f"({exc.msg})", file=path) from exc


def load(path: str, requested_inputs) -> LoadedModel:
    if os.path.getsize(path) == 0:
        raise WorkerError(MODEL_INVALID, f"TorchScript file {path} is empty", file=path)
    extra = {INPUTS_ENTRY: ""}
    try:
        scripted = torch.jit.load(path, map_location="cpu", _extra_files=extra)
    except Exception as exc:
        raise WorkerError(MODEL_INVALID, f"model file {path} is not a loadable TorchScript archive: "
                          f"{describe(exc)}", file=path) from exc
    spec, origin = _input_spec(path, requested_inputs, extra[INPUTS_ENTRY])
    try:
        args = tensors_from_spec(spec)
    except ValueError as exc:
        raise WorkerError(MODEL_INVALID, f"TorchScript file {path}: bad input spec from {origin}: {exc}",
                          file=path) from exc
    scripted.eval()
    try:
        with torch.no_grad():
            scripted(*args)
    except Exception as exc:
        raise WorkerError(MODEL_FAILED, f"TorchScript file {path}: forward raised with the inputs from "
                          f"{origin}: {describe(exc)}", file=path) from exc
    try:
        from torch._export.converter import TS2EPConverter
        module = TS2EPConverter(scripted, args).convert().module()
    except Exception as exc:
        raise WorkerError(MODEL_INVALID, f"TorchScript file {path}: conversion to a torch.export program "
                          f"failed ({describe(exc)}); torch.compile cannot compile ScriptModules directly",
                          file=path) from exc
    # The converted module holds the weights as buffers; count the archive's parameters.
    return LoadedModel(module=module, args=args, kwargs={}, source=path, file=path,
                       class_name=f"TorchScript {scripted.original_name}",
                       parameters=sum(p.numel() for p in scripted.parameters()),
                       notes=[f"TorchScript converted with TS2EPConverter; inputs from {origin}"])
