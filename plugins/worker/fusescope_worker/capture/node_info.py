"""Facts about one FX node as graph-schema.json names them: op, shapes, module, source.

Everything here reads what torch recorded on the node (node.meta['val'] / 'example_value' /
'tensor_meta', 'nn_module_stack', 'stack_trace'); a field torch did not record stays empty.
"""
import os
import re

import torch
import torch.fx

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<fn>[^\n]+)\n(?P<code>[^\n]*)')


def dtype_name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


def dim(size):
    """A static size as an int, a symbolic one as its expression (e.g. "s0")."""
    if isinstance(size, int):
        return size
    text = str(size)  # a SymInt or sympy expression; one that turned out constant prints as digits
    return int(text) if text.lstrip("-").isdigit() else text


def _value_shapes(value, shapes: list, dtypes: list) -> None:
    if isinstance(value, torch.Tensor):
        shapes.append([dim(s) for s in value.shape])
        dtypes.append(dtype_name(value.dtype))
    elif isinstance(value, (list, tuple)):
        for item in value:
            _value_shapes(item, shapes, dtypes)
    elif isinstance(value, (torch.SymInt, int)) and not isinstance(value, bool):
        shapes.append([])
        dtypes.append("int")
    elif isinstance(value, (torch.SymFloat, float)):
        shapes.append([])
        dtypes.append("float")


def shapes_and_dtypes(node: torch.fx.Node) -> tuple[list, list]:
    shapes, dtypes = [], []
    for key in ("val", "example_value"):
        if key in node.meta:
            _value_shapes(node.meta[key], shapes, dtypes)
            return shapes, dtypes
    meta = node.meta.get("tensor_meta")
    metas = meta if isinstance(meta, (list, tuple)) else [meta]
    for m in metas:
        if m is not None and hasattr(m, "shape"):
            shapes.append([dim(s) for s in m.shape])
            dtypes.append(dtype_name(m.dtype))
    return shapes, dtypes


def op_name(node: torch.fx.Node) -> str:
    if node.op in ("placeholder", "output", "get_attr"):
        return node.op
    if node.op == "call_method":
        return f"Tensor.{node.target}"
    if node.op == "call_module":
        owner = node.graph.owning_module
        try:
            module = owner.get_submodule(node.target)
            return f"{type(module).__module__}.{type(module).__qualname__}"
        except (AttributeError, TypeError):
            return str(node.target)
    target = node.target
    if isinstance(target, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        return str(target)
    if isinstance(target, torch._ops.HigherOrderOperator):
        return f"higher_order.{target.name()}"
    try:
        name = torch.fx.node._get_qualified_name(target)
    except (AttributeError, RuntimeError, TypeError):
        name = getattr(target, "__name__", str(target))
    return name.replace("_operator.", "operator.", 1)


def normalize_module_path(path: str) -> str:
    """Dynamo writes module paths as Python expressions (`L['self'].blocks[0].attn`,
    `L['self']._modules['blocks']._modules['0']`, `getattr(L['self'].layers, '0')`,
    `L['self'].__dict__['_modules']['time_proj']`); the user thinks of them as `blocks.0.attn`."""
    previous = None
    while previous != path:
        previous = path
        path = re.sub(r"getattr\(([^(),]+),\s*['\"]([^'\"]+)['\"]\)", r"\1.\2", path)
    path = re.sub(r"^[A-Z]\[['\"][^'\"]*['\"]\]", "", path)
    path = re.sub(r"\._modules\[['\"]([^'\"]+)['\"]\]", r".\1", path)
    path = re.sub(r"\[['\"]([^'\"]+)['\"]\]", r".\1", path)
    path = re.sub(r"\[(\d+)\]", r".\1", path)
    # Attribute access through the instance dict (diffusers: `L['self'].__dict__['_modules']['time_proj']`)
    # is the module `time_proj` all the same (issue 33: it leaked as `__dict__._modules.time_proj`).
    path = re.sub(r"(^|\.)(__dict__\.)?_modules\.", r"\1", path)
    return path.strip(".")


def module_of(node: torch.fx.Node) -> tuple[str, str]:
    stack = node.meta.get("nn_module_stack")
    if not stack:
        return "", ""
    path, kind = list(stack.values())[-1][:2]
    if isinstance(kind, type):
        kind = f"{kind.__module__}.{kind.__qualname__}"
    return normalize_module_path(str(path)), str(kind)


def source_of(stack_trace: str | None) -> dict | None:
    """The innermost frame of the stack trace outside torch and outside generated code (FX's
    `<eval_with_key>` modules): the model's own code. The demos in this package count as
    model code."""
    if not stack_trace:
        return None
    frames = [m for m in _FRAME.finditer(stack_trace)
              if not m["file"].startswith((_TORCH_DIR, "<"))]
    if not frames:
        return None
    last = frames[-1]
    return {"file": last["file"], "line": int(last["line"]), "code": last["code"].strip()}
