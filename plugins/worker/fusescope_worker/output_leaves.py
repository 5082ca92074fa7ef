"""A model's outputs as named leaves, and tensors replaced inside any output (accuracy.py,
reference.py).

PyTorch's harness (torch/_dynamo/utils.py::same) walks lists, tuples and dicts, and the __dict__
of the output classes it knows. Here the same for any output: what torch.utils._pytree knows
(tuples, named tuples, lists, dicts, transformers ModelOutput) is opened the way pytree opens
it; other objects (transformers Cache subclasses such as DynamicCache and EncoderDecoderCache,
dataclasses, plain objects) through their dataclass fields or __dict__, so a cache's key and
value tensors become leaves whatever the installed transformers calls them
(`output[1].layers[0].keys` in 5.x, `output[1].key_cache[0]` in 4.x). What is left (numbers,
strings, None, devices, dtypes, modules, objects without a __dict__) is a leaf compared by
equality.
"""
import collections
import copy
import dataclasses
import enum
import types

import torch
from torch.utils import _pytree as pytree

# Leaves however they are built: compared by equality, never opened.
ATOMS = (type(None), bool, int, float, complex, str, bytes, torch.Tensor, torch.device, torch.dtype,
         torch.Size, torch.layout, torch.memory_format, torch.nn.Module, enum.Enum, type, types.FunctionType,
         types.BuiltinFunctionType, types.MethodType, types.ModuleType)
MAX_DEPTH = 32  # deeper than any real output; what lies below is compared by equality
PLAIN_DICTS = (dict, collections.OrderedDict, collections.defaultdict)


def _key_text(key, container) -> str:
    if (isinstance(key, pytree.MappingKey) and isinstance(key.key, str) and key.key.isidentifier()
            and type(container) not in PLAIN_DICTS):
        return f".{key.key}"  # ModelOutput fields read as attributes, as users write them
    return pytree.keystr((key,))


def _open(value):
    """(children as [(path suffix, child)], rebuild(new children) -> value), or None for a leaf."""
    if isinstance(value, ATOMS):
        return None
    try:  # one level of pytree: every child is a leaf to it
        pairs, spec = pytree.tree_flatten_with_path(value, is_leaf=lambda child: child is not value)
    except Exception:  # a type registered without key paths, or a flatten that raises
        pairs, spec = None, None
    if spec is not None and not spec.is_leaf():
        children = [(_key_text(path[0], value) if path else "", child) for path, child in pairs]
        return children, lambda new: pytree.tree_unflatten(new, spec)
    if dataclasses.is_dataclass(value):
        names = [f.name for f in dataclasses.fields(value)]
    elif hasattr(value, "__dict__") and isinstance(vars(value), dict):
        names = list(vars(value))
    else:
        return None
    children = [(f".{name}", getattr(value, name)) for name in names]

    def rebuild(new):
        copied = copy.copy(value)
        for name, child in zip(names, new):
            object.__setattr__(copied, name, child)
        return copied
    return children, rebuild


def flatten(value, root: str = "output") -> list[tuple[str, object]]:
    """Every leaf of `value` with its path: [("output[0]", tensor), ("output[1].layers[0].keys", tensor), ...]."""
    leaves: list[tuple[str, object]] = []

    def walk(node, path, depth, active):
        opened = _open(node) if depth < MAX_DEPTH and id(node) not in active else None
        if opened is None:
            leaves.append((path, node))
            return
        active.add(id(node))
        for suffix, child in opened[0]:
            walk(child, path + suffix, depth + 1, active)
        active.discard(id(node))

    walk(value, root, 0, set())
    return leaves


def map_tensors(fn, value):
    """`value` with fn(tensor) in place of every tensor leaf; containers and objects are copied
    (shallowly), so the original is left as it was. An object that cannot be copied is kept."""
    def walk(node, depth, active):
        if isinstance(node, torch.Tensor):
            return fn(node)
        opened = _open(node) if depth < MAX_DEPTH and id(node) not in active else None
        if opened is None:
            return node
        active.add(id(node))
        try:
            children = [walk(child, depth + 1, active) for _, child in opened[0]]
        finally:
            active.discard(id(node))
        try:
            return opened[1](children)
        except Exception:  # e.g. an object whose copy raises: keep it as it was
            return node

    return walk(value, 0, set())
